// sph-step's step across ranks (run under mpirun, one rank per GPU): time per step and its
// split, for strong scaling (the same particles on 1, 2, 4 ranks), weak scaling (--per-rank:
// the particles grow with the ranks) and load balancing (the dam break, whose water runs along
// the slab axis).
//
//   mpirun -np 4 bench_dist --case inclined-plane --sizes 16e6,64e6 --steps 50 --json dist.jsonl
//   mpirun -np 4 bench_dist --case inclined-plane --per-rank 16e6 --json dist.jsonl
//   mpirun -np 4 bench_dist --case dam-break-obstacle --sizes 16e6 --start-slabs even
//                           --balance-every 0,10 --steps 400 --json dist.jsonl   (one line)
//   mpirun -np 4 bench_dist --case inclined-plane --sizes 16e6 --halo-overlap on,off
//
// Cases (WCSPH, Werner 2015's default scheme: Wendland C2, h = 1.5 dx, midpoint, Shepard every
// 30 steps): `inclined-plane` (sph-init's: water on a plane rising along z, the slab axis; 8 m^3
// of water, so dx = cbrt(8 / N)) and `dam-break-obstacle` (DualSPHysics's 3D dam break; the slab
// axis is x, along which the water runs).
//
// Per size and balancing setting: warm-up steps, then --steps steps timed on every rank (wall
// time, the slowest rank's), then as many with per-phase device timing on a copy of the state:
//   compute    the phases that wait for no other rank, mean over the ranks
//   halo       the halo phases (plans, exchanges, ghost grids), the least of any rank: the
//              transfer itself, without waiting for a slower rank (the synchronised split
//              builds the halo first, overlap or not: each phase's own cost; the timeline's
//              halo with --halo-overlap on, the default, is what the interior rows left exposed)
//   migration  the same for migration
//   imbalance  the slowest rank's compute less the mean: what the others wait
// then, with --output-every N, a run writing a frame every N steps through run::FrameOutput
// (gathered on rank 0, written to --output-dir): its cost per step over the run without.
// Beside each figure, the bound of the bytes sent: the most any rank sent per step (halo records
// and migrating rows) at --link-gb-s (NVLink 4 on an H100 SXM: 450 GB/s each way per GPU), and
// the imbalance the balancing reached (the diagnostics' max/mean compute time).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "werner_scheme.hpp"
#include "base/error.hpp"
#include "core/host_waits.hpp"
#include "core/timer.hpp"
#include "dist/communicator.hpp"
#include "formats/reader.hpp"
#include "partikel_config.hpp"
#include "run/frame_output.hpp"
#include "run/run_loop.hpp"
#include "sph/io/scenes.hpp"
#include "sph/io/simulation.hpp"

using namespace partikel;

