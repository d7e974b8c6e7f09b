// The weakly compressible SPH solver (Werner 2015, chapters 3 and 4; docs/SPH.md).
//
// The particle state lives on the backend (device memory) from construction to destruction,
// sorted by grid cell: after every neighbour-grid build all per-particle arrays are gathered
// into cell order, and neighbour loops index them directly. Everything is allocated in the
// constructor; step() allocates nothing (tests/unit/sph checks device_allocation_count()).
//
// One step of the default scheme (Werner 2015, section 4.3, first method):
//   [Shepard filter every N steps] -> rates at t (+ dt reduced on the device) -> predictor to
//   t + dt/2 -> grid rebuild -> rates at t + dt/2 -> corrector to t + dt -> remove escaped
//   particles -> grid rebuild.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/staged_copy.hpp"
#include "core/timer.hpp"
#include "base/vec.hpp"
#include "dist/communicator.hpp"
#include "dist/slabs.hpp"
#include "sph/params.hpp"
#include "sph/particles.hpp"

namespace partikel::sph {

struct SolverOptions {
    // Stable (radix-sort) grid builds: repeatable runs on every backend, and on the CPU a
    // restart from a frame continues bit-identically. Always on for the CPU backend.
    bool deterministic = false;
    bool profile = false;  // time each phase (adds a device synchronisation per phase)
    // Grid cells of edge 2h / 2^k (frnn "ball" search); -1: frnn::default_subdivision (on the
    // GPU the finest cells of edge >= 0.8 dx: k = 1 for h = 1.5 dx, 2 for h = sqrt(3) dx; on the
    // CPU 1), then coarser while the grid would have more than 16 cells per particle; the
    // fastest measured (docs/PERFORMANCE.md).
    int grid_subdivision = -1;
    // Accumulate the impulse the walls (boundary particles and repulsive volumes) give the fluid
    // (Diagnostics::wall_impulse_N_s). Boundary particles then also sum the momentum pair terms
    // of their fluid neighbours, and each step adds three reductions and a read-back.
    bool track_wall_impulse = false;
    // Snow models with a stress tensor: write the stress (6 components) to frames.
    bool write_stress = false;
    // With profile: timeline marks instead of a wait per phase (PhaseProfile::Timing); read
    // profile() after Solver::profile().flush().
    PhaseProfile::Timing profile_timing = PhaseProfile::Timing::synchronised;
};

// Several ranks (lib/dist; docs/ARCHITECTURE.md, "Running on several ranks"): each rank's Solver
// holds the particles of its slab (rows [0, n), cell order) and ghosts of its neighbours' (rows
// after them); every call below is then collective, and counts, diagnostics and the time step
// are those of the whole state.
struct RankOptions {
    dist::Communicator communicator = dist::Communicator::single();
    dist::SlabDecomposition slabs{};  // every rank's borders (the start frame's scatter chose them)
    // Rows a rank allocates (its particles and ghosts) as a multiple of an even share of all
    // particles: the room migration and load balancing have.
    double capacity_factor = 2.0;
    // Steps between moves of the slab borders toward equal measured cost (0: fixed borders).
    int balance_every = 10;
    // Compute the rows of a slab's interior while its halo is planned and travels (the same
    // results either way; off: the halo first, then every row). A synchronised profile
    // (SolverOptions::profile_timing) turns it off: it waits for every phase.
    bool overlap_halo = true;
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
    // Several ranks: the slowest rank's compute time over the mean, over the last measured
    // steps (1 with one rank).
    double imbalance = 1.0;
};

// The Verlet integrator's state of the previous step (v_{n-1}, rho_{n-1}: the fields
// velocity_previous and density_previous), in the order of the ParticleSet it goes with. Frames carry it as the columns
// velocity_previous and density_previous so that a Verlet restart continues bit-identically.
// Empty for the other integrators and before the first step.
// The snow models' leapfrog keeps the half-step velocity v_{n+1/2} in `velocity_half` (frame
// column velocity_half) the same way.
struct PreviousStep {
    std::vector<Vec3f> velocity;       // m/s
    std::vector<float> density;        // kg/m^3
    std::vector<Vec3f> velocity_half;  // m/s, snow models
    bool empty() const { return velocity.empty() && velocity_half.empty(); }
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

// The neighbour search's reach (m): the kernel's support, with the snow models' list skin.
float search_radius(const SphParams& params);
// How far (m) ranks send ghosts beyond each other's particles: the search reach and 5% for
// rounding (ghosts at the edge of the search are cheap, missing ones are wrong). Slabs are at
// least this wide.
float halo_reach(const SphParams& params);

// A field of the solver's state on the backend (sph/fields.hpp), as a frame writer captures it.
struct FieldBuffer {
    int field;          // sph::field::...
    DeviceBytes bytes;  // the current values (size() records); valid until the next step
};

class Solver {
public:
    // Uploads `particles` (any order; fluid and boundary mixed) and sorts them by cell.
    // `step` and `time_s` continue a previous run; so does `previous` (in the order of
    // `particles`) with the Verlet integrator: the first step is then a Verlet step, not an
    // Euler step (ignored by the other integrators). Throws UsageError on bad parameters.
    // With several ranks (`ranks`), `particles` are this rank's (RankOptions::slabs chose them)
    // and the constructor is collective: an error on one rank is thrown on every rank.
    Solver(const Backend& backend, const SphParams& params, const ParticleSet& particles, std::int64_t step = 0,
           double time_s = 0.0, SolverOptions options = {}, const PreviousStep& previous = {},
           RankOptions ranks = {});
    ~Solver();
    Solver(const Solver&) = delete;
    Solver& operator=(const Solver&) = delete;

