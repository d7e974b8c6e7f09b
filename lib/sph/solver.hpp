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
#include <vector>

#include "core/backend.hpp"
#include "core/timer.hpp"
#include "base/vec.hpp"
#include "sph/params.hpp"
#include "sph/particles.hpp"

namespace partikel::sph {

struct SolverOptions {
    // Stable (radix-sort) grid builds: repeatable runs on every backend, and on the CPU a
    // restart from a frame continues bit-identically. Always on for the CPU backend.
    bool deterministic = false;
    bool profile = false;  // time each phase (adds a device synchronisation per phase)
    // Grid cells of edge 2h / 2^k (frnn "ball" search); -1: on the GPU the finest cells of
    // edge >= 0.8 dx (k = 1 for h = 1.5 dx, 2 for h = sqrt(3) dx), on the CPU 1 — the fastest
    // measured (docs/PERFORMANCE.md).
    int grid_subdivision = -1;
    // Accumulate the impulse the walls (boundary particles and repulsive volumes) give the fluid
    // (Diagnostics::wall_impulse_N_s). Boundary particles then also sum the momentum pair terms
    // of their fluid neighbours, and each step adds three reductions and a read-back.
    bool track_wall_impulse = false;
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
    std::uint64_t removed = 0;  // particles that left the domain or the density limits since the start of this run
    Vec3d momentum_kg_m_s{0.0, 0.0, 0.0};  // sum of m v over the fluid
    // With SolverOptions::track_wall_impulse: the time integral of the force of the boundary
    // particles and the repulsive walls on the fluid since the solver started, so that
    // momentum(t) - momentum(t0) = M g (t - t0) + wall_impulse (Newton's third law in the pair
    // forces). Exact up to rounding for the midpoint and symplectic integrators (the velocity
    // update is dt times the half-step force); first order in dt for Verlet. Zero otherwise.
    Vec3d wall_impulse_N_s{0.0, 0.0, 0.0};
};

// The Verlet integrator's state of the previous step (v_{n-1}, rho_{n-1}; SolverState's vel_t
// and rho_t), in the order of the ParticleSet it goes with. Frames carry it as the columns
// velocity_previous and density_previous so that a Verlet restart continues bit-identically.
// Empty for the other integrators and before the first step.
struct PreviousStep {
    std::vector<Vec3f> velocity;  // m/s
    std::vector<float> density;   // kg/m^3
    bool empty() const { return velocity.empty(); }
};

// The solver's state on the host, as a frame holds it.
struct SolverFrame {
    ParticleSet particles;  // solver (cell) order
    PreviousStep previous;  // Verlet after its first step, else empty
    std::int64_t step = 0;
    double time_s = 0.0;
    double dt_s = 0.0;          // the last step's
    std::uint64_t removed = 0;  // particles removed since the solver was constructed
};

struct SolverState;  // device arrays, grid and workspace (solver_state.hpp)
class FrameSnapshot;

class Solver {
public:
    // Uploads `particles` (any order; fluid and boundary mixed) and sorts them by cell.
    // `step` and `time_s` continue a previous run; so does `previous` (in the order of
    // `particles`) with the Verlet integrator: the first step is then a Verlet step, not an
    // Euler step (ignored by the other integrators). Throws UsageError on bad parameters.
    Solver(const Backend& backend, const SphParams& params, const ParticleSet& particles, std::int64_t step = 0,
           double time_s = 0.0, SolverOptions options = {}, const PreviousStep& previous = {});
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
    // Verlet's previous step in the same order (empty otherwise). Synchronises.
    PreviousStep download_previous() const;
    // Both, with step, time, dt and removed: what FrameSnapshot::wait() returns, synchronously.
    SolverFrame download_frame() const;
    Diagnostics diagnostics();

    PhaseProfile& profile();
    std::size_t device_bytes() const;  // backend memory held by the solver and its grid

private:
    friend class FrameSnapshot;
    std::unique_ptr<SolverState> state_;
};

// A copy of the solver's state for a frame that overlaps the next steps (sph-step's output).
//
// capture() queues device -> device copies of the arrays a frame needs into staging buffers on
// the solver's stream, records an event and returns; a second stream of the same device
// (Backend::with_own_stream()) waits for that event and copies the staging buffers into pinned
// host memory while the solver steps on. wait(), from any thread, blocks until that copy is
// complete and returns the state as of the capture. The staging buffers exist because the
// next step writes the live arrays in place (the predictor and Verlet's update overwrite
// position, velocity and density; every grid build regathers all arrays into a new cell
// order): copying the live arrays straight to the host would have to finish before the next
// step could start, at PCIe speed instead of device-memory speed. On the CPU backend the same
// copies run synchronously inside capture().
//
// Everything is allocated in the constructor, for the solver's capacity: per particle 41 bytes
// of device memory and 41 bytes of pinned host memory (position and velocity 12 each, density
// and mass 4 each, id 8, kind 1), plus 16 of each with the Verlet integrator (its previous
// velocity and density). Neither capture() nor wait() allocates device or pinned memory.
// One capture at a time: wait() must return before the next capture() (UsageError otherwise).
// The snapshot must not outlive its solver's backend; its destructor waits for a copy in flight.
class FrameSnapshot {
public:
    explicit FrameSnapshot(const Solver& solver);
    ~FrameSnapshot();
    FrameSnapshot(const FrameSnapshot&) = delete;
    FrameSnapshot& operator=(const FrameSnapshot&) = delete;

    // Queue the copies of `solver`'s current state (the solver this snapshot was made for;
    // non-const only for its profile: the copies are its "output" phase).
    void capture(Solver& solver);
    // True between capture() and the return of wait().
    bool pending() const;
    // Waits for the copy of the last capture and returns it; the buffers are then free again.
    SolverFrame wait();

    std::size_t device_bytes() const;  // staging buffers
    std::size_t host_bytes() const;    // pinned buffers

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace partikel::sph