namespace {

// About `particles` particles of the case (rank 0 only: the scatter sends each rank its share).
sph::Scene make_case(const std::string& name, double particles) {
    sph::SceneOptions o;
    if (name == "inclined-plane") {
        o.dx_m = float(std::cbrt(8.0 / particles));
    } else if (name == "dam-break-obstacle") {
        o.dx_m = 0.02f;
        o.boundary_layers = 1;
        for (int pass = 0; pass < 2; ++pass) {
            const double n = double(sph::make_scene(name, o).particles.size());
            o.dx_m = float(o.dx_m * std::cbrt(n / particles));
        }
    } else {
        throw UsageError("--case must be inclined-plane or dam-break-obstacle, got " + name);
    }
    sph::Scene s = sph::make_scene(name, o);
    bench::use_werner_scheme(s.params);
    return s;
}

struct Split {
    double compute = 0, halo = 0, migration = 0, other = 0;  // s per step on this rank
    std::string phases;  // every phase's ms per step on this rank, for the log
};

// The phases that wait for other ranks (an all-reduce inside) are not compute: a faster rank
// waits there for the slowest.
// `before`: the entries at the start of the timed steps (subtracted).
Split split_of(const PhaseProfile& profile, int steps, const std::vector<PhaseProfile::Entry>& before) {
    Split s;
    for (const auto& e : profile.entries()) {
        double earlier = 0.0;
        for (const auto& b : before)
            if (b.name == e.name) earlier = b.total_seconds;
        const double per_step = (e.total_seconds - earlier) / steps;
        if (e.name == "halo" || e.name == "ghost grids") s.halo += per_step;
        else if (e.name == "migrate") s.migration += per_step;
        else if (e.name == "balance" || e.name == "dt reduce" || e.name == "check") s.other += per_step;
        else s.compute += per_step;
        char item[96];
        std::snprintf(item, sizeof item, "%s%s %.3f", s.phases.empty() ? "" : ", ", e.name.c_str(), 1e3 * per_step);
        s.phases += item;
    }
    return s;
}

std::string json_quote(const std::string& text) {
    std::string out = "\"";
    for (char c : text) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
    bench::BenchProgram tool("bench_dist", "SPH steps across ranks: scaling, halo, migration, balancing");
    std::string case_name = "inclined-plane";
    std::vector<double> sizes{16e6};
    double per_rank = 0.0;
    std::vector<int> balance_every{10};
    std::vector<std::string> halo_overlap{"on"};
    std::string start_slabs = "count";
    int steps = 50, warmup = 10, output_every = 0;
    double capacity = 2.0, link_gb_s = 450.0;
    tool.app().add_option("--case", case_name, "inclined-plane or dam-break-obstacle")->capture_default_str();
    tool.app().add_option("--sizes", sizes, "Particle counts of the whole run (strong scaling)")->delimiter(',');
    tool.app().add_option("--per-rank", per_rank, "Particles per rank instead (weak scaling)");
    tool.app().add_option("--balance-every", balance_every, "Steps between border moves (0: fixed), each a run")
        ->delimiter(',');
    tool.app().add_option("--halo-overlap", halo_overlap, "on, off or both (each a run): interior rows while the halo travels")
        ->delimiter(',')
        ->check(CLI::IsMember({"on", "off"}));
    tool.app().add_option("--start-slabs", start_slabs, "count (equal particles) or even (equal widths)")
        ->check(CLI::IsMember({"count", "even"}))
        ->capture_default_str();
    tool.app().add_option("--steps", steps, "Timed steps")->check(CLI::PositiveNumber)->capture_default_str();
    tool.app().add_option("--warmup", warmup, "Untimed steps first")->capture_default_str();
    tool.app().add_option("--rank-capacity", capacity, "Rows per rank as a multiple of an even share")
        ->capture_default_str();
    tool.app().add_option("--output-every", output_every, "Output run: a frame every N steps (0: none)")
        ->capture_default_str();
    std::string output_dir =
        std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path().string();
    tool.app().add_option("--output-dir", output_dir, "Where the output run's frames go")->capture_default_str();
    tool.app().add_option("--link-gb-s", link_gb_s, "GB/s each way per GPU for the bound")->capture_default_str();
    return tool.run(argc, argv, [&]() {
        dist::Communicator ranks = dist::Communicator::world();
        const Backend backend = tool.open_backend(ranks.local_rank(), ranks.local_size());
        std::ofstream json;
        if (ranks.root() && !tool.json_path().empty()) json.open(tool.json_path(), std::ios::app);
        if (ranks.root()) std::printf("# %s on %s, commit %s\n", ranks.describe().c_str(), backend.describe().c_str(), PARTIKEL_GIT_COMMIT);
        const std::vector<double> targets = per_rank > 0.0 ? std::vector<double>{per_rank * ranks.size()} : sizes;
        // Each run: a balancing interval and an overlap setting.
        std::vector<std::pair<int, bool>> settings;
        for (const int every : balance_every)
            for (const std::string& overlap : halo_overlap) settings.push_back({every, overlap == "on"});
        for (const double target : targets) {
            const sph::RankStart start = sph::scatter_start(
                ranks,
                [&] {
                    sph::Scene s = make_case(case_name, target);
                    return sph::SimulationFrame{s.params, std::move(s.particles), {}, 0, 0.0};
                },
                start_slabs == "even" ? sph::StartSlabs::equal_widths : sph::StartSlabs::equal_counts);
            for (const auto& [every, overlap] : settings) {
                sph::RankOptions options{ranks, start.slabs, capacity, every, overlap};
                sph::SphSimulation simulation(backend, start.frame, {}, options);
                sph::Solver& solver = simulation.solver();
                const std::size_t n = solver.global_size();
                for (int i = 0; i < warmup; ++i) solver.step();
                backend.synchronize();
                ranks.barrier();
                const std::uint64_t bytes0 = solver.bytes_sent(), migrated0 = solver.migrated_rows();
                const dist::Communicator::CallCounts calls0 = ranks.call_counts();
                const std::uint64_t waits0 = host_wait_count();
                Stopwatch clock;
                for (int i = 0; i < steps; ++i) solver.step();
                // Per step on this rank: collectives, exchanges, host waits (the last synchronize
                // not counted).
                const dist::Communicator::CallCounts calls1 = ranks.call_counts();
                const double waits_per_step = double(host_wait_count() - waits0) / steps;
                const double collectives_per_step = double(calls1.collectives - calls0.collectives) / steps;
                const double exchanges_per_step = double(calls1.exchanges - calls0.exchanges) / steps;
                backend.synchronize();
                const double step_s = ranks.allreduce(clock.seconds() / steps, dist::ReduceOp::max);
                const double bytes_per_step =
                    ranks.allreduce(double(solver.bytes_sent() - bytes0) / steps, dist::ReduceOp::max);
                const double migrated_per_step =
                    ranks.allreduce(double(solver.migrated_rows() - migrated0) / steps, dist::ReduceOp::sum);
                const double ghosts = ranks.allreduce(double(solver.ghosts()), dist::ReduceOp::max);
                const double waits_max = ranks.allreduce(waits_per_step, dist::ReduceOp::max);
                const sph::Diagnostics diagnostics = solver.diagnostics();
                // The split, on profiled copies of the state: each phase waited for (its own
                // work), then a timeline (where the step's wall time goes, waits included).
                const auto profile_copy = [&](PhaseProfile::Timing timing) {
                    sph::RankOptions same{ranks, solver.slabs(), capacity, every, overlap};
                    sph::Solver profiled(backend, start.frame.params, solver.download(), solver.step_count(),
                                         solver.time(), {.profile = true, .profile_timing = timing},
                                         solver.download_previous(), same);
                    // Untimed: a new solver's first steps open NCCL's connections to its peers
                    // (tens of ms on 4 GPUs) and touch fresh memory.
                    for (int i = 0; i < 3; ++i) profiled.step();
                    profiled.profile().flush();
                    const std::vector<PhaseProfile::Entry> before = profiled.profile().entries();
                    for (int i = 0; i < steps; ++i) profiled.step();
                    profiled.profile().flush();
                    return split_of(profiled.profile(), steps, before);
                };
                const Split split = profile_copy(PhaseProfile::Timing::synchronised);
                const Split timeline = profile_copy(PhaseProfile::Timing::timeline);
                const auto computes = ranks.allgather(split.compute);
                double compute_mean = 0.0, compute_max = 0.0;
                for (const double c : computes) {
                    compute_mean += c / double(computes.size());
                    compute_max = std::max(compute_max, c);
                }
                const double halo = ranks.allreduce(split.halo, dist::ReduceOp::min);
                const auto phases = ranks.allgatherv(std::as_bytes(std::span<const char>(split.phases)));
                const auto timelines = ranks.allgatherv(std::as_bytes(std::span<const char>(timeline.phases)));
                const double migration = ranks.allreduce(split.migration, dist::ReduceOp::min);
                // Output: frames through run::FrameOutput (gathered on rank 0), as sph-step writes them.
                double output_s = 0.0;
                run::FrameOutput::StageSeconds stages;  // rank 0's, per frame
                std::string gather_path;
                if (output_every > 0) {
                    const auto path = std::filesystem::path(output_dir) / "bench_dist_frames.pks";
                    fmt::WriterOptions writer_options;
                    writer_options.zstd_level = run::kFrameZstdLevel;
                    auto writer = run::open_frame_writer(ranks, path.string(), writer_options);
                    {
                        run::FrameOutput output(simulation, *writer, run::make_provenance("bench_dist", "", backend.describe()));
                        ranks.barrier();
                        Stopwatch output_clock;
                        for (int i = 0; i < 4 * output_every; ++i) {
                            solver.step();
                            if ((i + 1) % output_every == 0) output.write();
                        }
                        output.finish();
                        output_s = ranks.allreduce(output_clock.seconds() / (4 * output_every), dist::ReduceOp::max) - step_s;
                        stages = output.stage_seconds();
                        gather_path = output.gather_path();
                        const double frames = double(output.frames());
                        for (double* stage : {&stages.copy, &stages.gather, &stages.build, &stages.write}) *stage /= frames;
                    }
                    writer->finish();
                    if (ranks.root()) std::filesystem::remove(path);
                }
                if (!ranks.root()) continue;
                const double bound_s = bytes_per_step / (link_gb_s * 1e9);
                std::printf("\n%s, %zu particles (dx %.4g m), %d ranks (%s), balance every %d, %s slabs, halo overlap "
                            "%s: %.3f ms/step (%.1f M particle-steps/s)\n",
                            case_name.c_str(), n, start.frame.params.dx_m, ranks.size(),
                            std::string(ranks.transport()).c_str(), every, start_slabs.c_str(), overlap ? "on" : "off",
                            1e3 * step_s,
                            double(n) / step_s / 1e6);
                std::printf("  profiled: compute %.3f ms (mean; slowest %.3f), halo %.3f ms, migration %.3f ms, "
                            "imbalance %.3f ms, reductions and balancing %.3f ms; output %+.3f ms/step\n",
                            1e3 * compute_mean, 1e3 * compute_max, 1e3 * halo, 1e3 * migration,
                            1e3 * (compute_max - compute_mean), 1e3 * split.other, 1e3 * output_s);
                for (std::size_t q = 0; q < phases.size(); ++q)
                    std::printf("  rank %zu phases, ms/step (synchronised per phase): %.*s\n", q,
                                int(phases[q].size()), reinterpret_cast<const char*>(phases[q].data()));
                for (std::size_t q = 0; q < timelines.size(); ++q)
                    std::printf("  rank %zu timeline, ms/step (the device's wall time by phase): %.*s\n", q,
                                int(timelines[q].size()), reinterpret_cast<const char*>(timelines[q].data()));
                std::printf("  per step: %.2f collectives, %.2f exchanges, host waits up to %.2f (rank 0: %.2f)\n",
                            collectives_per_step, exchanges_per_step, waits_max, waits_per_step);
                if (output_every > 0)
                    std::printf("  output stages on rank 0, per frame: device copy wait %.1f ms, gather %.1f ms (%s), "
                                "build %.1f ms, compress and write %.1f ms\n",
                                1e3 * stages.copy, 1e3 * stages.gather, gather_path.c_str(), 1e3 * stages.build,
                                1e3 * stages.write);
                std::printf("  sent %.2f MB/step (most of any rank), bound %.3f ms at %.0f GB/s; ghosts up to %.0f; "
                            "%.0f rows migrated per step; imbalance (max/mean compute) %.3f\n",
                            bytes_per_step / 1e6, 1e3 * bound_s, link_gb_s, ghosts, migrated_per_step,
                            diagnostics.imbalance);
                if (json)
                    json << "{\"bench\":\"dist\",\"case\":" << json_quote(case_name) << ",\"particles\":" << n
                         << ",\"ranks\":" << ranks.size() << ",\"transport\":" << json_quote(std::string(ranks.transport()))
                         << ",\"per_rank\":" << (per_rank > 0.0 ? "true" : "false") << ",\"balance_every\":" << every
                         << ",\"halo_overlap\":" << (overlap ? "true" : "false")
                         << ",\"start_slabs\":" << json_quote(start_slabs) << ",\"step_seconds\":" << step_s
                         << ",\"compute_seconds\":" << compute_mean << ",\"compute_max_seconds\":" << compute_max
                         << ",\"halo_seconds\":" << halo << ",\"migration_seconds\":" << migration
                         << ",\"imbalance_seconds\":" << compute_max - compute_mean
                         << ",\"balance_seconds\":" << split.other << ",\"output_seconds\":" << output_s
                         << ",\"output_stage_seconds\":{\"copy\":" << stages.copy << ",\"gather\":" << stages.gather
                         << ",\"build\":" << stages.build << ",\"write\":" << stages.write
                         << "},\"output_gather_path\":" << json_quote(gather_path)
                         << ",\"bytes_per_step\":" << bytes_per_step << ",\"bound_seconds\":" << bound_s
                         << ",\"ghosts\":" << ghosts << ",\"migrated_per_step\":" << migrated_per_step
                         << ",\"collectives_per_step\":" << collectives_per_step
                         << ",\"exchanges_per_step\":" << exchanges_per_step << ",\"host_waits_per_step\":" << waits_max
                         << ",\"imbalance\":" << diagnostics.imbalance << ",\"device\":" << json_quote(backend.describe())
                         << ",\"commit\":\"" << PARTIKEL_GIT_COMMIT << "\"}\n";
            }
        }
        return 0;
    });
}
