// Gravitational N-body on Plummer spheres (docs/NBODY.md, "Benchmark"):
//   direct  interactions per second of the tiled direct sum (acceleration only, fp32) at
//           --direct-sizes, against the issue bound: SMs x 4 schedulers x 32 lanes x clock /
//           instructions per interaction (--instructions, counted in the inner loop's SASS);
//   tree    time per step (unprofiled, a device synchronisation per step) and per phase (box,
//           keys, sort, reorder, build, multipoles, traversal, integration) at --tree-sizes and
//           --thetas, with quadrupoles, and the measured force error (median, 90th, 99th
//           percentile against a double-precision direct sum on --error-samples bodies) and the
//           interactions per body beside each time;
//   hybrid  the tree's step with the walk split between the GPU and the CPU threads (after
//           --hybrid-settle steps for the split to settle) against the GPU alone (CUDA only);
//   theta   the force error and walk time against theta = 0.3 .. 1.0, quadrupole and
//           monopole, at --table-size bodies.
//   ranks   under mpirun, one rank per GPU (docs/NBODY.md, "Across GPUs"): the tree's step at
//           --rank-tree-sizes (theta --thetas' first, quadrupoles) and the direct sum's at
//           --rank-direct-sizes, each rank starting from an even share of a Plummer sphere;
//           time per step (the slowest rank's wall time), interactions per second, the walk's
//           imbalance, the bytes each rank receives per step and their time at --link-gb-s,
//           and rank 0's phases. Run it at 1, 2 and 4 ranks for strong scaling
//           (scripts/multi-gpu-check.sh --parts nbody makes the table).
//
//   bench_nbody --device cuda --json nbody.jsonl
//   bench_nbody --device cuda --sections tree --tree-sizes 16e6 --thetas 0.5
//   mpirun -np 4 bench_nbody --device cuda --sections ranks --rank-tree-sizes 16.8e6,64e6 --json nbody.jsonl
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "core/buffer.hpp"
#include "core/dispatch.hpp"
#include "core/timer.hpp"
#include "dist/communicator.hpp"
#include "nbody/direct.hpp"
#include "nbody/initial_conditions.hpp"
#include "nbody/solver.hpp"
#include "partikel_config.hpp"

using namespace partikel;
using namespace partikel::nbody;

namespace {

struct Settings {
    std::vector<double> direct_sizes = {65536, 131072, 262144, 524288, 1048576};
    std::vector<double> tree_sizes = {1048576, 4194304, 16777216};
    std::vector<double> thetas = {0.5, 0.75};
    std::vector<std::string> sections = {"direct", "tree", "hybrid", "theta"};
    double table_size = 1048576;
    int steps = 5;
    int warmup = 2;
    int hybrid_settle = 10;
    int error_samples = 1000;
    std::vector<double> rank_tree_sizes = {16777216, 67108864};
    std::vector<double> rank_direct_sizes = {1048576};
    double link_gb_s = 450.0;  // NVLink 4 on an H100/H200 SXM, each way per GPU
    double clock_ghz = 1.98;  // H100 / H200 SXM boost clock
    double instructions = 13.69;  // per interaction, the direct sum's inner loop (docs/NBODY.md)
};

bool wants(const Settings& s, const char* section) {
    for (const auto& name : s.sections)
        if (name == section) return true;
    return false;
}

std::string json_string(const std::string& s) { return "\"" + s + "\""; }

class JsonLines {
public:
    JsonLines(const std::string& path, const Backend& b) : device_(b.describe()) {
        if (!path.empty()) out_.open(path, std::ios::app);
    }
    void write(const std::string& fields) {
        if (!out_.is_open()) return;
        out_ << "{\"bench\":\"nbody\",\"commit\":" << json_string(PARTIKEL_GIT_COMMIT)
             << ",\"device\":" << json_string(device_) << "," << fields << "}\n";
        out_.flush();
    }

private:
    std::string device_;
    std::ofstream out_;
};

std::string number(const char* key, double v) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "\"%s\":%.6g", key, v);
    return buf;
}

int multiprocessors(const Backend& b) {
    if (!b.is_cuda()) return 0;
    for (const auto& d : cuda_devices())
        if (d.index == b.device_index()) return d.multiprocessors;
    return 0;
}

