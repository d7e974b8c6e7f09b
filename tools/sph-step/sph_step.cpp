#include "sph_step.hpp"

#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <optional>
#include <vector>

#include "common/tool.hpp"
#include "base/error.hpp"
#include "formats/reader.hpp"
#include "partikel_config.hpp"
#include "sph/frame_io.hpp"
#include "sph/frame_output.hpp"
#include "sph/solver.hpp"

namespace partikel::tools {

namespace {

// Flags that override the parameters a frame carries; unset ones keep the frame's values.
struct Overrides {
    std::optional<float> alpha, c0, cfl, laminar_nu, xsph, delta, wall_stiffness, wall_damping;
    std::optional<float> wave_amplitude, wave_period, dt_max;
    std::optional<int> shepard_every, verlet_euler_every, wave_face;
    std::optional<std::string> kernel, density, diffusion, integrator, faces;
    std::vector<float> gravity, density_limits;

    void add_to(CLI::App& app) {
        app.add_option("--alpha", alpha, "Monaghan artificial viscosity alpha")->group("Physics");
        app.add_option("--c0", c0, "Sound speed [m/s]")->group("Physics");
        app.add_option("--laminar-nu", laminar_nu, "Laminar kinematic viscosity [m^2/s] (0: off)")->group("Physics");
        app.add_option("--gravity", gravity, "Gravity gx,gy,gz [m/s^2]")->delimiter(',')->expected(3)->group("Physics");
        app.add_option("--kernel", kernel, "wendland or cubic")->group("Physics");
        app.add_option("--density", density, "continuity or summation")->group("Physics");
        app.add_option("--shepard-every", shepard_every, "Steps between Shepard filters (0: never)")->group("Physics");
        app.add_option("--xsph", xsph, "XSPH epsilon (0..1)")->group("Physics");
        app.add_option("--diffusion", diffusion, "Density diffusion: none, molteni or fourtakas")->group("Physics");
        app.add_option("--delta", delta, "Density diffusion coefficient delta")->group("Physics");
        app.add_option("--integrator", integrator, "midpoint, symplectic or verlet")->group("Physics");
        app.add_option("--verlet-euler-every", verlet_euler_every, "Verlet: an Euler step every N steps")
            ->group("Physics");
        app.add_option("--cfl", cfl, "dt = cfl * min(dt_cv, dt_f)")->group("Physics");
        app.add_option("--dt-max", dt_max, "Largest time step [s]")->group("Physics");
        app.add_option("--density-limits", density_limits, "Remove fluid outside MIN,MAX [kg/m^3] (0,0: off)")
            ->delimiter(',')
            ->expected(2)
            ->group("Physics");
        app.add_option("--faces", faces, "Domain faces x-,x+,y-,y+,z-,z+: open, wall or periodic")->group("Boundaries");
        app.add_option("--wall-stiffness", wall_stiffness, "Wall stiffness K in units of (c0/h)^2")
            ->group("Boundaries");
        app.add_option("--wall-damping", wall_damping, "Wall damping in units of critical")->group("Boundaries");
        app.add_option("--wave-face", wave_face, "Face moved by the wave maker (0..5 = x-..z+; -1: none)")
            ->group("Boundaries");
        app.add_option("--wave-amplitude", wave_amplitude, "Wave maker amplitude [m]")->group("Boundaries");
        app.add_option("--wave-period", wave_period, "Wave maker period [s]")->group("Boundaries");
    }

