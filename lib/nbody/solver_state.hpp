// The solver's state on the backend (nbody/solver.hpp); shared by solver.cpp (host side) and
// solver_impl.hpp (the step, written once for both backends).
#pragma once

#include <cstdint>
#include <optional>

#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/event.hpp"
#include "core/fields.hpp"
#include "core/timer.hpp"
#include "core/workspace.hpp"
#include "nbody/fields.hpp"
#include "nbody/hybrid.hpp"
#include "nbody/solver.hpp"
#include "nbody/tree.hpp"

namespace partikel::nbody {

// One-pass sums for the diagnostics (a struct reduction).
struct Moments {
    double kinetic;
    double potential;
    double mass;
    double momentum[3];
    double angular_momentum[3];
    double mass_moment[3];  // sum m x
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
    Workspace workspace;
    PhaseProfile profile;
    bool potential_current = false;

    SolverState(const Backend& backend, const NbodyParams& params, SolverOptions options, std::size_t n);

    Vec3d* position() { return fields.data<Vec3d>(field::position); }
    Vec3d* velocity() { return fields.data<Vec3d>(field::velocity); }
    Vec4f* body() { return fields.data<Vec4f>(field::body); }
    Vec4f* accel() { return fields.data<Vec4f>(field::acceleration); }
    Vec4f* potential() { return fields.data<Vec4f>(field::potential); }
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
