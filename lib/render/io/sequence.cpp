#include "render/io/sequence.hpp"

#include <OpenEXR/ImfThreading.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
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
#include "run/pinned_columns.hpp"
#include "run/start_frame.hpp"

namespace partikel::render::io {

namespace {

// Where a rank's frames come from: its index in the input and the frame, or nullopt at the end.
class FrameSource {
public:
    virtual ~FrameSource() = default;
    virtual std::optional<std::pair<std::uint64_t, fmt::Frame>> next() = 0;
};

// What a producer calls for each frame it has; it throws PrefetchStopped once the consumer is gone.
using PushFrame = std::function<void(std::uint64_t, fmt::Frame&&)>;
struct PrefetchStopped {};

// Frames from a producer (a reader) on a thread of its own, one frame ahead of the caller.
class FramePrefetch final : public FrameSource {
public:
    using Producer = std::function<void(const PushFrame& push, const std::function<bool()>& stopped)>;
    explicit FramePrefetch(Producer producer) : thread_([this, producer = std::move(producer)] { produce(producer); }) {}
    ~FramePrefetch() override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        changed_.notify_all();
        thread_.join();
    }
    FramePrefetch(const FramePrefetch&) = delete;
    FramePrefetch& operator=(const FramePrefetch&) = delete;

