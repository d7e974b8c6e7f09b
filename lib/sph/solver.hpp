// The weakly compressible SPH solver (BRIEF 5.1; seed 000 chapters 3 and 4).
//
// The particle state lives on the backend (device memory) from construction to destruction,
// sorted by grid cell: after every neighbour-grid build all per-particle arrays are gathered
// into cell order, and neighbour loops index them directly. Everything is allocated in the
// constructor; step() allocates nothing (tests/unit/sph checks device_allocation_count()).
//
// One step of the default scheme (seed 000, section 4.3, first method):
//   [Shepard filter every N steps] -> rates at t (+ dt reduced on the device) -> predictor to
//   t + dt/2 -> grid rebuild -> rates at t + dt/2 -> corrector to t + dt -> remove escaped
//   particles -> grid rebuild.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/timer.hpp"
#include "core/vec.hpp"
#include "sph/params.hpp"
#include "sph/particles.hpp"

namespace partikel::sph {

struct SolverOptions {
    // Stable (radix-sort) grid builds: repeatable runs on every backend, and on the CPU a
    // restart from a frame continues bit-identically. Always on for the CPU backend.
    bool deterministic = false;
    bool profile = false;  // time each phase (adds a device synchronisation per phase)
    // Grid cells of edge 2h / 2^k (frnn "tight" search); -1: 1, measured fastest for the rates
    // pass on the CPU and, with the chunked neighbour traversal, on an H100 (docs/PERFORMANCE.md).
    int grid_subdivision = -1;
};

// Per-output summary (sph-step --diag). Energies in J, speed in m/s, density in kg/m^3;
// fluid particles only.
struct Diagnostics {
    std::int64_t step = 0;
    double time_s = 0.0;
    double dt_s = 0.0;
    double kinetic_J = 0.0;
    double potential_J = 0.0;  // sum m (-g . r), zero at the origin
    double max_speed = 0.0;
    double min_density = 0.0;
    double max_density = 0.0;
    Vec3d fluid_max{0.0, 0.0, 0.0};  // m, largest x, y, z of a fluid particle (surge front, height)
    std::uint64_t fluid_count = 0;
    std::uint64_t removed = 0;  // particles that left the domain since the start of this run
};

struct SolverState;  // device arrays, grid and workspace (solver_state.hpp)

class Solver {
public:
    // Uploads `particles` (any order; fluid and boundary mixed) and sorts them by cell.
    // `step` and `time_s` continue a previous run. Throws UsageError on bad parameters.
    Solver(const Backend& backend, const SphParams& params, const ParticleSet& particles, std::int64_t step = 0,
           double time_s = 0.0, SolverOptions options = {});
    ~Solver();
    Solver(const Solver&) = delete;
    Solver& operator=(const Solver&) = delete;

    // Advance one time step. Throws NumericalError on NaN, runaway speed or dt below dt_min;
    // the solver's state is then unusable (sph-step keeps the frames written before).
    void step();

    std::int64_t step_count() const;
    double time() const;       // s
    double last_dt() const;    // s, 0 before the first step
    std::size_t size() const;  // particles currently simulated (fluid + boundary)
    std::uint64_t removed() const;
    const SphParams& params() const;
    const Backend& backend() const;

    // The particles in the solver's (cell) order. Copies device -> host (synchronises).
    ParticleSet download() const;
    Diagnostics diagnostics();

    PhaseProfile& profile();
    std::size_t device_bytes() const;  // backend memory held by the solver and its grid

private:
    std::unique_ptr<SolverState> state_;
};

}  // namespace partikel::sph
