// The solver's device-resident state, shared by solver.cpp (host API) and solver_impl.hpp (the
// step, instantiated by solver_cpu.cpp and solver_cuda.cu). No backend includes.
#pragma once

#include <array>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "core/buffer.hpp"
#include "core/event.hpp"
#include "core/fields.hpp"
#include "core/timer.hpp"
#include "core/workspace.hpp"
#include "dist/particle_exchange.hpp"
#include "frnn/cell_grid.hpp"
#include "sph/fields.hpp"
#include "sph/solver.hpp"

namespace partikel::sph {

// Diagnostics of the fluid reduced in one pass and read back with one synchronisation: sums,
// extrema and counts together (core/reduce_ops.hpp, CombineOp).
struct DiagnosticSums {
    double kinetic_J;
    double potential_J;
    float max_speed;
    float min_density, max_density;
    Vec3f fluid_max;  // m
    std::uint64_t fluid;
    Vec3d momentum;   // kg m/s
    static PK_HD DiagnosticSums identity() {
        const float inf = __builtin_huge_valf();
        return {0.0, 0.0, 0.0f, inf, -inf, {-inf, -inf, -inf}, 0, {0.0, 0.0, 0.0}};
    }
    static PK_HD DiagnosticSums combine(const DiagnosticSums& a, const DiagnosticSums& b) {
        return {a.kinetic_J + b.kinetic_J,
                a.potential_J + b.potential_J,
                a.max_speed > b.max_speed ? a.max_speed : b.max_speed,
                b.min_density < a.min_density ? b.min_density : a.min_density,
                a.max_density < b.max_density ? b.max_density : a.max_density,
                {a.fluid_max.x < b.fluid_max.x ? b.fluid_max.x : a.fluid_max.x,
                 a.fluid_max.y < b.fluid_max.y ? b.fluid_max.y : a.fluid_max.y,
                 a.fluid_max.z < b.fluid_max.z ? b.fluid_max.z : a.fluid_max.z},
                a.fluid + b.fluid,
                a.momentum + b.momentum};
    }
};

// mdbc on the GPU: the fluid-boundary pairs a row's list holds (SolverState::wall_pair_index). A
// fluid particle above a flat wall of one layer at h = sqrt(3) dx has about 35 boundary neighbours
// in the first layer, 25 in the second, 10 in the third; 40 hold 97.6% of the 101k rows of the 1M
// dam break with obstacle (t = 0), the rest (edges, corners) are searched again. 160 B a particle;
// 0: every row searched, none of that memory (docs/PERFORMANCE.md).
inline constexpr std::uint32_t kWallPairCapacity = 40;

// The snow models' neighbour-list skin, as a fraction of h (SolverState::lists_valid).
inline constexpr float kNeighborListSkin = 0.2f;

// Several ranks (RankOptions): the ghosts, the halo and migration plans and the load balancing.
// Unused with one rank.
struct RankState {
    dist::Communicator communicator = dist::Communicator::single();
    dist::SlabDecomposition slabs;
    int balance_every = 0;
    std::unique_ptr<dist::ParticleExchange> exchange;
    // Over the ghosts from lower and from higher ranks, the owned grid's geometry, each windowed
    // to its own side's ghosts: a grid over the whole slab would clear and scan every cell of it
    // at every halo for the few layers that hold ghosts.
    std::array<std::unique_ptr<frnn::CellGrid>, 2> ghost_grids;  // below, above
    DeviceBuffer<Vec3f> ghost_positions;  // m, the ghosts' positions in arrival order
    DeviceBuffer<std::uint32_t> ghost_order;  // ghost row n + k takes received record ghost_order[k]
    std::size_t ghosts = 0;                   // rows [n, n + ghosts)
    std::size_t ghosts_from_below = 0;        // of them, from lower ranks: rows [n, n + ghosts_from_below)
    float reach = 0.0f;                          // m, the halo's (the search radius, widened)
    std::size_t migration_rows = 0;              // rows one migration's buffers hold
    float ghosts_below = 0.0f, ghosts_above = 0.0f;  // m, GhostCells' walk bounds
    // The halo overlap (RankOptions::overlap_halo): a reorder marks the halo due and its work
    // for halo_queue (rows_ready); the next neighbour pass first computes the rows strictly
    // between interior_lo and interior_hi along the slab axis (foreseen from the last plan to
    // need no ghost) while the halo is planned, packed, sent and its ghost grids built on
    // halo_queue, then the rest with the ghosts (sph/solver_impl.hpp: neighbor_pass,
    // complete_halo).
    bool overlap_halo = true;
    std::optional<Backend> halo_queue;  // a high-priority stream of the rank's device
    std::optional<Event> rows_ready, ghosts_ready;  // backend -> halo_queue, and back
    bool halo_due = false;
    dist::Extent halo_window{};              // where the reorder's grid foresaw the rows
    float interior_lo = 0.0f, interior_hi = 0.0f;  // m
    std::uint64_t global_n = 0;
    // Compute time (the neighbour passes, on the device) since the last balance, and the
    // slowest rank's over the mean then.
    std::vector<DeviceTimer> pass_timers;
    int timers_used = 0;
    double compute_s = 0.0;
    std::int64_t measured_steps = 0;
    double imbalance = 1.0;
};

struct SolverState {
    // `all_particles`: of every rank (the grid's subdivision rule counts them all).
    // `boundary_normals`: the field boundary_normal is kept (mdbc).
    SolverState(const Backend& backend, const SphParams& params, std::size_t capacity, SolverOptions options,
                const RankOptions& ranks, std::uint64_t all_particles, bool boundary_normals);