void direct_section(const Backend& b, const Settings& s, JsonLines& json) {
    const int sms = multiprocessors(b);
    const double bound = sms > 0 ? sms * 4.0 * 32.0 * s.clock_ghz * 1e9 / s.instructions : 0.0;
    std::printf("\ndirect sum, fp32, acceleration only");
    if (bound > 0)
        std::printf(" (issue bound %.0f billion/s: %d SMs x 128 lanes x %.2f GHz / %.2f instructions)", bound / 1e9,
                    sms, s.clock_ghz, s.instructions);
    std::printf("\n%10s %12s %16s %10s\n", "N", "ms", "billion int/s", "of bound");
    for (double size : s.direct_sizes) {
        const auto n = static_cast<std::size_t>(size);
        const Model m = plummer({.n = n, .seed = 1});
        std::vector<Vec4f> packed(n);
        for (std::size_t i = 0; i < n; ++i) {
            const Vec3d x = m.bodies.position[i];
            packed[i] = Vec4f{float(x.x), float(x.y), float(x.z), float(m.bodies.mass[i])};
        }
        DeviceBuffer<Vec4f> bodies(b, n), out(b, n);
        bodies.copy_from_host(packed);
        DeviceBuffer<Vec4f> partial;
        with_exec(b, [&](const auto& e) {
            const std::size_t cap = direct_partial_capacity(e, n);
            if (cap) partial = DeviceBuffer<Vec4f>(b, cap);
        });
        DirectSum d;
        d.targets = bodies.data();
        d.target_count = n;
        d.sources = bodies.data();
        d.source_count = n;
        d.softening = m.params.softening;
        d.out = out.data();
        d.partial = partial.empty() ? nullptr : partial.data();
        const double t = median_device_seconds(b, s.steps, [&] { with_exec(b, [&](const auto& e) { direct_forces(e, d); }); });
        const double rate = double(n) * double(n) / t;
        std::printf("%10zu %12.3f %16.1f %9.0f%%\n", n, 1e3 * t, rate / 1e9, bound > 0 ? 100.0 * rate / bound : 0.0);
        json.write("\"kind\":\"direct\"," + number("n", double(n)) + "," + number("seconds", t) + "," +
                   number("interactions_per_s", rate) + "," + number("issue_bound_per_s", bound));
    }
}

struct TreeRun {
    double step_s = 0;
    ForceErrorStats error;
    Interactions interactions;
    std::string phases_text, phases_json;
    HybridStatus hybrid;
};

TreeRun run_tree(const Backend& b, const Model& m, NbodyParams p, const Settings& s, bool profile_phases, int settle) {
    TreeRun r;
    {
        Solver solver(b, p, m.bodies);
        for (int i = 0; i < s.warmup + settle; ++i) solver.step();
        b.synchronize();
        Stopwatch clock;
        for (int i = 0; i < s.steps; ++i) solver.step();
        b.synchronize();
        r.step_s = clock.seconds() / s.steps;
        r.interactions = solver.last_interactions();
        r.error = solver.force_error(std::size_t(s.error_samples), 7);
        r.hybrid = solver.hybrid_status();
    }
    if (profile_phases) {
        Solver profiled(b, p, m.bodies, 0, 0.0, {.profile = true});
        for (int i = 0; i < s.steps; ++i) profiled.step();
        r.phases_text = profiled.profile().report();
        r.phases_json = profiled.profile().report_json();
    }
    return r;
}

void tree_section(const Backend& b, const Settings& s, JsonLines& json, bool hybrid) {
    for (double size : s.tree_sizes) {
        const auto n = static_cast<std::size_t>(size);
        const Model m = plummer({.n = n, .seed = 1});
        for (double theta : s.thetas) {
            NbodyParams p = m.params;
            p.theta = float(theta);
            p.method = ForceMethod::tree;
            const TreeRun t = run_tree(b, m, p, s, true, 0);
            const double per_body = double(t.interactions.total()) / double(n);
            std::printf("\ntree, %zu Plummer bodies, theta %.2f, quadrupoles: %.2f ms/step, %.0f interactions/body "
                        "(%.0f cells, %.0f bodies), force error median %.2e p90 %.2e p99 %.2e\n%s",
                        n, theta, 1e3 * t.step_s, per_body, double(t.interactions.cells) / n,
                        double(t.interactions.bodies) / n, t.error.median, t.error.p90, t.error.p99,
                        t.phases_text.c_str());
            json.write("\"kind\":\"tree\"," + number("n", double(n)) + "," + number("theta", theta) + "," +
                       number("step_s", t.step_s) + "," + number("cells_per_body", double(t.interactions.cells) / n) +
                       "," + number("bodies_per_body", double(t.interactions.bodies) / n) + "," +
                       number("median_error", t.error.median) + "," + number("p90_error", t.error.p90) + "," +
                       number("p99_error", t.error.p99) + ",\"phases\":" + t.phases_json);
            if (!hybrid) continue;
            p.method = ForceMethod::hybrid;
            const TreeRun h = run_tree(b, m, p, s, false, s.hybrid_settle);
            std::printf("hybrid: %.2f ms/step (GPU alone %.2f): CPU share %.3f (%u of %u groups on %d threads), "
                        "t_CPU %.2f ms, t_GPU %.2f ms, force error median %.2e\n",
                        1e3 * h.step_s, 1e3 * t.step_s, h.hybrid.cpu_share, h.hybrid.cpu_groups, h.hybrid.groups,
                        h.hybrid.cpu_threads, 1e3 * h.hybrid.cpu_seconds, 1e3 * h.hybrid.gpu_seconds, h.error.median);
            json.write("\"kind\":\"hybrid\"," + number("n", double(n)) + "," + number("theta", theta) + "," +
                       number("step_s", h.step_s) + "," + number("gpu_only_step_s", t.step_s) + "," +
                       number("cpu_share", h.hybrid.cpu_share) + "," + number("cpu_threads", h.hybrid.cpu_threads) +
                       "," + number("cpu_s", h.hybrid.cpu_seconds) + "," + number("gpu_s", h.hybrid.gpu_seconds) + "," +
                       number("median_error", h.error.median));
        }
    }
}

