#include "render/io/sequence.hpp"

#include <OpenEXR/ImfThreading.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "core/buffer.hpp"
#include "core/timer.hpp"
#include "formats/attributes.hpp"
#include "formats/reader.hpp"
#include "formats/selection.hpp"
#include "image/exr.hpp"
#include "render/colormap.hpp"

namespace partikel::render::io {

namespace {

// Reads and decodes the selected frames on a thread of its own, one frame ahead of the caller.
class FramePrefetch {
public:
    FramePrefetch(fmt::FrameReader& reader, const fmt::FrameSelection& selection)
        : thread_([this, &reader, selection] { produce(reader, selection); }) {}
    ~FramePrefetch() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        changed_.notify_all();
        thread_.join();
    }
    FramePrefetch(const FramePrefetch&) = delete;
    FramePrefetch& operator=(const FramePrefetch&) = delete;

    // The next selected frame and its index, or nullopt at the end; rethrows a reading error.
    std::optional<std::pair<std::uint64_t, fmt::Frame>> next() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return slot_ || done_; });
        if (slot_) {
            auto frame = std::move(slot_);
            slot_.reset();
            changed_.notify_all();
            return frame;
        }
        if (error_) std::rethrow_exception(error_);
        return std::nullopt;
    }
    // Whether another selected frame follows the one next() returned last (waits for it).
    bool another() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return slot_ || done_; });
        return slot_.has_value();
    }

private:
    struct Stopped {};

    void produce(fmt::FrameReader& reader, const fmt::FrameSelection& selection) {
        try {
            fmt::for_each_selected(reader, selection, [&](std::uint64_t index, fmt::Frame& frame) {
                std::unique_lock<std::mutex> lock(mutex_);
                changed_.wait(lock, [&] { return !slot_ || stop_; });
                if (stop_) throw Stopped{};
                slot_.emplace(index, std::move(frame));
                changed_.notify_all();
            });
        } catch (const Stopped&) {
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            error_ = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(mutex_);
        done_ = true;
        changed_.notify_all();
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::optional<std::pair<std::uint64_t, fmt::Frame>> slot_;
    bool done_ = false, stop_ = false;
    std::exception_ptr error_;
    std::thread thread_;  // last: starts once the members above exist
};

// Images being encoded and written while the next frames render.
class EncodeQueue {
public:
    struct Slot {
        RenderedImage image;
        image::Image scratch;
        std::future<void> written;
    };
    explicit EncodeQueue(int slots) : slots_(std::size_t(std::max(slots, 1))) {}
    ~EncodeQueue() {
        for (Slot& s : slots_)
            if (s.written.valid()) s.written.wait();  // errors were reported, or are moot now
    }
    // The next slot, once its previous image is written (rethrows that write's error).
    Slot& acquire() {
        Slot& s = slots_[next_];
        next_ = (next_ + 1) % slots_.size();
        if (s.written.valid()) s.written.get();
        return s;
    }
    void finish() {
        for (Slot& s : slots_)
            if (s.written.valid()) s.written.get();
    }

private:
    std::vector<Slot> slots_;
    std::size_t next_ = 0;
};

// Pixel spacing of n particles filling the box [lo, hi] (its non-flat dimensions).
float typical_spacing(Vec3f lo, Vec3f hi, std::uint64_t n) {
    double volume = 1.0;
    int dims = 0;
    double diagonal = 0.0;
    for (int k = 0; k < 3; ++k) {
        const double e = double(hi[k]) - double(lo[k]);
        diagonal += e * e;
        if (e > 0.0) {
            volume *= e;
            ++dims;
        }
    }
    if (n < 2 || dims == 0) return diagonal > 0.0 ? float(0.01 * std::sqrt(diagonal)) : 1.0f;
    return float(std::pow(volume / double(n), 1.0 / dims));
}

// The camera of input frame `index`.
Camera camera_for(const Camera& base, const std::optional<CameraPath>& path, const CameraOptions& o, std::uint64_t index) {
    if (path) return path->at(double(index));
    return o.orbit_deg_per_frame != 0.0f ? orbit(base, o.orbit_deg_per_frame * float(index)) : base;
}

}  // namespace