    void apply(sph::SphParams& p) const {
        if (alpha) p.alpha = *alpha;
        if (c0) p.c0 = *c0;
        if (laminar_nu) p.laminar_nu = *laminar_nu;
        if (gravity.size() == 3) p.gravity = {gravity[0], gravity[1], gravity[2]};
        if (kernel) p.kernel = sph::parse_kernel(*kernel);
        if (density) p.density = sph::parse_density_scheme(*density);
        if (shepard_every) p.shepard_every = *shepard_every;
        if (xsph) p.xsph_epsilon = *xsph;
        if (diffusion) p.diffusion = sph::parse_diffusion(*diffusion);
        if (delta) p.diffusion_delta = *delta;
        if (integrator) p.integrator = sph::parse_integrator(*integrator);
        if (verlet_euler_every) p.verlet_euler_every = *verlet_euler_every;
        if (cfl) p.cfl = *cfl;
        if (dt_max) p.dt_max_s = *dt_max;
        if (density_limits.size() == 2) {
            p.density_min = density_limits[0];
            p.density_max = density_limits[1];
        }
        if (faces) p.faces = sph::parse_faces(*faces);
        if (wall_stiffness) p.wall_stiffness = *wall_stiffness;
        if (wall_damping) p.wall_damping = *wall_damping;
        if (wave_face) p.wave_maker.face = *wave_face;
        if (wave_amplitude) p.wave_maker.amplitude_m = *wave_amplitude;
        if (wave_period) p.wave_maker.period_s = *wave_period;
    }
};

// The diagnostics table (--diag): one row per output, tab-separated, units in the header.
class DiagnosticsTable {
public:
    explicit DiagnosticsTable(const std::string& path) {
        if (path.empty()) return;
        file_.open(path);
        if (!file_) throw IoError("cannot open diagnostics file " + path);
        file_ << "step\ttime_s\tdt_s\tkinetic_J\tpotential_J\ttotal_J\tmax_speed_m_s\tmin_density_kg_m3\t"
                 "max_density_kg_m3\tfluid_max_x_m\tfluid_max_y_m\tfluid_max_z_m\tfluid\tremoved\t"
                 "momentum_x_kg_m_s\tmomentum_y_kg_m_s\tmomentum_z_kg_m_s\t"
                 "wall_impulse_x_N_s\twall_impulse_y_N_s\twall_impulse_z_N_s\n";
    }
    bool enabled() const { return file_.is_open(); }
    void write(const sph::Diagnostics& d) {
        char line[768];
        std::snprintf(line, sizeof line,
                      "%lld\t%.9g\t%.6g\t%.9g\t%.9g\t%.9g\t%.6g\t%.7g\t%.7g\t%.7g\t%.7g\t%.7g\t%llu\t%llu\t%.9g\t%.9g\t"
                      "%.9g\t%.9g\t%.9g\t%.9g\n",
                      static_cast<long long>(d.step), d.time_s, d.dt_s, d.kinetic_J, d.potential_J,
                      d.kinetic_J + d.potential_J, d.max_speed, d.min_density, d.max_density, d.fluid_max.x,
                      d.fluid_max.y, d.fluid_max.z, static_cast<unsigned long long>(d.fluid_count),
                      static_cast<unsigned long long>(d.removed), d.momentum_kg_m_s.x, d.momentum_kg_m_s.y,
                      d.momentum_kg_m_s.z, d.wall_impulse_N_s.x, d.wall_impulse_N_s.y, d.wall_impulse_N_s.z);
        file_ << line;
        file_.flush();
    }

private:
    std::ofstream file_;
};

}  // namespace

int sph_step(std::span<const std::string> args) {
    Tool tool("sph-step",
              "Advance an SPH particle set (weakly compressible SPH) and write frames.\n"
              "Reads sph-init output or its own output and continues from the last frame.");
    tool.add_common(kInput | kOutput | kDevice | kThreads | kProfile);
    CLI::App& app = tool.app();
    std::optional<double> until, every;
    std::optional<std::int64_t> steps, every_steps, diag_every_steps;
    std::string diag_path;
    bool deterministic = false;
    Overrides overrides;
    app.add_option("--until", until, "Run until this simulated time [s]");
    app.add_option("--steps", steps, "Run this many steps")->check(CLI::NonNegativeNumber);
    app.add_option("--every", every, "Write a frame every T seconds of simulated time [s]")->check(CLI::PositiveNumber);
    app.add_option("--every-steps", every_steps, "Write a frame every N steps")->check(CLI::PositiveNumber);
    app.add_option("--diag", diag_path, "Write diagnostics (TSV) to FILE at every frame");
    app.add_option("--diag-every-steps", diag_every_steps, "Also write a diagnostics row every N steps")
        ->check(CLI::PositiveNumber);
    app.add_flag("--deterministic", deterministic, "Stable cell order: repeatable GPU runs");
    int grid_subdivision = sph::SolverOptions{}.grid_subdivision;
    app.add_option("--grid-subdivision", grid_subdivision, "Neighbour grid cells of edge 2h / 2^k (-1: by device and h/dx)")
        ->check(CLI::Range(-1, 3))
        ->capture_default_str();
    overrides.add_to(app);

    return tool.run(std::vector<std::string>(args.begin(), args.end()), [&](Tool& t) {
        if (until.has_value() == steps.has_value()) throw UsageError("give exactly one of --until and --steps");
        if (every && every_steps) throw UsageError("give at most one of --every and --every-steps");

        Backend backend = t.open_backend();  // first: a bad --device is a usage error before any I/O
        auto reader = fmt::open_reader(t.options().input);
        // Restart from the last frame: jump there when the input has an index.
        if (auto count = reader->frame_count(); count && *count > 1) reader->seek_frame(*count - 1);
        std::optional<fmt::Frame> last;
        while (auto frame = reader->next()) last = std::move(frame);
        if (!last) throw FormatError(reader->name() + ": no frames");
        sph::SimulationFrame start = sph::read_frame(*last);
        overrides.apply(start.params);
        sph::validate(start.params);

        // A Verlet frame carries the previous step (velocity_previous, density_previous): the
        // continuation is then bit-identical on the CPU backend.
        sph::Solver solver(backend, start.params, start.particles, start.step, start.time_s,
                           {deterministic, t.options().profile, grid_subdivision, !diag_path.empty()},
                           start.previous);
        t.log().info("simulating " + std::to_string(solver.size()) + " particles on " + backend.describe() +
                     " from step " + std::to_string(start.step) + " (t = " + std::to_string(start.time_s) + " s)");

        fmt::WriterOptions wo;
        wo.force = t.options().force;
        auto writer = fmt::open_writer(t.options().output, wo);
        DiagnosticsTable diag(diag_path);

        // Output overlaps the next steps (sph::FrameOutput); diagnostics are computed at the
        // capture, so they refer to the frame's step.
        sph::FrameOutput output(solver, *writer,
                                {{"program", std::string("sph-step")},
                                 {"version", std::string(PARTIKEL_VERSION)},
                                 {"command_line", t.command_line()},
                                 {"device", backend.describe()}});
        auto write_frame = [&] {
            output.write(solver);
            if (diag.enabled()) diag.write(solver.diagnostics());
        };
        const std::int64_t target_steps = steps ? start.step + *steps : 0;
        auto done = [&] {
            return steps ? solver.step_count() >= target_steps : solver.time() >= *until * (1.0 - 1e-12);
        };
        const double every_s = every.value_or(0.0);
        double next_output = every ? (std::floor(start.time_s / every_s + 1e-9) + 1.0) * every_s : 0.0;
        const double total = steps ? double(*steps) : std::max(0.0, *until - start.time_s);
        Progress progress = t.progress("sph-step", total, steps ? "steps" : "s");

        if (start.step == 0) write_frame();  // a fresh start records its initial state
        try {
            while (!done()) {
                solver.step();
                bool output = false;
                if (every && solver.time() >= next_output * (1.0 - 1e-12)) {
                    output = true;
                    next_output = (std::floor(solver.time() / every_s + 1e-9) + 1.0) * every_s;
                }
                if (every_steps && solver.step_count() % *every_steps == 0) output = true;
                if (output)
                    write_frame();
                else if (diag.enabled() && diag_every_steps && solver.step_count() % *diag_every_steps == 0)
                    diag.write(solver.diagnostics());
                progress.update(steps ? double(solver.step_count() - start.step) : solver.time() - start.time_s);
            }
        } catch (const NumericalError& e) {
            // Keep what was written: the frames up to the last good output stay readable.
            output.finish();
            writer->finish();
            throw NumericalError(std::string(e.what()) + "; frames up to step " +
                                 std::to_string(output.last_step()) + " are kept in " + writer->name());
        }
        if (output.last_step() != solver.step_count()) write_frame();  // the final state, for restarts
        output.finish();
        writer->finish();
        progress.finish();
        if (t.options().profile) {
            std::fprintf(stderr, "%s", solver.profile().report().c_str());
            const double seconds = solver.profile().total_seconds();
            const double steps_done = double(solver.step_count() - start.step);
            if (seconds > 0 && steps_done > 0)
                std::fprintf(stderr,
                             "%.4g particle-steps/s over %lld steps, %.1f device bytes/particle "
                             "(%.1f of them output staging)\n",
                             double(solver.size()) * steps_done / seconds, static_cast<long long>(steps_done),
                             double(solver.device_bytes() + output.device_bytes()) / double(solver.size()),
                             double(output.device_bytes()) / double(solver.size()));
        }
        return 0;
    });
}

}  // namespace partikel::tools
