#include "nbody_run.hpp"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/io.hpp"
#include "base/log.hpp"
#include "common/number_checks.hpp"
#include "common/run_flags.hpp"
#include "common/tool.hpp"
#include "formats/reader.hpp"
#include "nbody/io/frame_io.hpp"
#include "nbody/io/simulation.hpp"
#include "run/run_loop.hpp"
#include "run/start_frame.hpp"

namespace partikel::tools {

namespace {

// Parameters given on the command line; each replaces the start frame's nbody.* attribute.
struct Overrides {
    std::optional<std::string> method;
    std::optional<double> theta;
    std::optional<int> leaf_size;
    std::optional<int> max_depth;
    std::optional<std::string> multipole;
    std::optional<double> softening;
    std::optional<double> dt;

    void apply(nbody::NbodyParams& p) const {
        if (method) p.method = nbody::parse_force_method(*method);
        if (theta) p.theta = float(*theta);
        if (leaf_size) p.leaf_capacity = *leaf_size;
        if (max_depth) p.max_depth = *max_depth;
        if (multipole) p.quadrupole = *multipole == "quadrupole";
        if (softening) p.softening = float(*softening);
        if (dt) p.dt = *dt;
    }
};

void add_override_flags(CLI::App& app, Overrides& o) {
    app.add_option("--method", o.method, "Forces: direct, tree (Barnes-Hut) or hybrid (tree, CPU + GPU)")
        ->check(one_of({"direct", "tree", "hybrid"}))
        ->group("Physics");
    app.add_option("--theta", o.theta, "Opening angle: a cell of edge l is used whole when l/d < theta")
        ->check(number_above_at_most(0, 2))
        ->group("Physics");
    app.add_option("--leaf-size", o.leaf_size, "Most bodies in a tree leaf (1..1024)")->check(number_in(1, 1024))->group("Physics");
    app.add_option("--max-depth", o.max_depth, "Deepest tree level (1..21)")->check(number_in(1, 21))->group("Physics");
    app.add_option("--multipole", o.multipole, "Cells as monopole or quadrupole")
        ->check(one_of({"monopole", "quadrupole"}))
        ->group("Physics");
    app.add_option("--softening", o.softening, "Plummer softening length epsilon [model length]")
        ->check(finite_non_negative())
        ->group("Physics");
    app.add_option("--dt", o.dt, "Leapfrog time step [model time]")->check(finite_positive())->group("Physics");
}

std::string describe(const nbody::NbodyParams& p) {
    std::string s = std::string(nbody::force_method_name(p.method));
    if (p.method != nbody::ForceMethod::direct)
        s += " (theta " + format_g(p.theta) + ", " + (p.quadrupole ? "quadrupole" : "monopole") + ", leaves of " +
             std::to_string(p.leaf_capacity) + ")";
    return s + ", " + std::string(nbody::unit_system_name(p.units.kind)) + " units, G " + format_g(p.units.G) +
           ", softening " + format_g(p.softening) + ", dt " + format_g(p.dt);
}

// --force-error: the start frame's accelerations against a double-precision direct sum, as a
// table with a header line.
// (Collective across ranks; rank 0 writes.)
void write_force_error(nbody::Solver& solver, std::uint64_t samples, std::uint64_t seed, const std::string& path,
                       const dist::Communicator& ranks) {
    const nbody::ForceErrorStats e = solver.force_error(samples, seed);
    const nbody::NbodyParams& p = solver.params();
    char row[256];
    std::snprintf(row, sizeof row, "%s\t%.6g\t%s\t%zu\t%zu\t%.4e\t%.4e\t%.4e\t%.4e\n",
                  std::string(nbody::force_method_name(p.method)).c_str(), double(p.theta),
                  p.quadrupole ? "quadrupole" : "monopole", solver.total_size(), e.samples, e.median, e.p90, e.p99,
                  e.max);
    const std::string text = std::string("method\ttheta\tmultipole\tbodies\tsamples\tmedian\tp90\tp99\tmax\n") + row;
    ranks.collectively([&] {
        if (!ranks.root()) return;
        auto out = OutputStream::open(path, false);
        out->write(text.data(), text.size());
        out->commit();
    });
}

// Interactions per body of the last step and per second over the run (wall time, output
// included); for the hybrid method also the last step's split.
// (Collective across ranks; the log is rank 0's.)
void log_work(nbody::Solver& solver, const run::RunReport& report, Log& log, int ranks) {
    const nbody::Interactions last = solver.last_interactions();
    const double n = double(solver.total_size());
    const double steps = double(report.last_step - report.first_step);
    std::string line = "interactions per body in the last step: " + format_g(double(last.cells) / n) + " cells, " +
                       format_g(double(last.bodies) / n) + " bodies";
    if (steps > 0 && report.wall_seconds > 0)
        line += "; " + format_g(double(last.total()) * steps / report.wall_seconds) + " interactions/s over the run";
    log.info(line);
    if (ranks > 1)
        log.info("across ranks, the last step: walk imbalance " + format_g(solver.imbalance()) + " (slowest over mean), " +
                 std::to_string(solver.migrated()) + " bodies changed rank");
    if (solver.params().method == nbody::ForceMethod::hybrid) {
        const nbody::HybridStatus h = solver.hybrid_status();
        log.info("hybrid: the CPU (" + std::to_string(h.cpu_threads) + " threads) walked " +
                 std::to_string(h.cpu_groups) + " of " + std::to_string(h.groups) + " groups (" +
                 format_g(100.0 * h.cpu_share) + "% of the estimated work); last step: the CPU's part " +
                 format_g(1e3 * h.cpu_seconds) + " ms, the device's " + format_g(1e3 * h.gpu_seconds) + " ms");
    }
}

}  // namespace

int nbody_run(std::span<const std::string> args) {
    Tool tool("nbody-run",
              "Advance gravitating bodies (direct summation or Barnes-Hut, leapfrog) and write frames.\n"
              "Reads nbody-init output or its own output and continues from its last frame (or --start-frame).\n"
              "Times are in the model's unit: 1 in Henon units, 1 kpc/(km/s) = 977.8 Myr in astro units.\n"
              "Under mpirun: one rank per GPU (or share of the cores), e.g.\n"
              "  mpirun -np 4 nbody-run -i start.pks --steps 100 --every-steps 10 -o run.pks");
    tool.add_common(kInput | kOutput | kDevice | kThreads | kSeed | kProfile);
    CLI::App& app = tool.app();
    RunFlags run_flags;
    add_run_flags(tool, run_flags, "model time");
    Overrides overrides;
    add_override_flags(app, overrides);
    std::optional<std::string> units;
    app.add_option("--units", units, "nbody or astro: the units of an input that does not say")
        ->check(one_of({"nbody", "astro"}))
        ->group("Physics");
    nbody::SimulationOptions sim_options;
    app.add_flag("--acceleration", sim_options.write_acceleration, "Frames also hold each body's acceleration");
    app.add_flag("--potential", sim_options.write_potential, "Frames also hold the potential (a second force pass)");
    std::optional<std::uint64_t> force_error;
    app.add_option("--force-error", force_error, "Print the start frame's force errors on K bodies and exit")
        ->check(number_in(1, 2147483647));
    // With --force-error, -o is the table of errors, not frames.
    tool.set_output_files([&](const std::string& flag, const std::string& value) {
        return force_error ? std::vector<NamedFile>{{flag, value, std::nullopt}} : fmt::written_files(flag, value);
    });

    return tool.run(std::vector<std::string>(args.begin(), args.end()), [&](Tool& t) {
        run::RunOptions options;
        if (force_error) {
            for (const char* flag : {"--until", "--steps", "--every", "--every-steps", "--diag", "--diag-every-steps"})
                if (app.get_option(flag)->count() > 0)
                    throw UsageError(std::string("--force-error measures the start frame and exits; it takes no ") + flag);
        } else {
            options = run_options(run_flags, t, "nbody-run");
        }
        // One rank, or every rank mpirun started: rank 0 reads the input, each rank gets a share.
        const dist::Communicator ranks = t.join_ranks();
        Backend backend = t.open_backend();  // first: a bad --device is a usage error before any I/O
        nbody::StartState start = nbody::scatter_start(ranks, [&] {
            refuse_terminal_stdin(t.options().input);
            nbody::NbodyParams defaults;
            if (units) defaults.units = nbody::parse_unit_system(*units);
            nbody::StartState all = run::parse_start_frame(t.options().input, run_flags.start_frame, [&](const fmt::Frame& f) {
                nbody::StartState state = nbody::read_start(f, defaults);
                nbody::validate(state.params);  // what the file holds, before the flags change it
                nbody::validate(state.bodies);
                return state;
            });
            if (units && all.params.units.kind != defaults.units.kind)
                throw UsageError("the input is in " + std::string(nbody::unit_system_name(all.params.units.kind)) +
                                 " units; --units " + *units + " would reinterpret its numbers");
            overrides.apply(all.params);
            nbody::validate(all.params);
            return all;
        });
        sim_options.solver.profile = t.options().profile;

        nbody::NbodySimulation simulation(backend, start, sim_options, ranks);
        if (force_error) {
            write_force_error(simulation.solver(), *force_error, t.options().seed, t.options().output, ranks);
            return 0;
        }
        std::string where = backend.describe();
        if (ranks.size() > 1) where = ranks.describe() + ", " + where + " on rank 0";
        t.log().info("simulating " + std::to_string(simulation.size()) + " bodies on " + where + " from step " +
                     std::to_string(start.step) + " (t = " + format_g(start.time) + "): " + describe(start.params));

        auto writer = run::open_frame_writer(ranks, t.options().output, writer_options(run_flags, t));
        const run::RunReport report = run::run_simulation(
            simulation, *writer, options, run::make_provenance("nbody-run", t.command_line(), backend.describe()),
            t.log());
        t.log().info(report.summary());
        nbody::Solver& solver = simulation.solver();
        log_work(solver, report, t.log(), ranks.size());
        if (t.options().profile && ranks.root()) std::fprintf(stderr, "%s", solver.profile().report().c_str());
        return report.interrupted ? 128 + report.signal : 0;
    });
}

}  // namespace partikel::tools