    // The next frame and its index, or nullopt at the end; rethrows a reading error.
    std::optional<std::pair<std::uint64_t, fmt::Frame>> next() override {
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
    void produce(const Producer& producer) {
        try {
            producer(
                [&](std::uint64_t index, fmt::Frame&& frame) {
                    std::unique_lock<std::mutex> lock(mutex_);
                    changed_.wait(lock, [&] { return !slot_ || stop_; });
                    if (stop_) throw PrefetchStopped{};
                    slot_.emplace(index, std::move(frame));
                    changed_.notify_all();
                },
                [&] {
                    std::lock_guard<std::mutex> lock(mutex_);
                    return stop_;
                });
        } catch (const PrefetchStopped&) {
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

// Frames between ranks (frames split, an input only rank 0 reads): a header, then the frame's
// bytes (run::encode_frame), from rank 0 to the rank whose turn it is; at the end a header
// without a frame to every other rank.
struct ForwardedHeader {
    std::uint64_t index = 0;
    std::uint64_t bytes = 0;
};
constexpr std::uint64_t kNoMoreFrames = ~std::uint64_t{0};

void send_frame(const dist::Communicator& link, int rank, std::uint64_t index, const fmt::Frame* frame) {
    const std::vector<std::byte> bytes = frame ? run::encode_frame(*frame) : std::vector<std::byte>{};
    const ForwardedHeader header{index, frame ? bytes.size() : kNoMoreFrames};
    const dist::SendBytes head[] = {{rank, &header, sizeof header}};
    link.exchange_host(head, {});
    if (!frame) return;
    const dist::SendBytes body[] = {{rank, bytes.data(), bytes.size()}};
    link.exchange_host(body, {});
}

// Rank 0's reading: the selected frames dealt out in turn, its own kept, the others' sent.
void deal_frames(fmt::FrameReader& reader, const fmt::FrameSelection& selection, const dist::Communicator& link,
                 const PushFrame& push, const std::function<bool()>& stopped) {
    std::uint64_t dealt = 0;
    fmt::for_each_selected(reader, selection, [&](std::uint64_t index, fmt::Frame& frame) {
        const int rank = int(dealt++ % std::uint64_t(link.size()));
        if (rank == 0) return push(index, std::move(frame));
        if (stopped()) throw PrefetchStopped{};
        send_frame(link, rank, index, &frame);
    });
    for (int rank = 1; rank < link.size(); ++rank) send_frame(link, rank, 0, nullptr);
}

// Another rank's frames, as rank 0 deals them (received when asked for, on the caller's thread).
class DealtFrames final : public FrameSource {
public:
    explicit DealtFrames(dist::Communicator link) : link_(std::move(link)) {}
    std::optional<std::pair<std::uint64_t, fmt::Frame>> next() override {
        if (ended_) return std::nullopt;
        ForwardedHeader header;
        const dist::ReceiveBytes head[] = {{0, &header, sizeof header}};
        link_.exchange_host({}, head);
        if (header.bytes == kNoMoreFrames) {
            ended_ = true;
            return std::nullopt;
        }
        std::vector<std::byte> bytes(header.bytes);
        const dist::ReceiveBytes body[] = {{0, bytes.data(), bytes.size()}};
        link_.exchange_host({}, body);
        return std::pair<std::uint64_t, fmt::Frame>(header.index, run::decode_frame(bytes));
    }

private:
    dist::Communicator link_;
    bool ended_ = false;
};

// The frames of `selection` that are rank `rank`'s of `ranks` (dealt out in turn), given the
// input's frame count; nullopt when it has none.
std::optional<fmt::FrameSelection> my_frames(const fmt::FrameSelection& selection, std::uint64_t count, int rank,
                                             int ranks) {
    std::string list;
    std::uint64_t dealt = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        if (!selection.contains(i)) continue;
        if (dealt++ % std::uint64_t(ranks) == std::uint64_t(rank)) list += (list.empty() ? "" : ",") + std::to_string(i);
    }
    if (list.empty()) return std::nullopt;
    return fmt::FrameSelection::parse(list);
}

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

RankSplit parse_rank_split(const std::string& name) {
    if (name == "auto") return RankSplit::automatic;
    if (name == "frames") return RankSplit::frames;
    if (name == "particles") return RankSplit::particles;
    throw UsageError("unknown split '" + name + "' (auto, frames or particles)");
}

namespace {

// What the first frame decides for the whole sequence; with several ranks, rank 0's decision,
// sent to the others.
struct Look {
    float smoothing_length_m = 0.0f, radius_m = 0.0f, range_lo = 0.0f, range_hi = 1.0f;
    Camera camera{};
    float exposure = 1.0f;
    std::uint8_t valid = 0;  // 0: there is no first frame
};

// PARTIKEL_TEST_FAIL_RANK / PARTIKEL_TEST_FAIL_FRAME (sequence.hpp): the input frame before
// which this rank fails, or none.
std::optional<std::uint64_t> injected_failure_frame(int rank) {
    const char* r = std::getenv("PARTIKEL_TEST_FAIL_RANK");
    const char* f = std::getenv("PARTIKEL_TEST_FAIL_FRAME");
    if (!r || !f || std::atoi(r) != rank) return std::nullopt;
    return std::uint64_t(std::atoll(f));
}

// How the ranks share the sequence (after RankSplit::automatic is resolved): one rank; each rank
// its own frames, read itself or dealt out by rank 0; every frame split into slabs, read by
// every rank (each keeps its slab) or cut by rank 0 and sent.
enum class Sharing : std::uint8_t { one_rank, own_reads, dealt, particles_own_reads, particles_dealt };

}  // namespace

SequenceReport render_stream(const Backend& backend, const SequenceOptions& options, Log& log,
                             const FrameCallback& on_frame) {
    const Stopwatch clock;
    make_view(Camera{}, options.settings.width, options.settings.height);  // the image size, before any reading
    const OutputPattern pattern = OutputPattern::parse(options.output);
    const fmt::FrameSelection selection = fmt::FrameSelection::parse(options.frames);
    if (options.frames_in_flight < 0) throw UsageError("frames in flight must not be negative");
    const dist::Communicator& ranks = options.ranks;
    const bool root = ranks.root();
    // This rank's share of the host's cores (ranks on one host split them).
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency() / unsigned(std::max(1, ranks.local_size())));
    const int in_flight = options.frames_in_flight > 0 ? options.frames_in_flight : int(std::max(2u, cores / 2));
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
    Imf::setGlobalThreadCount(int(cores));

    // One file for several frames: refused before anything is written (a pipe's frames are
    // counted by looking one frame ahead).
    const auto one_file = [&](const std::string& frames) {
        return UsageError((pattern.text() == "-" ? std::string("-o - (standard output) holds one image")
                                                 : "-o " + pattern.text() + " names one file") +
                          ", but the input has " + frames + " frames: use a pattern with %d, e.g. frames/%04d.exr");
    };
    // Page-locked host memory (run/pinned_columns.hpp) for what the renderer uploads, so that
    // the upload is one DMA copy from where the particles were made: the columns the reader
    // decodes that FrameParticles reads in place (a rank that renders whole frames), or each
    // rank's share of a frame cut into slabs. Reused from frame to frame.
    bool pin_reads = true;  // false once the frames are cut into slabs (their shares are pinned)
    const auto pinned = std::make_shared<run::PinnedColumns>(
        backend, [&pin_reads, &selection = options.selection](std::string_view group, std::string_view column) {
            return pin_reads && FrameParticles::reads(selection, group, column);
        });
    // The input. Rank 0 opens it and decides how the ranks share the work; where each rank
    // reads its own frames, the others open it too.
    std::unique_ptr<fmt::FrameReader> reader;
    std::optional<std::uint64_t> total;  // selected frames, when the input says
    Sharing sharing = Sharing::one_rank;
    ranks.collectively([&] {
        if (!root) return;
        reader = fmt::open_reader(options.input, pinned);
        if (const auto count = reader->frame_count()) {
            std::uint64_t selected = 0;
            for (std::uint64_t i = 0; i < *count; ++i) selected += selection.contains(i);
            total = selected;
        }
        if (total && *total > 1 && !pattern.numbered()) throw one_file(std::to_string(*total));
        if (ranks.size() == 1) return;
        const bool one_frame = total && *total == 1;
        if (options.split == RankSplit::particles || (options.split == RankSplit::automatic && one_frame)) {
            sharing = reader->frame_count() ? Sharing::particles_own_reads : Sharing::particles_dealt;
            return;
        }
        sharing = reader->frame_count() ? Sharing::own_reads : Sharing::dealt;
        if (!pattern.numbered() && !(total && *total <= 1))
            throw UsageError("output '" + pattern.text() + "' names one file, but " + std::to_string(ranks.size()) +
                             " ranks write frames of their own: use a pattern with %d, e.g. frames/%04d.exr");
    });
    if (ranks.size() > 1) {
        ranks.bcast_value(sharing);
        if (sharing == Sharing::own_reads || sharing == Sharing::particles_own_reads)
            ranks.collectively([&] {
                if (!root) reader = fmt::open_reader(options.input, pinned);
            });
    }
    const bool split_particles = sharing == Sharing::particles_own_reads || sharing == Sharing::particles_dealt;
    pin_reads = !split_particles;  // before the first frame is read (the reading threads start below)
    if (options.preview && pattern.text() == "-")
        throw UsageError("--preview writes a PNG beside each image; -o - (standard output) has no place beside it");
    // Frames dealt by rank 0 travel on a communicator of their own (its reading thread sends).
    const dist::Communicator link = sharing == Sharing::dealt ? ranks.duplicate() : ranks;
    std::unique_ptr<FrameSource> source;
    FramePrefetch* prefetch = nullptr;  // the source when this rank reads the whole input
    if (sharing == Sharing::one_rank || sharing == Sharing::particles_own_reads ||
        (sharing == Sharing::particles_dealt && root)) {
        auto own = std::make_unique<FramePrefetch>([&](const PushFrame& push, const std::function<bool()>&) {
            fmt::for_each_selected(*reader, selection, [&](std::uint64_t i, fmt::Frame& f) { push(i, std::move(f)); });
        });
        prefetch = own.get();
        source = std::move(own);
    } else if (sharing == Sharing::own_reads) {
        const std::optional<fmt::FrameSelection> mine =
            my_frames(selection, *reader->frame_count(), ranks.rank(), ranks.size());
        source = std::make_unique<FramePrefetch>([&, mine](const PushFrame& push, const std::function<bool()>&) {
            if (mine)
                fmt::for_each_selected(*reader, *mine, [&](std::uint64_t i, fmt::Frame& f) { push(i, std::move(f)); });
        });
    } else if (sharing == Sharing::dealt && root) {
        source = std::make_unique<FramePrefetch>([&](const PushFrame& push, const std::function<bool()>& stopped) {
            deal_frames(*reader, selection, link, push, stopped);
        });
    } else if (sharing == Sharing::dealt) {
        source = std::make_unique<DealtFrames>(link);
    }
    const std::string source_name = reader ? reader->name() : options.input;

    std::atomic<std::int64_t> encode_ns{0};  // before the queue: its tasks add to it until the queue is gone
    EncodeQueue queue(in_flight);
    FrameParticles particles;
    std::unique_ptr<Renderer> renderer;
    Look look;
    look.exposure = options.exposure.value_or(1.0f);
    std::vector<float> scratch;
    SequenceReport report;
    PhaseProfile host_profile(backend, options.profile);

    // The look of the sequence from its first frame (rank 0, or the only rank).
    const auto decide = [&](const fmt::Frame& frame, std::uint64_t index, const FrameInput& input) {
        // An attribute the frame holds, checked (formats/attributes.hpp), named with the input.
        const auto frame_attribute = [&](const char* key) {
            try {
                return fmt::real_attribute(frame, key);
            } catch (const FormatError& e) {
                throw FormatError(source_name + ": frame " + std::to_string(index) + ": " + e.what());
            }
        };
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
            settings.radius_m = dx ? float(0.5 * *dx) : 0.5f * typical_spacing(lo, hi, input.particles.position.size());
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
                look.camera = {*o.eye, *o.target, o.up, o.fov_y_deg};
            } else {
                const Vec3f direction = o.eye ? *o.eye - o.target.value_or(0.5f * (lo + hi)) : o.direction;
                try {
                    look.camera = fit_camera(lo, hi, direction, o.up, o.fov_y_deg, aspect);
                } catch (const UsageError& e) {
                    // No camera flag may have been given: say whose camera failed and how to give one.
                    throw UsageError("frame " + std::to_string(index) + ": cannot fit the camera to its particles: " +
                                     e.what() + "; place it with --eye and --target");
                }
                if (o.target) {
                    // Keep the fitted distance, look at the given target.
                    const Vec3f back = look.camera.eye - look.camera.target;
                    look.camera.target = *o.target;
                    look.camera.eye = *o.target + back;
                }
                if (!any) log.note("frame " + std::to_string(index) + " has no particles to fit the camera to");
            }
        }
        look.smoothing_length_m = settings.smoothing_length_m;
        look.radius_m = settings.radius_m;
        look.range_lo = settings.range_lo;
        look.range_hi = settings.range_hi;
        look.valid = 1;
    };
    // Rank 0's look on every rank.
    const auto share_look = [&] {
        ranks.bcast_value(look);
        settings.smoothing_length_m = look.smoothing_length_m;
        settings.radius_m = look.radius_m;
        settings.range_lo = look.range_lo;
        settings.range_hi = look.range_hi;
    };
    const auto started = [&](const FrameInput& input, const dist::Communicator& renderer_ranks) {
        renderer = std::make_unique<Renderer>(
            backend, settings, Capacity{input.particles.position.size(), input.opaque.position.size()}, renderer_ranks);
        renderer->enable_profile(options.profile);
        std::string where = backend.describe();
        if (ranks.size() > 1)
            where = ranks.describe() + ", " + where + " on rank 0, " +
                    (sharing == Sharing::particles_own_reads ? "each frame's particles split, composited; every rank reads"
                     : split_particles                        ? "each frame's particles split, composited; rank 0 reads and sends"
                                                              : "frames dealt out");
        log.info(std::string("rendering ") + style_name(settings.style) + " at " + std::to_string(settings.width) + "x" +
                 std::to_string(settings.height) + " on " + where);
    };
    // What the image's header says of frame `index`: where it came from and who made it.
    const auto meta_of = [&](std::uint64_t index, const fmt::Frame& frame) {
        FrameMeta meta{index, frame.step, frame.time * frame.time_unit_si, source_name, options.command_line, {}};
        for (const char* key : {"program", "commit", "command_line"}) {
            const auto found = frame.attributes.find(key);
            if (found != frame.attributes.end())
                if (const auto* text = std::get_if<std::string>(&found->second)) meta.source_provenance.emplace_back(key, *text);
        }
        return meta;
    };
    // Rank 0's (or this rank's) image of frame `meta` to its files, while the next frames render.
    const auto encode = [&](const FrameMeta& meta, bool first) {
        EncodeQueue::Slot* slot;
        {
            auto phase = host_profile.phase("wait for encoder");
            slot = &queue.acquire();
        }
        {
            auto phase = host_profile.phase("download");
            renderer->download(slot->image);
        }
        if (first && !options.exposure && settings.style == Style::points) look.exposure = automatic_exposure(slot->image);
        const CameraView view = renderer->view();
        const bool alpha = settings.background.kind == BackgroundKind::transparent;
        slot->written = std::async(std::launch::async, [&, slot, meta, view, alpha, exposure = look.exposure] {
            const auto start = std::chrono::steady_clock::now();
            write_exr_frame(pattern.path(meta.index), slot->image, slot->scratch, view, meta, settings.style, options.exr);
            if (options.preview) write_png_preview(pattern.preview_path(meta.index), slot->image, exposure, alpha);
            encode_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
        });
        ++report.frames;
        if (on_frame && root) on_frame(report.frames, total);
    };
    const std::optional<std::uint64_t> fail_before = injected_failure_frame(ranks.rank());
    const auto render = [&](const FrameInput& input, std::uint64_t index) {
        if (fail_before == index)
            throw DeviceError("injected failure before frame " + std::to_string(index) + " (PARTIKEL_TEST_FAIL_FRAME)");
        renderer->render(input, camera_for(look.camera, path, options.camera, index));
    };
    const auto load = [&](const fmt::Frame& frame, std::uint64_t index) {
        try {
            particles.load(frame, options.selection, index);
        } catch (const FormatError& e) {
            throw FormatError(source_name + ": " + e.what());
        }
        if (particles.skipped())
            log.warning("frame " + std::to_string(index) + ": " + std::to_string(particles.skipped()) +
                        " particles with non-finite positions are not drawn");
        report.skipped_particles += particles.skipped();
    };