    // Advance one time step. Throws NumericalError on NaN, runaway speed or dt below dt_min,
    // naming the first particle and quantity that failed; the solver's state is then unusable
    // (the run loop keeps the frames written before).
    void step();
    // step(), and the ranks' largest `vote` (run::Simulation::step_and_vote): several ranks ask
    // for it at the step's Δt all-reduce, which carries it; one rank after the step.
    std::int32_t step(const std::function<std::int32_t()>& vote);

    std::int64_t step_count() const;
    double time() const;       // s
    double last_dt() const;    // s, 0 before the first step
    std::size_t size() const;  // particles currently simulated (fluid + boundary) on this rank
    std::uint64_t global_size() const;  // on every rank
    std::uint64_t removed() const;      // from the whole state
    const dist::Communicator& communicator() const;
    const dist::SlabDecomposition& slabs() const;  // the borders now
    std::size_t ghosts() const;                    // ghost rows now
    const SphParams& params() const;
    const Backend& backend() const;
    const SolverOptions& options() const;

    // The particles in the solver's (cell) order. Copies device -> host (synchronises).
    ParticleSet download() const;
    // Verlet's previous step in the same order (empty otherwise). Synchronises.
    PreviousStep download_previous() const;
    // The current values of one field (sph/fields.hpp) in the same order, size() records
    // (UsageError when the scheme has no such field). Synchronises.
    void download_field(int field, void* host) const;
    // Both, with step, time, dt and removed.
    SolverFrame download_frame() const;
    // Every quantity of the diagnostics in one pass over the particles and one synchronisation.
    Diagnostics diagnostics();

    // The fields a frame of the current state holds (kFieldWrite; Verlet's previous step only
    // once it exists), in table order, and the most bytes each may ever hold.
    std::vector<FieldBuffer> written_fields() const;
    std::vector<std::size_t> written_field_capacity() const;

    PhaseProfile& profile();
    std::size_t device_bytes() const;  // backend memory held by the solver and its grid
    // Several ranks: rows sent to other ranks and bytes sent since construction (benchmarks).
    std::uint64_t migrated_rows() const;
    std::uint64_t bytes_sent() const;

private:
    std::unique_ptr<SolverState> state_;
};

}  // namespace partikel::sph