SequenceReport render_stream(const Backend& backend, const SequenceOptions& options, Log& log,
                             const FrameCallback& on_frame) {
    const Stopwatch clock;
    make_view(Camera{}, options.settings.width, options.settings.height);  // the image size, before any reading
    const OutputPattern pattern = OutputPattern::parse(options.output);
    const fmt::FrameSelection selection = fmt::FrameSelection::parse(options.frames);
    if (options.frames_in_flight < 0) throw UsageError("frames in flight must not be negative");
    const int in_flight = options.frames_in_flight > 0
                              ? options.frames_in_flight
                              : int(std::max(2u, std::thread::hardware_concurrency() / 2));
    std::optional<CameraPath> path;
    if (!options.camera.path_file.empty())
        path = CameraPath::load(options.camera.path_file, options.camera.up, options.camera.fov_y_deg);
    pattern.check_writable();

    RenderSettings settings = options.settings;
    DeviceBuffer<float> environment;
    if (settings.background.kind == BackgroundKind::environment) {
        if (options.environment_map.empty()) throw UsageError("the environment background needs a map");
        const image::Image map = image::read_exr(options.environment_map, [&](const std::vector<std::string>& names) {
            for (const char* c : {"R", "G", "B"})
                if (std::find(names.begin(), names.end(), c) == names.end())
                    throw FormatError(options.environment_map + ": an environment map needs channels R, G and B");
            return std::vector<std::string>{"R", "G", "B"};
        });
        std::vector<float> rgb(3 * map.channels[0].size());
        for (std::size_t p = 0; p < map.channels[0].size(); ++p)
            for (int c = 0; c < 3; ++c) rgb[3 * p + std::size_t(c)] = map.channels[std::size_t(c)][p];
        environment = DeviceBuffer<float>(backend, rgb.size());
        environment.copy_from_host(rgb);
        settings.background.environment = environment.data();
        settings.background.environment_width = map.width;
        settings.background.environment_height = map.height;
        // Azimuth 0 along the horizontal direction closest to -z (or +x when up is along z).
        const Vec3f up = options.camera.up / norm(options.camera.up);
        Vec3f north = Vec3f{0.0f, 0.0f, -1.0f} - dot(Vec3f{0.0f, 0.0f, -1.0f}, up) * up;
        if (norm(north) < 1e-3f) north = Vec3f{1.0f, 0.0f, 0.0f} - dot(Vec3f{1.0f, 0.0f, 0.0f}, up) * up;
        settings.background.north = north / norm(north);
        settings.background.east = cross(settings.background.north, up);
    }

    // Imf's pool compresses the lines of each image in parallel.
    Imf::setGlobalThreadCount(int(std::max(1u, std::thread::hardware_concurrency())));

    auto reader = fmt::open_reader(options.input);
    std::optional<std::uint64_t> total;
    if (const auto count = reader->frame_count()) {
        std::uint64_t selected = 0;
        for (std::uint64_t i = 0; i < *count; ++i) selected += selection.contains(i);
        total = selected;
    }
    // One file for several frames: refused before anything is written (a pipe's frames are
    // counted by looking one frame ahead).
    const auto one_file = [&](const std::string& frames) {
        return UsageError((pattern.text() == "-" ? std::string("-o - (standard output) holds one image")
                                                 : "-o " + pattern.text() + " names one file") +
                          ", but the input has " + frames + " frames: use a pattern with %d, e.g. frames/%04d.exr");
    };
    if (total && *total > 1 && !pattern.numbered()) throw one_file(std::to_string(*total));
    if (options.preview && pattern.text() == "-")
        throw UsageError("--preview writes a PNG beside each image; -o - (standard output) has no place beside it");

    std::atomic<std::int64_t> encode_ns{0};  // before the queue: its tasks add to it until the queue is gone
    FramePrefetch frames(*reader, selection);
    EncodeQueue queue(in_flight);
    FrameParticles particles;
    std::unique_ptr<Renderer> renderer;
    Camera base_camera;
    std::vector<float> scratch;
    float exposure = options.exposure.value_or(1.0f);
    SequenceReport report;
    PhaseProfile host_profile(backend, options.profile);

    while (auto next = frames.next()) {
        const auto& [index, frame] = *next;
        if (report.frames == 0 && !pattern.numbered() && frames.another()) throw one_file("more than one");
        try {
            particles.load(frame, options.selection, index);
        } catch (const FormatError& e) {
            throw FormatError(reader->name() + ": " + e.what());
        }
        const FrameInput input = particles.input();
        if (particles.skipped())
            log.warning("frame " + std::to_string(index) + ": " + std::to_string(particles.skipped()) +
                        " particles with non-finite positions are not drawn");
        report.skipped_particles += particles.skipped();

        if (!renderer) {
            // An attribute the frame holds, checked (formats/attributes.hpp), named with the input.
            const auto frame_attribute = [&](const char* key) {
                try {
                    return fmt::real_attribute(frame, key);
                } catch (const FormatError& e) {
                    throw FormatError(reader->name() + ": frame " + std::to_string(index) + ": " + e.what());
                }
            };
            // Decided at the first frame and held for the sequence.
            Vec3f lo{-1.0f, -1.0f, -1.0f}, hi{1.0f, 1.0f, 1.0f};
            const bool any = particles.bounds(lo, hi);
            if (settings.style == Style::fluid) {
                const std::optional<double> h = options.smoothing_length_m ? std::optional<double>(*options.smoothing_length_m)
                                                                           : frame_attribute("sph.h");
                if (!h)
                    throw UsageError("--style fluid needs the SPH smoothing length: frame " + std::to_string(index) +
                                     " has no sph.h attribute; give --smoothing-length");
                settings.smoothing_length_m = float(*h);
            }
            // A constant radius also with --radius-column: groups drawn without that column (the
            // opaque ones) take it.
            if (settings.style != Style::fluid && !(settings.radius_m > 0.0f) &&
                !(settings.style == Style::points && options.points_in_pixels)) {
                const std::optional<double> dx = frame_attribute("sph.dx");
                settings.radius_m = dx ? float(0.5 * *dx)
                                       : 0.5f * typical_spacing(lo, hi, input.particles.position.size());
                if (input.particles.radius_m.empty())
                    log.info("particle radius " + std::to_string(settings.radius_m) + " m" +
                             (dx ? " (half of sph.dx)" : " (half the mean spacing)") + "; --radius sets one");
            }
            if (options.range) {
                settings.range_lo = options.range->first;
                settings.range_hi = options.range->second;
            } else if (!input.particles.value.empty()) {
                const auto [lo_v, hi_v] =
                    percentile_range(input.particles.value, options.percentile_lo, options.percentile_hi, scratch);
                settings.range_lo = lo_v;
                settings.range_hi = hi_v;
                log.info("colour range " + std::to_string(lo_v) + " .. " + std::to_string(hi_v) + " (percentiles " +
                         std::to_string(100.0 * options.percentile_lo) + " and " +
                         std::to_string(100.0 * options.percentile_hi) + " of frame " + std::to_string(index) + ")");
            }
            if (!path) {
                const CameraOptions& o = options.camera;
                const float aspect = float(settings.width) / float(settings.height);
                if (o.eye && o.target && !o.fit) {
                    base_camera = {*o.eye, *o.target, o.up, o.fov_y_deg};
                } else {
                    const Vec3f direction = o.eye ? *o.eye - o.target.value_or(0.5f * (lo + hi)) : o.direction;
                    try {
                        base_camera = fit_camera(lo, hi, direction, o.up, o.fov_y_deg, aspect);
                    } catch (const UsageError& e) {
                        // No camera flag may have been given: say whose camera failed and how to give one.
                        throw UsageError("frame " + std::to_string(index) + ": cannot fit the camera to its particles: " +
                                         e.what() + "; place it with --eye and --target");
                    }
                    if (o.target) {
                        // Keep the fitted distance, look at the given target.
                        const Vec3f back = base_camera.eye - base_camera.target;
                        base_camera.target = *o.target;
                        base_camera.eye = *o.target + back;
                    }
                    if (!any) log.note("frame " + std::to_string(index) + " has no particles to fit the camera to");
                }
            }
            renderer = std::make_unique<Renderer>(
                backend, settings, Capacity{input.particles.position.size(), input.opaque.position.size()});
            renderer->enable_profile(options.profile);
            log.info(std::string("rendering ") + style_name(settings.style) + " at " + std::to_string(settings.width) +
                     "x" + std::to_string(settings.height) + " on " + backend.describe());
        }

        const Camera camera = camera_for(base_camera, path, options.camera, index);
        renderer->render(input, camera);
        EncodeQueue::Slot* slot;
        {
            auto phase = host_profile.phase("wait for encoder");
            slot = &queue.acquire();
        }
        {
            auto phase = host_profile.phase("download");
            renderer->download(slot->image);
        }
        if (!options.exposure && settings.style == Style::points && report.frames == 0)
            exposure = automatic_exposure(slot->image);
        const FrameMeta meta{index, frame.step, frame.time * frame.time_unit_si, reader->name()};
        const CameraView view = renderer->view();
        const bool alpha = settings.background.kind == BackgroundKind::transparent;
        slot->written = std::async(std::launch::async, [&, slot, meta, view, alpha, exposure] {
            const auto start = std::chrono::steady_clock::now();
            write_exr_frame(pattern.path(meta.index), slot->image, slot->scratch, view, meta, settings.style, options.exr);
            if (options.preview) write_png_preview(pattern.preview_path(meta.index), slot->image, exposure, alpha);
            encode_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
        });
        ++report.frames;
        if (on_frame) on_frame(report.frames, total);
    }
    queue.finish();
    if (report.frames == 0) log.warning(reader->name() + ": no frames selected; nothing written");
    report.seconds = clock.seconds();
    report.encode_seconds = double(encode_ns.load()) * 1e-9;
    if (options.profile && renderer) {
        // Device phases, then the host's: seconds in total and milliseconds per frame.
        std::string table = "phase                                  total_s   ms/frame\n";
        const auto row = [&](const std::string& name, double seconds) {
            char line[160];
            std::snprintf(line, sizeof line, "%-36s %9.4f %10.3f\n", name.c_str(), seconds,
                          1e3 * seconds / double(std::max<std::uint64_t>(report.frames, 1)));
            table += line;
        };
        for (const auto& e : renderer->profile().entries()) row(e.name, e.total_seconds);
        for (const auto& e : host_profile.entries()) row(e.name + " (host)", e.total_seconds);
        row("encode and write (host, overlapped)", report.encode_seconds);
        row("wall clock", report.seconds);
        report.profile = table;
    }
    return report;
}

}  // namespace partikel::render::io