void theta_section(const Backend& b, const Settings& s, JsonLines& json) {
    const auto n = static_cast<std::size_t>(s.table_size);
    const Model m = plummer({.n = n, .seed = 1});
    std::printf("\nforce error against theta, %zu Plummer bodies (%d samples)\n", n, s.error_samples);
    std::printf("%6s %6s %12s %12s %12s %14s %10s\n", "theta", "cells", "median", "p90", "p99", "interact/body", "walk ms");
    for (bool quadrupole : {true, false}) {
        for (int k = 3; k <= 10; ++k) {
            NbodyParams p = m.params;
            p.theta = float(k) / 10.0f;
            p.quadrupole = quadrupole;
            Solver solver(b, p, m.bodies, 0, 0.0, {.profile = true});
            solver.step();
            double walk_s = 0;
            for (const auto& e : solver.profile().entries())
                if (e.name == "traversal") walk_s = e.total_seconds / double(e.calls);
            const ForceErrorStats e = solver.force_error(std::size_t(s.error_samples), 7);
            const double per_body = double(solver.last_interactions().total()) / double(n);
            std::printf("%6.1f %6s %12.3e %12.3e %12.3e %14.0f %10.2f\n", double(p.theta), quadrupole ? "quad" : "mono",
                        e.median, e.p90, e.p99, per_body, 1e3 * walk_s);
            json.write("\"kind\":\"theta\"," + number("n", double(n)) + "," + number("theta", double(p.theta)) +
                       ",\"quadrupole\":" + (quadrupole ? "true" : "false") + "," + number("median_error", e.median) +
                       "," + number("p90_error", e.p90) + "," + number("p99_error", e.p99) + "," +
                       number("interactions_per_body", per_body) + "," + number("walk_s", walk_s));
        }
    }
}

// One configuration across the ranks of `comm`: each rank starts from its even share (by
// index) of the same Plummer sphere; the solver moves bodies to their ranks in its first step.
void rank_run(const Backend& b, const dist::Communicator& comm, const Settings& s, JsonLines& json,
              ForceMethod method, std::size_t n) {
    const Model m = plummer({.n = n, .seed = 1});
    const std::size_t ranks = std::size_t(comm.size()), r = std::size_t(comm.rank());
    const std::size_t first = n * r / ranks, last = n * (r + 1) / ranks;
    Bodies share;
    share.resize(last - first);
    for (std::size_t i = first; i < last; ++i) {
        share.position[i - first] = m.bodies.position[i];
        share.velocity[i - first] = m.bodies.velocity[i];
        share.mass[i - first] = m.bodies.mass[i];
        share.id[i - first] = m.bodies.id[i];
    }
    NbodyParams p = m.params;
    p.method = method;
    p.theta = float(s.thetas.front());
    p.quadrupole = true;
    // The timed run, then one with rank 0's phases (a synchronisation per phase).
    double step_s = 0.0, imbalance = 0.0, migrated = 0.0;
    Interactions interactions;
    {
        Solver solver(b, p, share, 0, 0.0, {}, comm);
        for (int i = 0; i < s.warmup; ++i) solver.step();
        b.synchronize();
        comm.barrier();
        Stopwatch clock;
        for (int i = 0; i < s.steps; ++i) {
            solver.step();
            imbalance += solver.imbalance() / s.steps;
            migrated += double(solver.migrated()) / s.steps;
        }
        b.synchronize();
        step_s = comm.allreduce(clock.seconds() / s.steps, dist::ReduceOp::max);
        interactions = solver.last_interactions();
    }
    Solver profiled(b, p, share, 0, 0.0, {.profile = true}, comm);
    for (int i = 0; i < s.steps; ++i) profiled.step();
    const double rate = double(interactions.total()) / step_s;
    // Received per step and rank: the tree's gather of every other rank's bodies (x, m and key:
    // 24 bytes each) and the migration; the direct sum's ring (16 bytes per body of the others).
    const double received = method == ForceMethod::direct ? 16.0 * double(n) * double(ranks - 1) / double(ranks)
                                                          : 24.0 * double(n) * double(ranks - 1) / double(ranks) +
                                                                60.0 * migrated / double(ranks);
    const double bound_s = received / (s.link_gb_s * 1e9);
    if (comm.root()) {
        std::printf("\n%s, %zu Plummer bodies on %zu ranks (%s): %.2f ms/step, %.1f billion interactions/s, "
                    "walk imbalance %.3f, %.0f bodies migrated per step, %.1f MB received per rank and step "
                    "(%.2f ms at %.0f GB/s)\nrank 0's phases:\n%s",
                    method == ForceMethod::direct ? "direct" : "tree", n, ranks, std::string(comm.transport()).c_str(),
                    1e3 * step_s, rate / 1e9, imbalance, migrated, received / 1e6, 1e3 * bound_s, s.link_gb_s,
                    profiled.profile().report().c_str());
        json.write(std::string("\"kind\":\"ranks_") + (method == ForceMethod::direct ? "direct" : "tree") + "\"," +
                   number("n", double(n)) + "," + number("ranks", double(ranks)) + ",\"transport\":" +
                   json_string(std::string(comm.transport())) + "," + number("theta", double(p.theta)) + "," +
                   number("step_s", step_s) + "," + number("interactions_per_s", rate) + "," +
                   number("imbalance", imbalance) + "," + number("migrated", migrated) + "," +
                   number("received_bytes", received) + "," + number("bound_s", bound_s) +
                   ",\"phases\":" + profiled.profile().report_json());
    }
}

