#include "sph_step.hpp"

#include <cstdio>

#include "base/error.hpp"
#include "common/run_flags.hpp"
#include "common/number_checks.hpp"
#include "common/sph_terrain_flags.hpp"
#include "common/tool.hpp"
#include "formats/reader.hpp"
#include "run/run_loop.hpp"
#include "run/start_frame.hpp"
#include "base/io.hpp"
#include "sph/io/frame_io.hpp"
#include "sph/io/params_io.hpp"
#include "sph/io/simulation.hpp"

namespace partikel::tools {

namespace {

void add_override_flags(CLI::App& app, sph::SphParamOverrides& o) {
    // Each bound is the one sph::validate holds frames to, said here in the flag's name.
    app.add_option("--alpha", o.alpha, "Monaghan artificial viscosity alpha")->check(finite_non_negative())->group("Physics");
    app.add_option("--c0", o.c0, "Sound speed [m/s]")->check(finite_positive())->group("Physics");
    app.add_option("--viscosity", o.viscosity,
                   "Physical viscosity beside --alpha: artificial (none), laminar (Lo & Shao 2002) or laminar-sps "
                   "(and the SPS turbulence stress, Dalrymple & Rogers 2006)")
        ->group("Physics");
    app.add_option("--laminar-nu", o.laminar_nu, "Kinematic viscosity of the laminar modes [m^2/s] (default 1e-6, water)")
        ->check(finite_non_negative())
        ->group("Physics");
    app.add_option("--sps-cs", o.sps_cs, "Smagorinsky constant Cs of laminar-sps (default 0.12)")
        ->check(finite_non_negative())
        ->group("Physics");
    app.add_option("--sps-ci", o.sps_ci, "Blin constant CI of laminar-sps (default 0.0066)")
        ->check(finite_non_negative())
        ->group("Physics");
    app.add_option("--gravity", o.gravity, "Gravity gx,gy,gz [m/s^2]")->delimiter(',')->expected(3)->group("Physics");
    app.add_option("--kernel", o.kernel, "wendland or cubic")->group("Physics");
    app.add_option("--density", o.density, "continuity or summation")->group("Physics");
    app.add_option("--shepard-every", o.shepard_every, "Steps between Shepard filters (0: never)")
        ->check(finite_non_negative())
        ->group("Physics");
    app.add_option("--xsph", o.xsph, "XSPH epsilon (0..1)")->check(number_in(0, 1))->group("Physics");
    app.add_option("--diffusion", o.diffusion, "Density diffusion: none, molteni or fourtakas")->group("Physics");
    app.add_option("--delta", o.delta, "Density diffusion coefficient delta")->group("Physics");
    app.add_option("--integrator", o.integrator, "midpoint, symplectic or verlet")->group("Physics");
    app.add_option("--verlet-euler-every", o.verlet_euler_every, "Verlet: an Euler step every N steps")
        ->check(number_in(1, 2147483647))
        ->group("Physics");
    app.add_option("--cfl", o.cfl, "dt = cfl * min(dt_cv, dt_f)")->check(number_above_at_most(0, 1))->group("Physics");
    app.add_option("--dt-max", o.dt_max, "Largest time step [s]")->check(finite_positive())->group("Physics");
    app.add_option("--density-limits", o.density_limits, "Remove fluid outside MIN,MAX [kg/m^3] (0,0: off)")
        ->delimiter(',')
        ->expected(2)
        ->group("Physics");
    app.add_option("--faces", o.faces, "Domain faces x-,x+,y-,y+,z-,z+: open, wall or periodic")->group("Boundaries");
    app.add_option("--boundary", o.boundary,
                   "Boundary particles: dbc (dynamic) or mdbc (modified: density from ghost nodes along the wall "
                   "normal, English et al. 2022; one rank)")
        ->group("Boundaries");
    app.add_option("--boundary-velocity", o.boundary_velocity,
                   "mdbc: the boundary particles' velocity: wall, no-slip or free-slip")
        ->group("Boundaries");
    app.add_option("--wall-stiffness", o.wall_stiffness, "Wall stiffness K in units of (c0/h)^2")->group("Boundaries");
    app.add_option("--wall-damping", o.wall_damping, "Wall damping in units of critical")->group("Boundaries");
    app.add_option("--wave-face", o.wave_face, "Face moved by the wave maker (0..5 = x-..z+; -1: none)")
        ->check(number_in(-1, 5))
        ->group("Boundaries");
    app.add_option("--wave-amplitude", o.wave_amplitude, "Wave maker amplitude [m]")->group("Boundaries");
    app.add_option("--wave-period", o.wave_period, "Wave maker period [s]")->check(finite_positive())->group("Boundaries");
    add_terrain_contact_flags(app, o, true);
    app.add_option("--dt", o.dt, "Fixed time step [s] (0: adaptive)")->check(finite_non_negative())->group("Physics");
    app.add_option("--model", o.model, "wcsph, newtonian-muller, bingham, herschel-bulkley, power-law")
        ->group("Snow");
    app.add_option("--gas-constant", o.gas_constant, "k of p = k max(rho - rho0, 0) [m^2/s^2]")
        ->check(finite_positive())
        ->group("Snow");
    app.add_option("--mu", o.mu, "Viscosity mu [Pa s] (power law: consistency [Pa s^n])")
        ->check(finite_non_negative())
        ->group("Snow");
    app.add_option("--mu-solid", o.mu_solid, "Solid viscosity mu_s below yield [Pa s]")->check(finite_non_negative())->group("Snow");
    app.add_option("--yield-stress", o.yield_stress, "Yield stress tau_y [Pa]")->check(finite_non_negative())->group("Snow");
    app.add_option("--power-n", o.power_n, "Flow index n (power law, Herschel-Bulkley)")->check(finite_positive())->group("Snow");
    app.add_option("--xsph-phi", o.xsph_phi, "XSPH phi of the leapfrog velocity update (0..1)")
        ->check(number_in(0, 1))
        ->group("Snow");
    app.add_option("--max-speed", o.max_speed, "Speed cap [m/s] (0: off)")->check(finite_non_negative())->group("Snow");
    app.add_option("--max-acceleration", o.max_acceleration, "Acceleration cap [m/s^2] (0: off)")
        ->check(finite_non_negative())
        ->group("Snow");
    app.add_option("--stress-form", o.stress_form, "Stress divergence: momentum or sandvik")->group("Snow");
}

}  // namespace

int sph_step(std::span<const std::string> args) {
    Tool tool("sph-step",
              "Advance an SPH particle set (weakly compressible SPH, or the snow models of Sandvik 2021:\n"
              "Newtonian, Bingham, Herschel-Bulkley, power law; --model) and write frames.\n"
              "Reads sph-init output or its own output and continues from its last frame (or --start-frame).\n"
              "Frames are written by a thread of their own while the steps go on, two in flight; when\n"
              "frames come faster than the host compresses them (about 1-3 GB/s of frame data on 16\n"
              "cores, 0.2-0.5 GB/s on 2), the steps wait and the progress line says so.");
    tool.add_common(kInput | kOutput | kDevice | kThreads | kProfile);
    CLI::App& app = tool.app();
    RunFlags run_flags;
    add_run_flags(tool, run_flags, "s");
    bool deterministic = false;
    app.add_flag("--deterministic", deterministic, "Stable cell order: repeatable GPU runs");
    int grid_subdivision = sph::SolverOptions{}.grid_subdivision;
    app.add_option("--grid-subdivision", grid_subdivision, "Grid cells of edge 2h/2^k (snow: h/2^k); -1: by device and grid size")
        ->check(number_in(-1, 3))
        ->capture_default_str();
    bool write_stress = false;
    app.add_flag("--write-stress", write_stress, "Stress models: also write the column stress (6 components)")
        ->group("Snow");
    sph::RankOptions rank_options;
    app.add_option("--rank-capacity", rank_options.capacity_factor,
                   "mpirun: rows per rank (particles, ghosts) in even shares")
        ->check(number_in(1.0, 64.0))
        ->capture_default_str()
        ->group("Ranks");
    app.add_option("--balance-every", rank_options.balance_every,
                   "mpirun: steps between balancing moves of the slabs (0: fixed)")
        ->check(number_in(0, 1000000))
        ->capture_default_str()
        ->group("Ranks");
    bool no_halo_overlap = false;
    app.add_flag("--no-halo-overlap", no_halo_overlap,
                 "mpirun: build each halo before the pass that needs it (same results; for timing)")
        ->group("Ranks");
    sph::SphParamOverrides overrides;
    add_override_flags(app, overrides);

    return tool.run(std::vector<std::string>(args.begin(), args.end()), [&](Tool& t) {
        const run::RunOptions options = run_options(run_flags, t, "sph-step");
        // One rank, or every rank mpirun started: rank 0 reads the input and each rank gets a slab.
        const dist::Communicator ranks = t.join_ranks();
        Backend backend = t.open_backend();  // first: a bad --device is a usage error before any I/O
        sph::RankStart start = sph::scatter_start(ranks, [&] {
            refuse_terminal_stdin(t.options().input);
            sph::SimulationFrame frame = run::parse_start_frame(t.options().input, run_flags.start_frame, [](const fmt::Frame& f) {
                sph::SimulationFrame parsed = sph::read_frame(f);
                sph::validate(parsed.params);  // what the file holds, before the flags change it
                return parsed;
            });
            overrides.apply(frame.params);
            sph::validate(frame.params);
            return frame;
        });
        ranks.collectively([&] {
            overrides.apply(start.frame.params);
            sph::validate(start.frame.params);
        });
        rank_options.communicator = ranks;
        rank_options.slabs = start.slabs;
        rank_options.overlap_halo = !no_halo_overlap;

        // A Verlet frame carries the previous step (velocity_previous, density_previous): the
        // continuation is then bit-identical on the CPU backend.
        sph::SphSimulation simulation(backend, start.frame,
                                      {deterministic, t.options().profile, grid_subdivision, !options.diag_path.empty(), write_stress},
                                      rank_options);
        std::string where = backend.describe();
        if (ranks.size() > 1)
            where = ranks.describe() + ", " + where + " on rank 0, slabs along " + std::string(1, "xyz"[start.slabs.axis]);
        t.log().info("simulating " + std::to_string(simulation.size()) + " particles on " + where + " from step " +
                     std::to_string(start.frame.step) + " (t = " + std::to_string(start.frame.time_s) + " s)");

        auto writer = run::open_frame_writer(ranks, t.options().output, writer_options(run_flags, t));
        const run::RunReport report = run::run_simulation(
            simulation, *writer, options, run::make_provenance("sph-step", t.command_line(), backend.describe()),
            t.log());
        t.log().info(report.summary());
        if (t.options().profile && ranks.root()) {
            sph::Solver& solver = simulation.solver();
            std::fprintf(stderr, "%s", solver.profile().report().c_str());
            const double seconds = solver.profile().total_seconds();
            const double steps_done = double(report.last_step - report.first_step);
            if (seconds > 0 && steps_done > 0)
                std::fprintf(stderr, "%.4g particle-steps/s over %lld steps, %.1f device bytes/particle\n",
                             double(solver.size()) * steps_done / seconds, static_cast<long long>(steps_done),
                             double(solver.device_bytes()) / double(solver.size()));
        }
        return report.interrupted ? 128 + report.signal : 0;
    });
}

}  // namespace partikel::tools
