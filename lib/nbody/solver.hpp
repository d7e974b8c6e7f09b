// The gravitational N-body solver (docs/NBODY.md): bodies on a backend, advanced by leapfrog
// kick-drift-kick with a fixed step,
//   v += a dt/2;  x += v dt;  a = a(x);  v += a dt/2
// (the thesis's velocity Verlet lacks the 1/2; this is the symplectic form). Positions and
// velocities are integrated in double precision, forces are single precision sums.
//
// Forces (NbodyParams::method):
//   direct  every pair (nbody/direct.hpp);
//   tree    Barnes-Hut (nbody/tree.hpp): per step the bounding box, Morton keys, a sort, the
//           bodies reordered along the curve, the octree, its multipoles and the group walk;
//   hybrid  the tree with its walk split between the GPU and CPU threads (nbody/hybrid.hpp).
//
// Everything is allocated in the constructor; step(), diagnostics() and the frame views
// allocate nothing (tests check device_allocation_count()). On one rank a step waits for the
// device at most twice: the tree's node count and the check for non-finite positions.
//
// Across ranks (docs/NBODY.md, "Across GPUs") each rank holds its share of the bodies: for
// the tree a range of the Morton curve (nbody/partition.hpp), moved every step toward equal
// walk times, with the tree of every rank's bodies built on every rank; for the direct sum the
// bodies it started with, the others' passing round a ring.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/vec.hpp"
#include "core/backend.hpp"
#include "core/staged_copy.hpp"
#include "core/timer.hpp"
#include "dist/communicator.hpp"
#include "nbody/bodies.hpp"
#include "nbody/params.hpp"

namespace partikel::nbody {

struct SolverOptions {
    bool profile = false;  // time each phase on the device (adds a synchronisation per phase)
};

inline constexpr double kLagrangianFractions[3] = {0.1, 0.5, 0.9};

// Everything in model units; energies are sums over the bodies (kinetic sum m v^2 / 2,
// potential sum m phi / 2).
struct Diagnostics {
    std::int64_t step = 0;
    double time = 0.0;
    double kinetic = 0.0;
    double potential = 0.0;
    double total = 0.0;
    Vec3d momentum{0.0, 0.0, 0.0};
    Vec3d angular_momentum{0.0, 0.0, 0.0};  // about the origin
    double mass = 0.0;
    Vec3d centre_of_mass{0.0, 0.0, 0.0};
    double virial_ratio = 0.0;              // 2K / |W|; NaN when W = 0 (a single body)
    double lagrangian_radius[3] = {0.0, 0.0, 0.0};  // about the centre of mass, kLagrangianFractions of the mass
};

// Interactions of the last force evaluation: cells used whole, and body-body pairs (the body
// itself included, as the kernels compute it; direct: N^2).
struct Interactions {
    std::uint64_t cells = 0;
    std::uint64_t bodies = 0;
    std::uint64_t total() const { return cells + bodies; }
};

// The hybrid split of the last step.
struct HybridStatus {
    double virtual_threads = 0.0;
    int cpu_threads = 0;
    double cpu_share = 0.0;         // of the estimated work, used for the last step
    std::uint32_t cpu_groups = 0;   // groups of 32 bodies walked on the CPU
    std::uint32_t groups = 0;
    double cpu_seconds = 0.0;       // the CPU's walk, its wait for the tree and its upload
    double gpu_seconds = 0.0;       // the device's walk
};

// Relative force errors |a - a_ref| / |a_ref| of the solver's accelerations against a direct
// sum accumulated in double precision, over `samples` bodies drawn at random.
struct ForceErrorStats {
    std::size_t samples = 0;
    double median = 0.0;
    double p90 = 0.0;
    double p99 = 0.0;
    double max = 0.0;
    double mean = 0.0;
};

struct SolverState;

class Solver {
public:
    // Uploads the bodies (validated: UsageError) and computes the first accelerations. Across
    // ranks (`comm` of several; docs/NBODY.md, "Across GPUs") every rank passes its share of
    // the bodies (any share: the tree moves each body to the rank owning its part of the
    // curve) and every call below is collective unless it says otherwise.
    Solver(const Backend& backend, const NbodyParams& params, const Bodies& bodies, std::int64_t step = 0,
           double time = 0.0, SolverOptions options = {},
           const dist::Communicator& comm = dist::Communicator::single());
    ~Solver();
    Solver(const Solver&) = delete;
    Solver& operator=(const Solver&) = delete;

    // One leapfrog step. NumericalError naming a body when a position becomes non-finite.
    void step();

    std::int64_t step_count() const;
    double time() const;     // model time unit
    double last_dt() const;  // 0 before the first step
    std::size_t size() const;        // this rank's bodies (not collective)
    std::size_t total_size() const;  // every rank's (not collective)
    std::size_t capacity() const;    // the most bodies this rank can hold (not collective)
    const NbodyParams& params() const;
    const Backend& backend() const;

    // This rank's bodies in the solver's current order (along the curve for the tree).
    // Synchronises (not collective).
    Bodies download() const;
    // (a_x, a_y, a_z, 0) per body from the last force evaluation, in the same order.
    std::vector<Vec4f> download_accelerations() const;
    // (a_x, a_y, a_z, phi) at the current positions, computed by compute_potential().
    std::vector<Vec4f> download_potentials();

    // Accelerations and potentials at the current positions into the potential buffer (a
    // second force evaluation; the tree of the last step is reused). Done once per state.
    void compute_potential();
    Diagnostics diagnostics();
    ForceErrorStats force_error(std::size_t samples, std::uint64_t seed);
    Interactions last_interactions();
    HybridStatus hybrid_status() const;
    // Across ranks: max/mean of the ranks' force walk times in the last step (1 on one rank),
    // and the bodies that changed rank in its migration (not collective).
    double imbalance() const;
    std::uint64_t migrated() const;

    PhaseProfile& profile();
    std::size_t device_bytes() const;

    // A field of the current state on the backend (nbody/fields.hpp: acceleration is the last
    // step's, potential compute_potential()'s), size() records, in the solver's order; valid
    // until the next step() (frame capture).
    DeviceBytes field_bytes(int field) const;

private:
    std::unique_ptr<SolverState> state_;
};

}  // namespace partikel::nbody
