// Rendering time by phase (docs/RENDER.md, "Benchmark"): SPH-like fluid frames of about 1M, 4M
// and 16M particles at 1920 x 1080 with 50 curvature flow steps, and, beside Werner's figure
// (3.97M particles, 274 ms per 1024 x 1024 frame with 500 flow steps on a GTX Titan), 4M at
// 1024 x 1024 with 500 steps.
//
// The particles are DualSPHysics's 3D dam break with an obstacle (sph-init dam-break-obstacle,
// one layer of wall particles) scaled to the size, with the water's surface bent into waves and
// every fluid particle moved by up to 0.2 dx, so that the anisotropy pass meets free surfaces and
// irregular neighbourhoods rather than a perfect lattice; the camera is fitted to the tank as
// splat-render fits it. Per configuration: a warm-up frame, the median device time of whole
// frames without profiling (--repeats), the same frames with per-phase device timing (one
// synchronisation per phase), the download of the images, and the host's OpenEXR encoding and
// writing of one frame with each codec, single-threaded and on every core.
//
// Across ranks (--ranks, or under mpirun): one fluid frame rendered sort-last (render/renderer.hpp)
// at each size of --sizes: every rank makes the whole frame, keeps its slab of the particles with
// the anisotropy's halo (render/io/frame_particles.hpp, split_by_slabs) and renders it; the
// images are composited on the device. Reported: the slowest rank's wall time per frame (median
// of --repeats, compositing included), the composite phase apart, and the halo's share. The
// share lies in page-locked host memory, as splat-render keeps it (run/pinned_columns.hpp), so
// that the upload is one DMA copy; --host-memory pageable keeps it on the heap instead, for
// comparison.
//
//   bench_render --device cuda --json render.jsonl
//   mpirun -np 4 bench_render --device cuda --ranks --sizes 64e6 --json render.jsonl
//   mpirun -np 4 bench_render --device cuda --ranks --sizes 64e6 --host-memory pageable
//   bench_render --device cpu --sizes 2e5 --size 640x360      (a quick look on a CPU)
#include <OpenEXR/ImfThreading.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "base/log.hpp"
#include "bench_program.hpp"
#include "core/timer.hpp"
#include "partikel_config.hpp"
#include "dist/communicator.hpp"
#include "render/io/frame_particles.hpp"
#include "render/io/image_output.hpp"
#include "render/renderer.hpp"
#include "run/pinned_columns.hpp"
#include "sph/io/scenes.hpp"

using namespace partikel;

