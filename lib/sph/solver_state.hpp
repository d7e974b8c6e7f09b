// The solver's device-resident state, shared by solver.cpp (CPU instantiation, host API) and
// solver.cu (CUDA instantiation). No backend includes.
#pragma once

#include <cstdint>

#include "core/buffer.hpp"
#include "core/timer.hpp"
#include "core/workspace.hpp"
#include "frnn/cell_grid.hpp"
#include "sph/solver.hpp"

namespace partikel::sph {

struct SolverState {
    SolverState(const Backend& backend, const SphParams& params, std::size_t capacity, SolverOptions options);

    Backend backend;
    SphParams params;
    SolverOptions options;
    std::size_t capacity;  // particles allocated for
    std::size_t n = 0;     // particles simulated (shrinks when particles leave the domain)

    frnn::CellGrid grid;
    Workspace workspace;
    PhaseProfile profile;

    // Per-particle arrays in cell order. *_t hold the state at the start of the step (midpoint,
    // symplectic) or of the previous step (Verlet).
    DeviceBuffer<Vec3f> pos, vel, pos_t, vel_t, acc, xsph;
    DeviceBuffer<float> rho, rho_t, drho, mass, dt_candidate;
    DeviceBuffer<std::uint64_t> id;
    DeviceBuffer<std::uint8_t> kind;
    // Neighbour records: position with the mass in w (negated for boundary particles), velocity
    // with the density in w, and the pressure term P/rho^2. Written by every grid build's gather
    // (kern::GatherState) and, when stale, before a neighbour pass (kern::PackNeighborRecords).
    DeviceBuffer<Vec4f> pos_mass, vel_rho;
    DeviceBuffer<float> p_over_rho2;
    // The records match pos, vel, rho, mass and kind. Everything that writes those (integrators,
    // Shepard, compaction) clears it; the gather sets it.
    bool records_current = false;
    // One spare per element type: a gather writes into the spare, then swaps it in.
    DeviceBuffer<Vec3f> spare_vec3;
    DeviceBuffer<float> spare_float;
    DeviceBuffer<std::uint64_t> spare_u64;
    DeviceBuffer<std::uint8_t> spare_u8;
    DeviceBuffer<std::uint32_t> keep, keep_offset;  // compaction when particles leave
    DeviceBuffer<float> terrain_height;
    // Reduction results (device memory, read back once per step or per diagnostics call).
    DeviceBuffer<float> reduced_float;
    DeviceBuffer<double> reduced_double;
    DeviceBuffer<std::uint64_t> reduced_u64;

    std::int64_t step = 0;
    double time = 0.0;
    double dt = 0.0;
    std::uint64_t removed = 0;
    bool previous_valid = false;  // Verlet: pos_t/vel_t/rho_t hold the previous step
    Vec3d wall_impulse{0.0, 0.0, 0.0};  // N s, SolverOptions::track_wall_impulse
};

// The step's entry points (solver_impl.hpp), instantiated by solver_cpu.cpp and solver_cuda.cu.
template <class Exec> void sort_by_cell(const Exec& exec, SolverState& s, bool with_step_start);
template <class Exec> void advance(const Exec& exec, SolverState& s);
template <class Exec> Diagnostics compute_diagnostics(const Exec& exec, SolverState& s);
template <class Exec> std::size_t workspace_bytes(const Exec& exec, std::size_t capacity);

}  // namespace partikel::sph
