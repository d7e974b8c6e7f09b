// SPH step time by phase on DualSPHysics's 3D dam break with an obstacle (sph-init
// dam-break-obstacle) in two configurations:
//   default       Werner (2015)'s scheme: Wendland C2, h = 1.5 dx, midpoint predictor-corrector
//                 (two neighbour passes per step), Shepard every 30 steps, alpha 0.1
//   dualsphysics  the scene's own settings: cubic spline, h = sqrt(3) dx, Verlet (one pass),
//                 Fourtakas diffusion, CFL 0.2 -- the peer case of docs/PERFORMANCE.md
// The default configuration runs at --sizes, the dualsphysics one at DualSPHysics's particle
// spacings (--dx); both with one layer of wall particles and a hollow column, as DualSPHysics
// builds the case, so that the particle counts equal DualSPHysics's at its dp.
// Per size: warm-up steps, then timed steps without profiling (wall time with a device sync
// per step), the same number with per-phase device timing, and then --output-frames frames
// written every --output-every steps through run::FrameOutput (as sph-step writes them:
// captured on the device, copied and compressed while the solver steps on) into a stream file
// in --output-dir: its cost is that run's time per step, until the last frame is written, over
// the step time of the first run. Two frames in flight hide a slow writer for two frames, so
// the run is long enough (20 frames by default) to show the writer's steady pace.
//
//   bench_sph --device cuda --sizes 1e6,4e6,16e6 --steps 50 --json sph.jsonl
//   bench_sph --device cuda --configs dualsphysics --dx 0.0045,0.0028,0.00205   (the default dp)
//   bench_sph --device cuda --configs dualsphysics --dx 0.0045 --boundary dbc,mdbc   (mDBC's cost)
// --boundary runs each size once per boundary scheme (sph-step --boundary), on the same walls.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "step_timing.hpp"
#include "werner_scheme.hpp"
#include "base/log.hpp"
#include "core/timer.hpp"
#include "partikel_config.hpp"
#include "formats/reader.hpp"
#include "base/io.hpp"
#include "core/staged_copy.hpp"
#include "run/frame_output.hpp"
#include "sph/io/scenes.hpp"
#include "sph/io/simulation.hpp"

using namespace partikel;

namespace {

// `size` > 1: about that many particles; otherwise the particle spacing dx in m.
sph::Scene scene_for(double size, bool dualsphysics) {
    sph::SceneOptions o;
    o.dx_m = size > 1.0 ? 0.02f : float(size);
    o.boundary_layers = 1;  // DualSPHysics's layout: its particle counts at its dp
    // Fluid scales as dx^-3, walls as dx^-2: rescale dx from a coarse instance twice.
    for (int pass = 0; size > 1.0 && pass < 2; ++pass) {
        const double n = double(sph::make_scene("dam-break-obstacle", o).particles.size());
        o.dx_m = float(o.dx_m * std::cbrt(n / size));
    }
    sph::Scene s = sph::make_scene("dam-break-obstacle", o);
    if (!dualsphysics) bench::use_werner_scheme(s.params);
    return s;
}

// What bounds the output of one frame, measured on the current state: the device -> host copy
// (staging and PCIe), building the frame on the host, encoding and writing it (compression on
// every core, into the output directory), and the raw write rate of tmpfs and of a disk.
struct OutputBounds {
    double raw_bytes = 0, copy_s = 0, build_s = 0, encode_s = 0, tmpfs_write_gb_s = 0, disk_write_gb_s = 0;
};

double raw_write_gb_s(const std::filesystem::path& dir, std::size_t bytes) {
    std::vector<unsigned char> data(bytes);
    for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(i * 2654435761u >> 24);
    const auto path = dir / "bench_sph_raw_write.bin";
    Stopwatch clock;
    {
        auto out = OutputStream::open(path.string());
        out->write(data.data(), data.size());
        out->commit();  // includes fsync: the bytes are on the device
    }
    const double s = clock.seconds();
    std::filesystem::remove(path);
    return double(bytes) / s / 1e9;
}

OutputBounds measure_output_bounds(sph::SphSimulation& simulation, const std::filesystem::path& dir,
                                   const std::string& disk_dir, int zstd_level) {
    OutputBounds b;
    StagedCopy staged(simulation.backend(), simulation.frame_buffer_capacity(), 1);
    const run::FrameCapture capture = simulation.frame_capture();
    for (const DeviceBytes& d : capture.buffers) b.raw_bytes += double(d.bytes);
    simulation.backend().synchronize();
    Stopwatch copy_clock;
    staged.capture(0, capture.buffers);
    const auto host = staged.wait(0);
    b.copy_s = copy_clock.seconds();
    Stopwatch build_clock;
    const fmt::Frame frame = simulation.build_frame(host, capture);
    b.build_s = build_clock.seconds();
    staged.release(0);
    const auto path = dir / "bench_sph_bound.pks";
    fmt::WriterOptions wo;
    wo.zstd_level = zstd_level;
    Stopwatch encode_clock;
    {
        auto writer = fmt::open_writer(path.string(), wo);
        writer->write(frame);
        writer->finish();
    }
    b.encode_s = encode_clock.seconds();
    std::filesystem::remove(path);
    b.tmpfs_write_gb_s = raw_write_gb_s(dir, std::size_t(b.raw_bytes));
    if (!disk_dir.empty()) b.disk_write_gb_s = raw_write_gb_s(disk_dir, std::size_t(b.raw_bytes));
    return b;
}

}  // namespace