namespace {

struct Frame {
    std::vector<Vec3f> fluid, walls;
    float h_m = 0.0f;
    Vec3f lo{}, hi{};
};

// The dam break with an obstacle at about `particles` particles (fluid and walls), waves on
// the water and jitter in it.
Frame make_frame(double particles) {
    sph::SceneOptions o;
    o.dx_m = 0.02f;
    o.boundary_layers = 1;
    for (int pass = 0; pass < 2; ++pass) {  // fluid scales as dx^-3, walls as dx^-2
        const double n = double(sph::make_scene("dam-break-obstacle", o).particles.size());
        o.dx_m = float(o.dx_m * std::cbrt(n / particles));
    }
    const sph::Scene scene = sph::make_scene("dam-break-obstacle", o);
    Frame f;
    f.h_m = scene.params.h_m;
    const float dx = scene.params.dx_m;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> jitter(-0.2f * dx, 0.2f * dx);
    float top = -1e30f;
    for (std::size_t i = 0; i < scene.particles.size(); ++i)
        if (scene.particles.kind[i] == sph::ParticleKind::fluid) top = std::max(top, scene.particles.position[i].y);
    for (std::size_t i = 0; i < scene.particles.size(); ++i) {
        Vec3f p = scene.particles.position[i];
        if (scene.particles.kind[i] == sph::ParticleKind::fluid) {
            // Waves of 3 cm amplitude, growing with height, on the 0.3 m deep water.
            const float lift = 0.03f * (p.y / top) * std::sin(20.0f * p.x) * std::cos(15.0f * p.z);
            p = {p.x + jitter(rng), p.y + lift + jitter(rng), p.z + jitter(rng)};
            f.fluid.push_back(p);
        } else {
            f.walls.push_back(p);
        }
    }
    f.lo = scene.params.domain_min;
    f.hi = scene.params.domain_max;
    return f;
}

// One frame per size across `ranks` (above).
void across_ranks(const Backend& backend, const dist::Communicator& ranks, const std::vector<double>& sizes, int width,
                  int height, int flow_steps, int repeats, bool pinned, std::ofstream& json) {
    if (ranks.root())
        std::printf("# %s on %s, commit %s\n", ranks.describe().c_str(), backend.describe().c_str(), PARTIKEL_GIT_COMMIT);
    for (const double n : sizes) {
        const Frame frame = make_frame(n);
        render::RenderSettings s;
        s.style = render::Style::fluid;
        s.width = width;
        s.height = height;
        s.smoothing_length_m = frame.h_m;
        s.flow_steps = flow_steps;
        const render::FrameInput all{.particles = {.position = frame.fluid}, .opaque = {.position = frame.walls}};
        // The halo as splat-render sends it: the anisotropy's support, 2h (none on one rank).
        const float halo_m = ranks.size() > 1 ? 2.0f * frame.h_m * 1.001f : 0.0f;
        const auto memory = pinned ? std::make_shared<run::PinnedColumns>(backend) : nullptr;
        const fmt::Frame share = render::io::slab_share(all, ranks.size(), ranks.rank(), halo_m, memory);
        const render::FrameInput input = render::io::share_input(share);
        std::size_t halo = 0;
        for (const std::uint8_t h : input.particles.halo) halo += h;
        const render::Camera camera = render::fit_camera(frame.lo, frame.hi, {0.35f, 0.45f, 1.0f}, {0.0f, 1.0f, 0.0f},
                                                         40.0f, float(width) / float(height));
        render::Renderer renderer(backend, s, {input.particles.position.size(), input.opaque.position.size()}, ranks);
        renderer.render(input, camera);  // warm-up
        std::vector<double> times;
        for (int r = 0; r < repeats; ++r) {
            backend.synchronize();
            ranks.barrier();
            Stopwatch clock;
            renderer.render(input, camera);
            backend.synchronize();
            times.push_back(ranks.allreduce(clock.seconds(), dist::ReduceOp::max));
        }
        std::sort(times.begin(), times.end());
        const double frame_s = times[times.size() / 2];
        renderer.enable_profile(true);
        renderer.render(input, camera);
        double composite_s = 0.0;
        for (const auto& e : renderer.profile().entries())
            if (e.name == "composite") composite_s += e.total_seconds;
        const auto halos = ranks.allgather<std::uint64_t>(halo);
        std::uint64_t halo_total = 0;
        for (const auto h : halos) halo_total += h;
        if (!ranks.root()) continue;
        std::printf("\n%zu fluid + %zu wall particles across %d ranks (%s), %dx%d, %d flow steps, %s host memory: "
                    "%.3f ms per frame (slowest rank, wall), composite %.3f ms; halo %.1f%% of the fluid\n%s",
                    frame.fluid.size(), frame.walls.size(), ranks.size(), std::string(ranks.transport()).c_str(), width,
                    height, flow_steps, pinned ? "pinned" : "pageable", 1e3 * frame_s, 1e3 * composite_s,
                    100.0 * double(halo_total) / double(std::max<std::size_t>(frame.fluid.size(), 1)),
                    renderer.profile().report().c_str());
        if (json)
            json << "{\"bench\":\"render_ranks\",\"commit\":\"" << PARTIKEL_GIT_COMMIT << "\",\"device\":"
                 << json_quote(backend.describe()) << ",\"ranks\":" << ranks.size() << ",\"transport\":"
                 << json_quote(std::string(ranks.transport())) << ",\"host_memory\":\""
                 << (pinned ? "pinned" : "pageable") << "\",\"fluid\":" << frame.fluid.size()
                 << ",\"walls\":" << frame.walls.size() << ",\"halo\":" << halo_total << ",\"width\":" << width
                 << ",\"height\":" << height << ",\"flow_steps\":" << flow_steps << ",\"frame_seconds\":" << frame_s
                 << ",\"composite_seconds\":" << composite_s << ",\"phases\":" << renderer.profile().report_json()
                 << "}\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    bench::BenchProgram tool("bench_render", "Benchmark splat rendering by phase (SPH-like fluid frames)");
    std::vector<double> sizes = {1e6, 4e6, 16e6};
    std::string size = "1920x1080";
    int flow_steps = 50, repeats = 5;
    bool thesis = true, encode = true;
    tool.app().add_option("--sizes", sizes, "Approximate particle counts")->delimiter(',');
    tool.app().add_option("--size", size, "Image size WIDTHxHEIGHT");
    tool.app().add_option("--flow-steps", flow_steps, "Curvature flow steps");
    tool.app().add_option("--repeats", repeats, "Timed frames per configuration (the median is reported)");
    tool.app().add_flag("!--no-thesis", thesis, "Skip Werner's configuration (4M, 1024 x 1024, 500 steps)");
    tool.app().add_flag("!--no-encode", encode, "Skip the OpenEXR encoding");
    bool across = false;
    tool.app().add_flag("--ranks", across, "Only one frame per size sort-last across ranks (implied under mpirun)");
    std::string host_memory = "pinned";
    tool.app()
        .add_option("--host-memory", host_memory, "--ranks: each rank's share in pinned (page-locked) or pageable memory")
        ->check(CLI::IsMember({"pinned", "pageable"}))
        ->capture_default_str();
    return tool.run(argc, argv, [&]() {
        const dist::Communicator ranks = dist::Communicator::world();
        Backend backend = tool.open_backend(ranks.local_rank(), ranks.local_size());
        int width = 0, height = 0;
        if (std::sscanf(size.c_str(), "%dx%d", &width, &height) != 2) throw UsageError("--size takes WIDTHxHEIGHT");
        std::ofstream json;
        if (ranks.root() && !tool.json_path().empty()) json.open(tool.json_path(), std::ios::app);
        if (across || ranks.size() > 1) {
            across_ranks(backend, ranks, sizes, width, height, flow_steps, repeats, host_memory == "pinned", json);
            return 0;
        }
        std::printf("# %s, commit %s\n", backend.describe().c_str(), PARTIKEL_GIT_COMMIT);
        struct Config {
            double particles;
            int width, height, flow_steps;
        };
        std::vector<Config> configs;
        for (const double n : sizes) configs.push_back({n, width, height, flow_steps});
        if (thesis) configs.push_back({4e6, 1024, 1024, 500});
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        for (const Config& c : configs) {
            const Frame frame = make_frame(c.particles);
            render::RenderSettings s;
            s.style = render::Style::fluid;
            s.width = c.width;
            s.height = c.height;
            s.smoothing_length_m = frame.h_m;
            s.flow_steps = c.flow_steps;
            const render::FrameInput input{.particles = {.position = frame.fluid}, .opaque = {.position = frame.walls}};
            const render::Camera camera =
                render::fit_camera(frame.lo, frame.hi, {0.35f, 0.45f, 1.0f}, {0.0f, 1.0f, 0.0f}, 40.0f,
                                   float(c.width) / float(c.height));
            render::Renderer renderer(backend, s, {frame.fluid.size(), frame.walls.size()});
            renderer.render(input, camera);  // warm-up
            const double frame_s = median_device_seconds(backend, repeats, [&] { renderer.render(input, camera); });
            renderer.enable_profile(true);
            for (int r = 0; r < repeats; ++r) renderer.render(input, camera);
            render::RenderedImage image;
            Stopwatch download_clock;
            renderer.download(image);
            const double download_s = download_clock.seconds();
            std::printf("\n%zu fluid + %zu wall particles (h %.3g mm), %dx%d, %d flow steps: %.3f ms per frame "
                        "(device), %.0f MB of device memory\n",
                        frame.fluid.size(), frame.walls.size(), 1e3 * frame.h_m, c.width, c.height, c.flow_steps,
                        1e3 * frame_s, double(renderer.device_bytes()) / 1e6);
            std::printf("%s", renderer.profile().report().c_str());
            std::printf("download of the 10 image planes (host): %.2f ms\n", 1e3 * download_s);
            std::string encode_json;
            if (encode) {
                const std::string path = (std::filesystem::temp_directory_path() / "bench_render.exr").string();
                image::Image scratch;
                const render::io::FrameMeta meta{};
                const struct {
                    const char* name;
                    image::Compression codec;
                    int zip_level;
                } codecs[] = {{"zip4", image::Compression::zip, 4},
                              {"zip1", image::Compression::zip, 1},
                              {"piz", image::Compression::piz, 4},
                              {"none", image::Compression::none, 4}};
                for (const auto& codec : codecs)
                    for (const unsigned threads : {1u, cores}) {
                        Imf::setGlobalThreadCount(int(threads));
                        Stopwatch clock;
                        render::io::write_exr_frame(path, image, scratch, renderer.view(), meta, s.style,
                                                    {.compression = codec.codec, .zip_level = codec.zip_level});
                        const double seconds = clock.seconds();
                        const auto bytes = std::filesystem::file_size(path);
                        std::printf("OpenEXR %-4s on %2u thread(s): %8.2f ms, %6.1f MB\n", codec.name, threads,
                                    1e3 * seconds, double(bytes) / 1e6);
                        char entry[160];
                        std::snprintf(entry, sizeof entry, "%s\"%s_%u\":{\"seconds\":%.6g,\"bytes\":%llu}",
                                      encode_json.empty() ? "" : ",", codec.name, threads, seconds,
                                      static_cast<unsigned long long>(bytes));
                        encode_json += entry;
                    }
                std::filesystem::remove(path);
            }
            if (json) {
                json << "{\"bench\":\"render\",\"commit\":\"" << PARTIKEL_GIT_COMMIT << "\",\"device\":"
                     << json_quote(backend.describe()) << ",\"fluid\":" << frame.fluid.size()
                     << ",\"walls\":" << frame.walls.size() << ",\"width\":" << c.width << ",\"height\":" << c.height
                     << ",\"flow_steps\":" << c.flow_steps << ",\"frame_seconds\":" << frame_s
                     << ",\"download_seconds\":" << download_s << ",\"phases\":" << renderer.profile().report_json()
                     << ",\"exr\":{" << encode_json << "}}\n";
            }
        }
        return 0;
    });
}