    if (!split_particles) {
        // Each rank its own frames (or the only rank all of them). The others wait for rank 0's
        // look, which it sends once its first frame is rendered (the exposure needs the image).
        if (sharing != Sharing::one_rank && !root) share_look();
        bool look_shared = sharing == Sharing::one_rank || !root;
        if (sharing != Sharing::one_rank && root && total) total = (*total + std::uint64_t(ranks.size()) - 1) / std::uint64_t(ranks.size());
        while (auto next = source->next()) {
            if (ranks.size() > 1) ranks.throw_if_failed();  // another rank's failure ends this one too
            const auto& [index, frame] = *next;
            if (report.frames == 0 && !pattern.numbered() && prefetch && prefetch->another()) throw one_file("more than one");
            load(frame, index);
            const FrameInput input = particles.input();
            const bool first = !renderer;
            if (first) {
                if (!look.valid) decide(frame, index, input);
                started(input, dist::Communicator::single());
            }
            render(input, index);
            encode(meta_of(index, frame), first && root);
            if (!look_shared) {
                share_look();
                look_shared = true;
            }
        }
        if (!look_shared) share_look();  // rank 0 had no frame: nor has any other rank
    } else {
        // Every frame on every rank, cut into slabs: from an input with an index every rank reads
        // the frame and keeps its own slab (the same cut everywhere: the same particles, the same
        // arithmetic), otherwise rank 0 reads it, cuts it and sends each rank its share; the
        // images are composited (render/renderer.hpp) and rank 0 writes them.
        struct Header {
            std::uint64_t index = 0;
            std::uint8_t more = 0;
        };
        const bool every_rank_reads = sharing == Sharing::particles_own_reads;
        fmt::Frame current;
        for (;;) {
            Header header;
            const auto read_next = [&] {
                if (auto next = source->next()) {
                    current = std::move(next->second);
                    header = {next->first, 1};
                    load(current, header.index);
                }
            };
            if (every_rank_reads) ranks.collectively(read_next);  // a reading error ends every rank alike
            else if (root) read_next();
            Header roots = header;
            ranks.bcast_value(roots);
            if (every_rank_reads)  // the same frame on every rank, or every rank stops
                ranks.collectively([&] {
                    if (roots.more != header.more || roots.index != header.index)
                        throw FormatError(source_name + ": rank " + std::to_string(ranks.rank()) + " read " +
                                          (header.more ? "frame " + std::to_string(header.index) : "no frame") +
                                          " where rank 0 read " +
                                          (roots.more ? "frame " + std::to_string(roots.index) : "none") +
                                          " (did the input change while it was read?)");
                });
            header = roots;
            if (!header.more) break;
            const bool first = !renderer;
            if (first) {
                if (root) decide(current, header.index, particles.input());
                share_look();
            }
            const float halo_m = settings.style == Style::fluid ? 2.0f * settings.smoothing_length_m * 1.001f : 0.0f;
            const fmt::Frame share =
                every_rank_reads ? slab_share(particles.input(), ranks.size(), ranks.rank(), halo_m, pinned)
                                 : run::scatter_frames(ranks, [&] { return split_by_slabs(particles.input(), ranks.size(), halo_m); });
            const FrameInput input = share_input(share);
            if (first) started(input, ranks);
            render(input, header.index);
            if (root) encode(meta_of(header.index, current), first);
        }
    }
    source.reset();
    queue.finish();
    if (ranks.size() > 1 && !split_particles) {
        report.frames = ranks.allreduce<std::uint64_t>(report.frames, dist::ReduceOp::sum);
        report.skipped_particles = ranks.allreduce<std::uint64_t>(report.skipped_particles, dist::ReduceOp::sum);
    }
    if (report.frames == 0) log.warning(source_name + ": no frames selected; nothing written");
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
