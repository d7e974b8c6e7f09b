// The solver's state on the backend (nbody/solver.hpp); shared by solver.cpp (host side) and
// solver_impl.hpp (the step, written once for both backends).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "base/hd.hpp"
#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/event.hpp"
#include "core/fields.hpp"
#include "core/timer.hpp"
#include "core/workspace.hpp"
#include "dist/communicator.hpp"
#include "nbody/fields.hpp"
#include "nbody/hybrid.hpp"
#include "nbody/solver.hpp"
#include "nbody/tree.hpp"

namespace partikel::nbody {

// One-pass sums for the diagnostics (a struct reduction; across ranks, every rank's folded in
// rank order).
struct Moments {
    double kinetic;
    double potential;
    double mass;
    double momentum[3];
    double angular_momentum[3];
    double mass_moment[3];  // sum m x

    PK_HD static Moments combine(const Moments& a, const Moments& b) {
        Moments r;
        r.kinetic = a.kinetic + b.kinetic;
        r.potential = a.potential + b.potential;
        r.mass = a.mass + b.mass;
        for (int k = 0; k < 3; ++k) {
            r.momentum[k] = a.momentum[k] + b.momentum[k];
            r.angular_momentum[k] = a.angular_momentum[k] + b.angular_momentum[k];
            r.mass_moment[k] = a.mass_moment[k] + b.mass_moment[k];
        }
        return r;
    }
};

// The host copies and timers of the hybrid walk.
struct HybridState {
    Backend copy_queue;
    Event tree_ready, tree_copied, results_uploaded;
    DeviceTimer gpu_timer;
    VirtualThreads threads;
    DeviceBuffer<std::uint32_t> load_prefix, first_gpu_group;
    PinnedBuffer<Vec4f> bodies, com_mass, cube, quad, accel;
    PinnedBuffer<NodeLinks> links;
    PinnedBuffer<float> quad_yz;
    PinnedBuffer<std::uint32_t> load_prefix_host, first_gpu_group_host, cells, pairs;
    HybridStatus status;

    HybridState(const Backend& backend, std::size_t bodies, std::size_t max_nodes, const HybridParams& params,
                int cpu_threads);
};

// The solver across ranks (docs/NBODY.md, "Across GPUs"; absent on one rank). The tree:
// each rank keeps its own bodies, sorted along the curve within its range of keys
// (nbody/partition.hpp), and the tree of every rank's bodies, built on every rank from their
// positions and keys all-gathered in curve order; it walks only its own. The direct sum: each
// rank keeps the bodies it started with, and the others' pass round a ring.
struct RankState {
    dist::Communicator comm;
    int rank = 0;
    int size = 1;
    std::size_t capacity = 0;           // bodies this rank can hold (the field arrays' rows)
    std::size_t total = 0;              // bodies of every rank
    std::vector<std::size_t> first;     // size + 1: where each rank's bodies start along the curve
    std::vector<std::uint64_t> splitters;          // size + 1 keys (partition.hpp)
    DeviceBuffer<std::uint64_t> splitters_device;
    DeviceBuffer<std::uint32_t> split_rows;        // size + 1: each rank's rows in the sorted keys
    DeviceBuffer<Vec4f> all_bodies;                // every rank's (x, y, z, m) along the curve
    DeviceBuffer<std::uint64_t> all_keys;          // their keys (tree)
    // Bodies that arrived in a migration, merged with the stayers into curve order.
    DeviceBuffer<std::uint64_t> arrived_keys, arrived_keys_sorted, merged_keys;
    DeviceBuffer<std::uint32_t> arrived_rows, arrived_order, merged_order;
    DeviceBuffer<Vec4f> ring[2];                   // direct: the sources in flight
    DeviceTimer walk_timer;                        // this rank's force walk (or direct sum)
    std::vector<double> walk_seconds;              // every rank's, the last step
    std::uint64_t migrated = 0;                    // bodies that changed rank in the last step, all ranks
    std::vector<dist::SendBytes> sends;            // an exchange's lists (kept: no allocation per step)
    std::vector<dist::ReceiveBytes> receives;