void ranks_section(const Backend& b, const dist::Communicator& comm, const Settings& s, JsonLines& json) {
    for (double size : s.rank_tree_sizes) rank_run(b, comm, s, json, ForceMethod::tree, std::size_t(size));
    for (double size : s.rank_direct_sizes) rank_run(b, comm, s, json, ForceMethod::direct, std::size_t(size));
}

}  // namespace

int main(int argc, char** argv) {
    bench::BenchProgram tool("bench_nbody", "Benchmark gravitational N-body: direct sum, tree by phase, hybrid, error against theta");
    Settings s;
    auto& app = tool.app();
    app.add_option("--sections", s.sections, "direct, tree, hybrid, theta; ranks (under mpirun)")->delimiter(',');
    app.add_option("--rank-tree-sizes", s.rank_tree_sizes, "ranks: bodies of the tree's steps")->delimiter(',');
    app.add_option("--rank-direct-sizes", s.rank_direct_sizes, "ranks: bodies of the direct sum's steps")->delimiter(',');
    app.add_option("--link-gb-s", s.link_gb_s, "ranks: the link's speed for the bound of the bytes received (GB/s)");
    app.add_option("--direct-sizes", s.direct_sizes, "Bodies of the direct sums")->delimiter(',');
    app.add_option("--tree-sizes", s.tree_sizes, "Bodies of the tree steps")->delimiter(',');
    app.add_option("--thetas", s.thetas, "Opening angles of the tree steps")->delimiter(',');
    app.add_option("--table-size", s.table_size, "Bodies of the error-against-theta table");
    app.add_option("--steps", s.steps, "Timed steps (direct: timed sums)");
    app.add_option("--warmup", s.warmup, "Untimed steps first");
    app.add_option("--hybrid-settle", s.hybrid_settle, "Hybrid steps before timing, for the split to settle");
    app.add_option("--error-samples", s.error_samples, "Bodies the force error is measured on");
    app.add_option("--clock-ghz", s.clock_ghz, "SM clock for the direct sum's issue bound (GHz)");
    app.add_option("--instructions", s.instructions, "Instructions per interaction in the direct sum's inner loop");
    return tool.run(argc, argv, [&]() {
        const dist::Communicator comm = dist::Communicator::world();
        Backend b = tool.open_backend(comm.local_rank(), comm.local_size());
        if (comm.size() > 1 && s.sections != std::vector<std::string>{"ranks"})
            throw UsageError("under mpirun only --sections ranks runs (the others measure one GPU)");
        JsonLines json(comm.root() ? tool.json_path() : std::string(), b);
        if (comm.root()) std::printf("# %s, commit %s\n", b.describe().c_str(), PARTIKEL_GIT_COMMIT);
        if (wants(s, "ranks")) ranks_section(b, comm, s, json);
        if (wants(s, "direct")) direct_section(b, s, json);
        if (wants(s, "tree") || wants(s, "hybrid")) tree_section(b, s, json, wants(s, "hybrid") && b.is_cuda());
        if (wants(s, "theta")) theta_section(b, s, json);
        return 0;
    });
}