int main(int argc, char** argv) {
    bench::BenchProgram tool("bench_sph", "Benchmark SPH steps by phase (dam break with obstacle)");
    std::vector<double> sizes = {1e6, 4e6, 16e6};
    std::vector<std::string> configs = {"default", "dualsphysics"};
    int steps = 50, warmup = 20, subdivision = -1, output_every = 10, output_frames = 20;
    // DualSPHysics 5.4's runs of this case on an H100 (issue 6): 1.04M, 4.04M, 10.1M particles.
    std::vector<double> spacings = {0.0045, 0.0028, 0.00205};
    tool.app().add_option("--sizes", sizes, "Approximate particle counts (default config)")->delimiter(',');
    tool.app()
        .add_option("--dx", spacings, "Particle spacings in m (dualsphysics config; DualSPHysics's dp)")
        ->delimiter(',');
    tool.app().add_option("--configs", configs, "default and/or dualsphysics")->delimiter(',');
    std::vector<std::string> boundaries = {"dbc"};
    tool.app().add_option("--boundary", boundaries, "Boundary schemes to run: dbc and/or mdbc")->delimiter(',');
    tool.app().add_option("--steps", steps, "Timed steps");
    tool.app().add_option("--warmup", warmup, "Untimed steps first");
    tool.app().add_option("--subdivision", subdivision, "Grid cells of edge 2h / 2^k (-1: the solver's default)");
    std::string output_dir_name =
        std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path().string();
    tool.app().add_option("--output-dir", output_dir_name,
                          "Where the output run writes its frames (tmpfs such as /dev/shm: no disk in the way)")
        ->capture_default_str();
    tool.app().add_option("--output-every", output_every, "Output run: a frame every N steps (0: no output run)")
        ->capture_default_str();
    tool.app()
        .add_option("--output-frames", output_frames, "Output run: this many frames (its length: frames x N steps)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    int zstd_level = run::kFrameZstdLevel;  // as the simulating programs write frames
    tool.app().add_option("--zstd-level", zstd_level, "The output run's compression level (negative: faster)")
        ->capture_default_str();
    std::string disk_dir;
    tool.app().add_option("--disk-dir", disk_dir, "Also measure the raw write rate of this directory (a real disk)");
    return tool.run(argc, argv, [&]() {
        Backend b = tool.open_backend();
        const std::filesystem::path output_dir(output_dir_name);
        std::ofstream json;
        if (!tool.json_path().empty()) json.open(tool.json_path(), std::ios::app);
        std::printf("# %s, commit %s\n", b.describe().c_str(), PARTIKEL_GIT_COMMIT);
        for (const std::string& config : configs) {
            for (double target : config == "dualsphysics" ? spacings : sizes)
            for (const std::string& boundary : boundaries) {
                sph::Scene scene = scene_for(target, config == "dualsphysics");
                scene.params.boundary = sph::parse_boundary(boundary, "--boundary");
                const std::size_t n = scene.particles.size();
                sph::SphSimulation simulation(b, {scene.params, scene.particles, {}, 0, 0.0},
                                              {.grid_subdivision = subdivision});
                sph::Solver& solver = simulation.solver();
                const double step_s = bench::mean_step_seconds(b, solver, warmup, steps);
                sph::Solver profiled(b, scene.params, solver.download(), solver.step_count(), solver.time(),
                                     {.profile = true, .grid_subdivision = subdivision}, solver.download_previous());
                for (int i = 0; i < steps; ++i) profiled.step();
                std::printf("\n%s, %s walls: %zu particles, dx %.5g m: %.3f ms/step, %.1f M particle-steps/s, %.0f B/particle\n",
                            config.c_str(), boundary.c_str(), n, scene.params.dx_m, 1e3 * step_s, n / step_s / 1e6,
                            double(solver.device_bytes()) / double(n));
                std::printf("%s", profiled.profile().report().c_str());
                double output_step_s = 0.0, frame_bytes = 0.0, writer_wait_s = 0.0;
                OutputBounds bounds;
                const int frames = output_every > 0 ? output_frames : 0;
                if (frames > 0) {
                    // The unprofiled solver goes on, so that only the output differs from the first
                    // run; frames go through run::FrameOutput exactly as sph-step writes them.
                    const auto path = output_dir / "bench_sph_frames.pks";
                    fmt::WriterOptions wo;
                    wo.zstd_level = zstd_level;
                    auto writer = fmt::open_writer(path.string(), wo);
                    std::size_t staging_bytes = 0;
                    {
                        run::FrameOutput output(simulation, *writer, run::make_provenance("bench_sph", "", b.describe()));
                        staging_bytes = output.device_bytes();
                        b.synchronize();
                        Stopwatch output_clock;
                        for (int i = 0; i < frames * output_every; ++i) {
                            solver.step();
                            if ((i + 1) % output_every == 0) writer_wait_s += output.write();
                        }
                        output.finish();  // the last frames' writing is part of the cost
                        output_step_s = output_clock.seconds() / (frames * output_every);
                    }
                    writer->finish();
                    frame_bytes = double(std::filesystem::file_size(path)) / double(frames);
                    std::filesystem::remove(path);
                    std::printf("output, %d frames every %d steps into %s (zstd %d): %.3f ms/step (%+.1f%% over none), "
                                "%.1f MB per frame (%.1f B/particle), %.1f MB staging on the device, the steps waited %.3f "
                                "s for the writer\n",
                                frames, output_every, output_dir_name.c_str(), zstd_level, 1e3 * output_step_s, 100.0 * (output_step_s / step_s - 1.0),
                                frame_bytes / 1e6, frame_bytes / double(n), double(staging_bytes) / 1e6, writer_wait_s);
                    bounds = measure_output_bounds(simulation, output_dir, disk_dir, zstd_level);
                    std::printf("output bounds per frame of %.1f MB raw: device->host %.1f ms (%.1f GB/s), build %.1f ms, "
                                "encode+write %.1f ms (%.2f GB/s of raw bytes), raw write %.1f GB/s%s; the writer's "
                                "limit (the slower of building and encoding, which overlap) %.1f ms per frame against "
                                "%.1f ms of %d steps\n",
                                bounds.raw_bytes / 1e6, 1e3 * bounds.copy_s, bounds.raw_bytes / bounds.copy_s / 1e9,
                                1e3 * bounds.build_s, 1e3 * bounds.encode_s, bounds.raw_bytes / bounds.encode_s / 1e9,
                                bounds.tmpfs_write_gb_s,
                                bounds.disk_write_gb_s > 0
                                    ? (", disk write " + std::to_string(bounds.disk_write_gb_s).substr(0, 5) + " GB/s").c_str()
                                    : "",
                                1e3 * std::max(bounds.build_s, bounds.encode_s), 1e3 * step_s * output_every,
                                output_every);
                }
                if (json)
                    json << "{\"bench\":\"sph\",\"config\":\"" << config << "\",\"boundary\":\"" << boundary
                         << "\",\"subdivision\":" << subdivision
                         << ",\"particles\":" << n << ",\"dx_m\":" << scene.params.dx_m
                         << ",\"step_seconds\":" << step_s << ",\"particle_steps_per_s\":" << n / step_s
                         << ",\"bytes_per_particle\":" << double(solver.device_bytes()) / double(n)
                         << ",\"phases\":" << profiled.profile().report_json()
                         << ",\"output_every\":" << output_every << ",\"output_step_seconds\":" << output_step_s
                         << ",\"frame_bytes\":" << frame_bytes << ",\"writer_wait_seconds\":" << writer_wait_s
                         << ",\"zstd_level\":" << zstd_level << ",\"bounds\":{\"raw_bytes\":" << bounds.raw_bytes
                         << ",\"copy_s\":" << bounds.copy_s << ",\"build_s\":" << bounds.build_s
                         << ",\"encode_write_s\":" << bounds.encode_s << ",\"tmpfs_write_gb_s\":"
                         << bounds.tmpfs_write_gb_s << ",\"disk_write_gb_s\":" << bounds.disk_write_gb_s << "}"
                         << ",\"device\":" << json_quote(b.describe()) << ",\"commit\":\"" << PARTIKEL_GIT_COMMIT
                         << "\"}\n";
            }
        }
        return 0;
    });
}