    Backend backend;
    SphParams params;
    SolverOptions options;
    std::size_t capacity;  // particles allocated for
    std::size_t n = 0;     // particles simulated (shrinks when particles leave the domain)
    std::size_t boundary_count = 0;  // boundary particles (never removed), of every rank

    frnn::CellGrid grid;
    FieldArrays fields;  // sph/fields.hpp, in the grid's cell order
    Workspace workspace;
    PhaseProfile profile;

    // The neighbour records match the state fields. Everything that writes the state
    // (integrators, Shepard, compaction) clears it; a reorder's gather writes them and sets it.
    bool records_current = false;
    DeviceBuffer<float> terrain_height;
    // The snow models' neighbour lists (neighbor_pass.hpp, NeighborLists): neighbor_capacity
    // entries per particle, none for the other models. They hold the neighbours within
    // h (1 + kNeighborListSkin) at the search, and serve the steps after it, without a reorder,
    // until a particle has moved half the skin from listed_position (the Leapfrog raises
    // `relist`), a particle leaves, or the state is handed out (a frame: a restart point, so the
    // next step sorts and searches afresh, as a run restarted from that frame does).
    std::uint32_t neighbor_capacity = 0;
    DeviceBuffer<std::uint32_t> neighbor_count;
    DeviceBuffer<std::uint32_t> neighbor_index;
    DeviceBuffer<Vec3f> listed_position;  // m, the positions at the search
    DeviceBuffer<std::uint32_t> relist;   // 1: a particle moved half the skin since
    bool lists_valid = false;
    // mdbc: every row in cell order (rebuilt at every reorder), mDBC's first: the boundary
    // particles with a wall normal, mdbc_rows_count of them, the mDBC pass's rows; then the others
    // (the fluid's, and boundary particles without a normal, which keep the dynamic boundary
    // conditions), the rates pass's (solver_impl.hpp, rates_row_subset). The rows of the virtual
    // layers' pass (rates.hpp, VirtualLayerRates), which the rates pass flags, listed after it in
    // their cell order. And the scan that builds each list from its flags (capacity + 1 entries).
    DeviceBuffer<std::uint32_t> mdbc_rows;
    DeviceBuffer<std::uint32_t> virtual_layer_rows;
    DeviceBuffer<std::uint32_t> row_offsets;
    // mdbc: each flagged row's fluid-boundary pairs, as the rates pass found them, for the virtual
    // layers' pass (VirtualLayers::pair_count, pair_index): wall_pair_capacity neighbours a row
    // (kWallPairCapacity on the GPU; the CPU's pair loop lists none).
    DeviceBuffer<std::uint32_t> wall_pair_count;
    DeviceBuffer<std::uint32_t> wall_pair_index;
    std::uint32_t wall_pair_capacity = 0;
    std::uint64_t virtual_layer_walls = 0;  // boundary particles with virtual layers (scan_virtual_layers)
    std::size_t mdbc_rows_count = 0;
    bool mdbc_rows_counted = false;  // the count is read back once (list_mdbc_rows)
    bool cell_ordered = false;  // the fields are in the cell order of a grid built on the positions
    // Reduction results (device memory, read back once per step or per diagnostics call).
    DeviceBuffer<float> reduced_dt;
    DeviceBuffer<std::uint64_t> reduced_status;
    DeviceBuffer<Vec3d> reduced_wall_force;
    DeviceBuffer<DiagnosticSums> reduced_diagnostics;

    std::int64_t step = 0;
    double time = 0.0;
    double dt = 0.0;
    std::uint64_t removed = 0;
    bool previous_valid = false;  // Verlet: the *_previous fields hold the previous step
    Vec3d wall_impulse{0.0, 0.0, 0.0};  // N s, SolverOptions::track_wall_impulse

    RankState ranks;
    bool distributed() const { return ranks.communicator.size() > 1; }
    // Several ranks: this rank's status after a step (particles that stop the run, that were
    // removed), voted on by the migration that follows (its all-gather carries it) rather than
    // by an all-reduce of its own; the step and time it describes, for the message.
    struct StatusVote {
        std::uint64_t stopping = 0, removed = 0;
        std::int64_t step = 0;
        double time = 0.0;
    };
    std::optional<StatusVote> pending_status;
    // Several ranks: the run loop's vote to stop (Solver::step), asked for at the Δt all-reduce,
    // and the largest of every rank's.
    const std::function<std::int32_t()>* stop_vote = nullptr;
    std::int32_t agreed_stop = 0;

    template <class T> T* f(int which) { return fields.data<T>(which); }
    template <class T> const T* f(int which) const { return fields.data<T>(which); }
};

// The step's entry points (solver_impl.hpp), instantiated by solver_cpu.cpp and solver_cuda.cu.
template <class Exec> void sort_by_cell(const Exec& exec, SolverState& s, bool in_step);
template <class Exec> void advance(const Exec& exec, SolverState& s);
template <class Exec> void estimate_boundary_normals(const Exec& exec, SolverState& s);
template <class Exec> void scan_virtual_layers(const Exec& exec, SolverState& s);
template <class Exec> Diagnostics compute_diagnostics(const Exec& exec, SolverState& s);
template <class Exec> std::size_t workspace_bytes(const Exec& exec, std::size_t capacity);

}  // namespace partikel::sph