    // `counts`: every rank's bodies at the start.
    RankState(const Backend& backend, dist::Communicator comm, const NbodyParams& params,
              std::span<const std::uint64_t> counts, std::size_t capacity);
};

// The split follows the walk times half way each step, and gives a rank at most this share of
// its capacity, leaving room for a migration's arrivals (docs/NBODY.md, "Across GPUs").
inline constexpr double kBalanceDamping = 0.5;
inline constexpr double kBalanceShare = 0.8;

struct SolverState {
    Backend backend;
    NbodyParams params;
    SolverOptions options;
    std::size_t n = 0;
    std::int64_t step = 0;
    double time = 0.0;
    double last_dt = 0.0;

    FieldArrays fields;                    // nbody/fields.hpp, in the solver's order (the curve's for the tree)
    DeviceBuffer<Vec4f> direct_partial;    // the direct sum's slices (CUDA)
    DeviceBuffer<BoundingBox> box;
    DeviceBuffer<Moments> moments;
    DeviceBuffer<std::uint32_t> group_cells, group_pairs;  // per group of the walk
    DeviceBuffer<std::uint64_t> interaction_sums;          // cells, pairs
    // Lagrangian radii: radii (as float bits) sorted with the bodies' indices, cumulative mass.
    DeviceBuffer<std::uint32_t> radius_key, radius_key_sorted, radius_index, radius_order;
    DeviceBuffer<double> cumulative_mass;
    DeviceBuffer<float> lagrangian;  // 3 radii
    std::optional<Octree> tree;
    std::optional<HybridState> hybrid;
    std::optional<RankState> ranks;  // several ranks only
    Workspace workspace;
    PhaseProfile profile;
    bool potential_current = false;

    // n bodies here, counts[r] on rank r, `total` in all, room for `capacity` here.
    SolverState(const Backend& backend, const NbodyParams& params, SolverOptions options, std::size_t n,
                const dist::Communicator& comm, std::span<const std::uint64_t> counts, std::size_t total,
                std::size_t capacity);

    Vec3d* position() { return fields.data<Vec3d>(field::position); }
    Vec3d* velocity() { return fields.data<Vec3d>(field::velocity); }
    Vec4f* body() { return fields.data<Vec4f>(field::body); }
    Vec4f* accel() { return fields.data<Vec4f>(field::acceleration); }
    Vec4f* potential() { return fields.data<Vec4f>(field::potential); }
    // The bodies the tree is built from (every rank's), their count, and where this rank's start.
    const Vec4f* tree_bodies() { return ranks ? ranks->all_bodies.data() : body(); }
    std::size_t tree_size() const { return ranks ? ranks->total : n; }
    std::size_t first_own() const { return ranks ? ranks->first[std::size_t(ranks->rank)] : 0; }
};

// The step and the diagnostics, written once (solver_impl.hpp; instantiated in solver_cpu.cpp
// and solver_cuda.cu).
template <class Exec> std::size_t workspace_bytes(const Exec& exec, std::size_t n);
template <class Exec> void compute_forces(const Exec& exec, SolverState& s);
template <class Exec> void advance(const Exec& exec, SolverState& s);
template <class Exec> void potential_pass(const Exec& exec, SolverState& s);
template <class Exec> Diagnostics compute_diagnostics(const Exec& exec, SolverState& s);
template <class Exec> Interactions count_interactions(const Exec& exec, SolverState& s);
template <class Exec>
void reference_accelerations(const Exec& exec, SolverState& s, const std::uint32_t* samples, std::size_t count,
                             Vec4f* targets, Vec4f* reference, Vec4f* solver_values, Vec4f* partial);
template <class Exec> std::size_t reference_partial_capacity(const Exec& exec, std::size_t count);

}  // namespace partikel::nbody
