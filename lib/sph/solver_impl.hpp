// The solver's step, written once against an Exec policy and instantiated by solver_cpu.cpp
// (CpuExec) and solver_cuda.cu (CudaExec): reorder into cell order, the neighbour passes
// (neighbor_pass.hpp with the interactions of rates.hpp), the integrators (integrators.hpp), the
// time-step and status reductions, and the diagnostics. Indices a, b are positions in the
// cell-ordered fields; symbols follow Werner (2015), chapter 3.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "base/log.hpp"
#include "core/fast_math.hpp"
#include "core/fields_impl.hpp"
#include "core/reduce_ops.hpp"
#include "sph/boundary.hpp"
#include "sph/integrators.hpp"
#include "sph/neighbor_pass.hpp"
#include "sph/rates.hpp"
#include "sph/snow.hpp"
#include "sph/sps.hpp"
#include "sph/solver_state.hpp"

namespace partikel::sph {

namespace kern {

// The reorder's epilogue: the neighbour records of row k, from the state as it was at row
// `from` (the values the gather just moved; read where they are, in L1).
struct RecordsFromState {
    const Vec3f* position;
    const Vec3f* velocity;
    const float* density;
    const float* mass;
    const std::uint8_t* kind;
    NeighborRecords records;
    PK_DEVICE_INLINE void operator()(std::size_t k, std::uint32_t from) const {
        records.write(k, position[from], velocity[from], density[from], mass[from], kind[from]);
    }
};

// The records from the state as it stands (after a Shepard pass changed densities).
struct PackRecords {
    RecordsFromState from_state;
    PK_DEVICE_INLINE void operator()(std::size_t a) const { from_state(a, static_cast<std::uint32_t>(a)); }
};

// The status of a particle after a step, as a reduction value: bit 32 and up counts particles
// with a non-finite state or a runaway speed (the run must stop), the low bits count fluid
// particles outside the domain plus margin on non-periodic axes (removed).
struct ParticleStatus {
    const Vec3f* position;
    const Vec3f* velocity;
    const float* density;
    const std::uint8_t* kind;
    Vec3f lo, hi;  // m, domain widened by the margin; periodic axes: -inf/+inf
    float runaway_speed2;
    float density_lo, density_hi;  // kg/m^3, SphParams::density_min/max; off: 0 and +inf
    static constexpr std::uint64_t kStop = std::uint64_t{1} << 32;
    // kStop stops the run (NaN, runaway); 1 removes the particle (a fluid particle outside the
    // domain or, before its speed runs away, outside the density limits).
    PK_DEVICE_INLINE std::uint64_t operator()(std::size_t a) const {
        const Vec3f r = position[a], v = velocity[a];
        const float d = density[a];
        const float v2 = norm2(v);
        const bool finite = is_finite(r.x) && is_finite(r.y) && is_finite(r.z) && is_finite(v2) && is_finite(d) && d > 0.0f;
        if (!finite) return kStop;
        const bool fluid = kind[a] == kFluidKind;
        if (fluid && !(d >= density_lo && d <= density_hi)) return 1u;
        if (v2 > runaway_speed2) return kStop;
        const bool inside = r.x >= lo.x && r.x <= hi.x && r.y >= lo.y && r.y <= hi.y && r.z >= lo.z && r.z <= hi.z;
        return (inside || !fluid) ? 0u : 1u;
    }
};

// The ghosts' positions from their position records (arrival order), for the ghost grid.
struct RecordPositions {
    const Vec4f* records;
    Vec3f* positions;
    PK_DEVICE_INLINE void operator()(std::size_t k) const { positions[k] = records[k].xyz(); }
};

// Ghost row n + k's received record: the lower ranks' ghosts (the first `below` received) in
// their grid's cell order, then the higher ranks' in theirs.
struct GhostOrder {
    const std::uint32_t* below_order;
    const std::uint32_t* above_order;
    std::uint32_t below;
    std::uint32_t* order;
    PK_DEVICE_INLINE void operator()(std::size_t k) const {
        order[k] = k < below ? below_order[k] : below + above_order[k - below];
    }
};

// mdbc's lists of rows (SolverState::mdbc_rows, virtual_layer_rows): a flag per row (a boundary
// particle with a wall normal; a row the rates pass flagged), scanned into each flagged row's
// place at the front of the list and, with `others`, each other row's after them, then the rows
// written there.
struct MdbcRowFlags {
    const std::uint8_t* kind;
    const Vec3f* boundary_normal;
    std::uint32_t* flags;
    PK_DEVICE_INLINE void operator()(std::size_t a) const {
        flags[a] = kind[a] != kFluidKind && has_wall_normal(boundary_normal[a]) ? 1u : 0u;
    }
};
struct ListRows {
    const std::uint32_t* offsets;  // the flags' exclusive scan, n + 1 entries
    std::size_t n;
    std::uint32_t* rows;
    bool others;
    PK_DEVICE_INLINE void operator()(std::size_t a) const {
        const std::uint32_t before = offsets[a];
        const bool flagged = offsets[a + 1] != before;
        if (flagged)
            rows[before] = static_cast<std::uint32_t>(a);
        else if (others)
            rows[offsets[n] + (static_cast<std::uint32_t>(a) - before)] = static_cast<std::uint32_t>(a);
    }
};

// 1 for a boundary particle with virtual wall layers (mdbc), for their count.
struct HasVirtualLayers {
    const Vec4f* layers;
    PK_DEVICE_INLINE std::uint64_t operator()(std::size_t a) const { return layers[a].w > 0.0f ? 1u : 0u; }
};

struct Remains {
    ParticleStatus status;
    PK_DEVICE_INLINE bool operator()(std::size_t a) const { return status(a) == 0; }
};

// One particle's share of the diagnostics (fluid only; boundary particles give the identity).
struct DiagnosticsOf {
    const Vec3f* position;
    const Vec3f* velocity;
    const float* density;
    const float* mass;
    const std::uint8_t* kind;
    Vec3f gravity;
    PK_DEVICE_INLINE DiagnosticSums operator()(std::size_t a) const {
        if (kind[a] != kFluidKind) return DiagnosticSums::identity();
        const Vec3f r = position[a], v = velocity[a];
        const double m = mass[a];
        const float d = density[a];
        return {0.5 * m * double(norm2(v)),
                -m * double(dot(gravity, r)),
                norm(v),
                d,
                d,
                r,
                1u,
                {m * double(v.x), m * double(v.y), m * double(v.z)}};
    }
};

// The force of the walls on the fluid at the state of the last rates pass: the reaction of the
// boundary particles' momentum sums (the rates pass's acceleration of boundary particles) and
// the repulsive volumes' force on fluid particles.
struct WallForce {
    const Vec3f* position;
    const Vec3f* velocity;
    const Vec3f* acceleration;
    const float* mass;
    const std::uint8_t* kind;
    BoundaryVolumes volumes;
    PK_DEVICE_INLINE Vec3d operator()(std::size_t a) const {
        const double m = mass[a];
        if (kind[a] == kFluidKind) {
            const Vec3f f = volumes.acceleration(position[a], velocity[a]);
            return {m * double(f.x), m * double(f.y), m * double(f.z)};
        }
        const Vec3f f = acceleration[a];
        return {-m * double(f.x), -m * double(f.y), -m * double(f.z)};
    }
};

}  // namespace kern

template <class Exec> std::size_t workspace_bytes(const Exec& exec, std::size_t capacity) {
    std::size_t bytes = exec.template reduce_scratch_bytes<float, MinOp>(capacity);
    bytes = std::max(bytes, exec.template reduce_scratch_bytes<std::uint64_t, SumOp>(capacity));
    bytes = std::max(bytes, exec.template reduce_scratch_bytes<Vec3d, SumOp>(capacity));
    bytes = std::max(bytes, exec.template reduce_scratch_bytes<DiagnosticSums, CombineOp>(capacity));
    bytes = std::max(bytes, FieldArrays::compact_scratch_bytes(exec, capacity));
    bytes = std::max(bytes, exec.template exclusive_sum_scratch_bytes<std::uint32_t>(capacity + 1));
    return bytes;
}

namespace detail {

inline frnn::PeriodicWrap periodic_wrap(const SphParams& p) {
    frnn::PeriodicWrap w{0, p.domain_min, p.domain_max - p.domain_min};
    for (int k = 0; k < 3; ++k)
        if (p.faces[2 * k] == Face::periodic) w.mask |= std::uint8_t(1u << k);
    return w;
}

// Displacement over [t0, t1] and velocity at t1 of moving boundary particles.
inline BoundaryStage boundary_stage(const SphParams& p, double t0, double t1) {
    const BoundaryMotion& m = p.boundary_motion;
    const double omega = 2.0 * std::numbers::pi / m.period_s;
    const double ds = std::sin(omega * t1) - std::sin(omega * t0);
    const double vc = omega * std::cos(omega * t1);
    const double T = m.duration_s;
    const double travel = std::min(t1, T) - std::min(t0, T);  // of the steady part
    const double moving = t1 < T ? 1.0 : 0.0;
    const Vec3f A = m.amplitude_m, V = m.velocity_m_s;
    return {{float(A.x * ds + V.x * travel), float(A.y * ds + V.y * travel), float(A.z * ds + V.z * travel)},
            {float(A.x * vc + V.x * moving), float(A.y * vc + V.y * moving), float(A.z * vc + V.z * moving)}};
}

inline BoundaryVolumes boundary_volumes(const SolverState& s, double t) {
    const SphParams& p = s.params;
    BoundaryVolumes v;
    v.lo = p.domain_min;
    v.hi = p.domain_max;
    for (int f = 0; f < 6; ++f)
        if (p.faces[f] == Face::wall) v.wall_mask |= std::uint8_t(1u << f);
    const float c = sound_speed(p);
    v.K = p.wall_stiffness * (c / p.h_m) * (c / p.h_m);
    v.D = p.wall_damping * 2.0f * std::sqrt(v.K);
    if (p.wave_maker.face >= 0) {
        const double omega = 2.0 * std::numbers::pi / p.wave_maker.period_s;
        const float inward = p.wave_maker.face % 2 == 0 ? 1.0f : -1.0f;
        v.wave_face = p.wave_maker.face;
        v.wave_offset = inward * float(p.wave_maker.amplitude_m * std::sin(omega * t));
        v.wave_velocity = inward * float(p.wave_maker.amplitude_m * omega * std::cos(omega * t));
    }
    if (!p.terrain.empty()) {
        const TerrainContact& c = p.terrain_contact;
        v.terrain = terrain_view(s.terrain_height.data(), p.terrain, c.tile_m);
        v.terrain_law = c.law;
        v.Ks = c.stiffness;
        v.Kd = c.damping;
        v.Kf = c.friction;
        v.friction_height = c.friction_height_m;
    }
    return v;
}

inline NeighborRecords neighbor_records(SolverState& s) {
    const SphParams& p = s.params;
    return {TaitEos::from_sound_speed(p.rho0, p.c0, p.gamma), s.f<Vec4f>(field::record_position_mass),
            s.f<Vec4f>(field::record_velocity_density), s.f<float>(field::record_pressure_term)};
}

inline kern::RecordsFromState records_from_state(SolverState& s) {
    return {s.f<Vec3f>(field::position), s.f<Vec3f>(field::velocity), s.f<float>(field::density),
            s.f<float>(field::mass),     s.f<std::uint8_t>(field::kind), neighbor_records(s)};
}

inline StageRates stage_rates(SolverState& s) {
    return {s.f<Vec3f>(field::acceleration), s.f<Vec3f>(field::xsph_velocity), s.f<float>(field::density_rate)};
}

// Several ranks: the ghosts' copies of `fields` from their owners (the same lists as the last
// halo plan), into the ghost rows in ghost cell order.
template <class Exec> void complete_halo(const Exec& exec, SolverState& s);
template <class Exec> void refresh_ghosts(const Exec& exec, SolverState& s, std::uint64_t fields) {
    if (!s.distributed()) return;
    complete_halo(exec, s);
    auto scope = s.profile.phase("halo");
    RankState& r = s.ranks;
    r.exchange->exchange_halo(exec, s.fields, fields);
    r.exchange->unpack_halo(exec, s.fields, s.n, r.ghost_order.data());
}

// Refresh the neighbour records from the state before a neighbour pass, unless they are current
// (written by the last reorder's gather, nothing changed since); the ghosts' with them.
template <class Exec> void pack_neighbor_records(const Exec& exec, SolverState& s) {
    if (s.records_current) return;
    s.records_current = true;
    {
        auto scope = s.profile.phase("pack");
        exec.for_each(s.n, kern::PackRecords{records_from_state(s)}, "sph.pack");
    }
    refresh_ghosts(exec, s, kRecordFields);
}

// A particle further than the reach (and a margin for rounding) from every ghost of a side
// skips that side's grid.
constexpr float kGhostWalkMargin = 1.05f;

// Several ranks: the halo after a reorder that moved positions is due. `window`: where the
// owned grid's window foresaw the rows (ParticleExchange::window). Without the overlap it is
// built at once; with it, the reorder's work is marked for the halo queue, and the next
// neighbour pass builds it while it computes the rows that need no ghost (neighbor_pass):
// those between the ghosts' bounds foreseen from the last plan, widened by the reach.
template <class Exec> void begin_halo(const Exec& exec, SolverState& s, dist::Extent window) {
    RankState& r = s.ranks;
    r.halo_window = window;
    r.halo_due = true;
    if (!r.overlap_halo) return complete_halo(exec, s);
    const auto foreseen = r.exchange->foreseen_ghost_bounds(r.slabs, r.reach);
    r.interior_lo = foreseen.below + kGhostWalkMargin * r.reach;
    r.interior_hi = foreseen.above - kGhostWalkMargin * r.reach;
    r.rows_ready->record(s.backend);
}

// Builds the halo when it is due. Each rank lists its rows within the reach of another rank's
// extent (read from the owned grid's cell layers along the slab axis: the rows are in its cell
// order), the records travel, and the ghosts from lower and from higher ranks each get a grid
// of their own (the owned grid's cells, windowed to where that side's ghosts lie) and its cell
// order. With the overlap all of it runs on the halo queue, and the backend's queue waits for
// its end (ghosts_ready) only where the next pass needs the ghosts.
template <class Exec> void complete_halo(const Exec& exec, SolverState& s) {
    RankState& r = s.ranks;
    if (!r.halo_due) return;
    r.halo_due = false;
    const int axis = r.slabs.axis;
    auto build = [&](const Exec& queue) {
        {
            auto scope = s.profile.phase("halo");
            const frnn::CellGridView g = s.grid.view();
            const dist::CellLayers layers{g.cell_start, {g.dims[0], g.dims[1], g.dims[2]}, g.origin[axis],
                                          g.inv_cell_size[axis]};
            r.ghosts = r.exchange->plan_halo(queue, s.f<Vec3f>(field::position), s.n, axis, r.reach, r.halo_window,
                                             s.grid.spec().morton ? nullptr : &layers);
            r.exchange->start_halo(queue, s.fields, kRecordFields);
            r.exchange->finish_halo(&queue.backend());
        }
        const dist::Extent extent = r.exchange->mine();
        auto scope = s.profile.phase("ghost grids");
        r.ghosts_from_below = r.exchange->ghosts_from_below();
        if (r.ghosts > 0)
            queue.for_each(r.ghosts,
                           kern::RecordPositions{reinterpret_cast<const Vec4f*>(
                                                     r.exchange->received(s.fields, field::record_position_mass)),
                                                 r.ghost_positions.data()},
                           "sph.ghost_positions");
        // The lower ranks' ghosts lie in [lo - reach, ghosts_below()], the higher ranks' in
        // [ghosts_above(), hi + reach] (ParticleExchange::plan_halo); a side without ghosts gets
        // a window of one cell layer.
        const float below_hi = std::max(r.exchange->ghosts_below(), extent.lo - r.reach);
        const float above_lo = std::min(r.exchange->ghosts_above(), extent.hi + r.reach);
        r.ghost_grids[0]->set_window(axis, extent.lo - r.reach, below_hi);
        r.ghost_grids[1]->set_window(axis, above_lo, extent.hi + r.reach);
        r.ghost_grids[0]->build(queue, r.ghost_positions.data(), r.ghosts_from_below);
        r.ghost_grids[1]->build(queue, r.ghost_positions.data() + r.ghosts_from_below,
                                r.ghosts - r.ghosts_from_below);
        if (r.ghosts > 0)
            queue.for_each(r.ghosts,
                           kern::GhostOrder{r.ghost_grids[0]->sorted_to_original(),
                                            r.ghost_grids[1]->sorted_to_original(),
                                            static_cast<std::uint32_t>(r.ghosts_from_below), r.ghost_order.data()},
                           "sph.ghost_order");
        r.exchange->unpack_halo(queue, s.fields, s.n, r.ghost_order.data());
    };
    if (r.overlap_halo) {
        r.rows_ready->enqueue_wait(*r.halo_queue);
        build(Exec(*r.halo_queue));
        r.ghosts_ready->record(*r.halo_queue);
        auto scope = s.profile.phase("halo");  // what the interior rows did not hide
        r.ghosts_ready->enqueue_wait(s.backend);
    } else {
        build(exec);
    }
    r.ghosts_below = r.exchange->ghosts_below() + kGhostWalkMargin * r.reach;
    r.ghosts_above = r.exchange->ghosts_above() - kGhostWalkMargin * r.reach;
}

// The compute time of the neighbour passes since the last call, when every pass has finished
// (after a read-back); several ranks only.
inline void collect_compute_time(SolverState& s) {
    RankState& r = s.ranks;
    for (int k = 0; k < r.timers_used; ++k) r.compute_s += r.pass_timers[std::size_t(k)].seconds();
    r.timers_used = 0;
}

// Which rows a neighbour pass runs over: every row, or some only (mdbc's boundary passes):
// `rows`, a list of `count` rows in device memory, or of *listed rows (device memory) at most
// `count`. A type each, so that only the passes given a list compile a kernel for one (OnRows).
struct EveryRow {};
struct RowSubset {
    const std::uint32_t* rows;
    std::size_t count;
    const std::uint32_t* listed = nullptr;
};

// Passes of one rank only (mdbc's: the solver refuses mdbc under several ranks, solver.cpp)
// declare kOneRank and compile no kernel for the ghosts.
template <class Interaction> constexpr bool one_rank_only = requires { requires Interaction::kOneRank; };

// `given`: lists of the pass's own (mdbc's wall pairs) instead of the snow models'.
template <class Exec, class Interaction, class Rows = EveryRow>
void neighbor_pass(const Exec& exec, SolverState& s, const Interaction& interaction, const char* label,
                   ListUse use = ListUse::none, Rows rows = {}, const NeighborLists* given = nullptr) {
    // The snow models' grid reaches the lists' skin; their pairs stop at the kernel's support.
    const float support = kernel_support(s.params);
    const NeighborLists lists =
        given ? *given
              : NeighborLists{s.neighbor_count.data(), s.neighbor_index.data(), s.neighbor_capacity, s.capacity,
                              s.neighbor_capacity > 0 ? support * support : __builtin_huge_valf()};
    const auto* records = s.f<Vec4f>(field::record_position_mass);
    const ListUse list_use = lists.capacity > 0 ? use : ListUse::none;
    auto run = [&](const auto& pass) {
        if constexpr (std::is_same_v<Rows, RowSubset>)
            exec.for_each_uneven(rows.count, OnRows<std::decay_t<decltype(pass)>>{rows.rows, rows.listed, pass}, label);
        else
            exec.for_each_uneven(s.n, pass, label);
    };
    if constexpr (!one_rank_only<Interaction>) {
        if (s.distributed()) {
            // Several ranks: the pass's device time for the load balancing, and the ghosts if any.
            RankState& r = s.ranks;
            auto timed = [&](const auto& pass) {
                DeviceTimer* timer =
                    r.timers_used < int(r.pass_timers.size()) ? &r.pass_timers[std::size_t(r.timers_used++)] : nullptr;
                if (timer) timer->start();
                run(pass);
                if (timer) timer->stop();
            };
            // The rows of `band` (RowBand), with the ghosts if any.
            auto with_ghosts = [&](RowBand band) {
                if (r.ghosts == 0)
                    return timed(NeighborPass<Interaction>{s.grid.view(), records, interaction, lists, list_use, {}, band});
                const GhostCells ghosts{r.ghost_grids[0]->view(),
                                        r.ghost_grids[1]->view(),
                                        static_cast<std::uint32_t>(s.n),
                                        static_cast<std::uint32_t>(s.n + r.ghosts_from_below),
                                        r.slabs.axis,
                                        r.ghosts_below,
                                        r.ghosts_above};
                timed(NeighborPass<Interaction, true>{s.grid.view(), records, interaction, lists, list_use, ghosts, band});
            };
            if (!r.halo_due || !std::is_same_v<Rows, EveryRow>) {
                complete_halo(exec, s);
                return with_ghosts({});
            }
            // The halo overlap: the rows the last plan foresaw to need no ghost while the halo
            // is built, then every other row. A row the plan finds nearer a ghost than foreseen
            // (a particle jumped) is computed again with its ghosts: a pass run across ranks
            // writes its rows' results, it does not add to them (the one that adds, mdbc's
            // VirtualLayerRates, is one rank's only: kOneRank).
            const int axis = r.slabs.axis;
            if (r.interior_lo < r.interior_hi)
                timed(NeighborPass<Interaction>{s.grid.view(), records, interaction, lists, list_use, {},
                                                {axis, r.interior_lo, r.interior_hi, true}});
            complete_halo(exec, s);
            return with_ghosts({axis, std::max(r.interior_lo, r.ghosts_below), std::min(r.interior_hi, r.ghosts_above),
                                false});
        }
    }
    run(NeighborPass<Interaction>{s.grid.view(), records, interaction, lists, list_use});
}

// mdbc: the list of its rows in the current order (after a reorder or a compaction, and when the
// normals change). The count of flagged rows is read back once: boundary particles are never
// removed and keep their normals, and mdbc runs on one rank.
template <class Exec> void list_mdbc_rows(const Exec& exec, SolverState& s) {
    if (s.mdbc_rows.size() == 0) return;
    auto* offsets = s.row_offsets.data();
    exec.for_each(s.n, kern::MdbcRowFlags{s.f<std::uint8_t>(field::kind), s.f<Vec3f>(field::boundary_normal), offsets},
                  "sph.mdbc_flags");
    exec.fill_zero(offsets + s.n, sizeof(std::uint32_t));
    exec.exclusive_sum(s.workspace, offsets, offsets, s.n + 1);
    exec.for_each(s.n, kern::ListRows{offsets, s.n, s.mdbc_rows.data(), true}, "sph.mdbc_rows");
    if (!s.mdbc_rows_counted) s.mdbc_rows_count = exec.read_value(offsets + s.n);
    s.mdbc_rows_counted = true;
}

// The mDBC pass's rows: the boundary particles with a wall normal.
inline RowSubset mdbc_row_subset(SolverState& s) { return {s.mdbc_rows.data(), s.mdbc_rows_count}; }

// The rates pass's rows under mdbc: every row but mDBC's, whose density the mDBC pass overwrites
// before the next pair loop reads it, which never move by their acceleration, and whose time-step
// limit never is the smallest (ModifiedDynamicBoundary writes what the integrators and the
// time-step reduction read of them); every row when the wall impulse is tracked, which sums their
// accelerations.
inline RowSubset rates_row_subset(SolverState& s) {
    if (s.options.track_wall_impulse) return {s.mdbc_rows.data(), s.n};
    return {s.mdbc_rows.data() + s.mdbc_rows_count, s.n - s.mdbc_rows_count};
}

template <class Exec> void shepard(const Exec& exec, SolverState& s) {
    pack_neighbor_records(exec, s);
    auto scope = s.profile.phase("shepard");
    // The filtered densities go to density_rate (scratch until the next rates pass), which then
    // becomes the density field: every particle's filter reads its neighbours' unfiltered
    // densities from the records.
    neighbor_pass(exec, s,
                  ShepardFilter{s.f<Vec4f>(field::record_position_mass), s.f<Vec4f>(field::record_velocity_density),
                                s.f<float>(field::density_rate), SmoothingKernel(s.params.kernel, s.params.h_m)},
                  "sph.shepard");
    s.fields.swap(field::density, field::density_rate);
    s.records_current = false;
}

// Laminar+SPS: every particle's SPS stress from the current velocities, before the rates pass
// that reads it for its neighbours too (the ghosts' copies refreshed from their owners).
template <class Exec> void sps_stress(const Exec& exec, SolverState& s) {
    const SphParams& p = s.params;
    {
        auto scope = s.profile.phase("sps");
        neighbor_pass(exec, s,
                      SpsStressPass{s.f<Vec4f>(field::record_position_mass), s.f<Vec4f>(field::record_velocity_density),
                                    s.f<SymTensor>(field::sps_stress), SmoothingKernel(p.kernel, p.h_m),
                                    SpsClosure::make(p.sps_smagorinsky, p.sps_blin, p.dx_m)},
                      "sph.sps");
    }
    refresh_ghosts(exec, s, field_bit(field::sps_stress));
}

// The smoothing kernel the scheme names, as its own type (a pass compiled per kernel).
template <class Body> void with_kernel(const SphParams& p, Body&& body) {
    if (p.kernel == KernelKind::wendland_c2)
        body(WendlandC2(p.h_m));
    else
        body(CubicSpline(p.h_m));
}

// mDBC (sph/boundary.hpp): the boundary particles' density, pressure term and velocity from their
// ghost nodes, into the records the next neighbour pass reads. Call after pack_neighbor_records.
template <class Exec> void modified_dynamic_boundary(const Exec& exec, SolverState& s) {
    auto scope = s.profile.phase("mdbc");
    const SphParams& p = s.params;
    auto launch = [&](auto kernel, auto velocity) {
        neighbor_pass(exec, s,
                      ModifiedDynamicBoundary<decltype(kernel), decltype(velocity)::value>{
                          .position_mass = s.f<Vec4f>(field::record_position_mass),
                          .velocity_density = s.f<Vec4f>(field::record_velocity_density),
                          .pressure_term = s.f<float>(field::record_pressure_term),
                          .density = s.f<float>(field::density),
                          .density_rate = s.f<float>(field::density_rate),
                          .dt_limit = s.f<float>(field::dt_limit),
                          .wall_velocity = s.f<Vec3f>(field::velocity),
                          .boundary_normal = s.f<Vec3f>(field::boundary_normal),
                          .density_gradient = s.f<Vec3f>(field::wall_density_gradient),
                          .layer_velocity_gradient = s.fields.has(field::wall_velocity_gradient)
                                                         ? s.f<Mat3f>(field::wall_velocity_gradient)
                                                         : nullptr,
                          .kernel = kernel,
                          .eos = TaitEos::from_sound_speed(p.rho0, p.c0, p.gamma),
                          .h = p.h_m,
                          .dt_limit_without_pairs = p.h_m / p.c0,
                          .mode = p.boundary_velocity,
                          .wrap = periodic_wrap(p),
                      },
                      "sph.mdbc", ListUse::none, mdbc_row_subset(s));
    };
    // The walls' own velocity needs none of the velocity's sums (15 of the 35 a fluid neighbour adds).
    with_kernel(p, [&](auto kernel) {
        if (p.boundary_velocity == BoundaryVelocity::wall)
            launch(kernel, std::false_type{});
        else
            launch(kernel, std::true_type{});
    });
}

// mdbc: the virtual layers' terms (VirtualLayerRates) after the rates pass `r`, over the rows it
// flagged in row_offsets, listed on the device in their cell order (the launch covers the rates
// pass's rows; those past the list's count return at once), each row's wall pairs from the rates
// pass's list where it holds them all, else from a search.
template <class Exec, class RatesPass> void virtual_layer_rates(const Exec& exec, SolverState& s, const RatesPass& r) {
    auto scope = s.profile.phase("virtual layers");
    auto* offsets = s.row_offsets.data();
    exec.exclusive_sum(s.workspace, offsets, offsets, s.n + 1);
    exec.for_each(s.n, kern::ListRows{offsets, s.n, s.virtual_layer_rows.data(), false}, "sph.virtual_layer_rows");
    const float support = kernel_support(s.params);
    const NeighborLists wall_pairs{r.walls.pair_count, r.walls.pair_index, r.walls.capacity, r.walls.stride,
                                   support * support};
    neighbor_pass(exec, s, VirtualLayerRates<RatesPass>{r}, "sph.virtual_layer_rates", ListUse::read,
                  RowSubset{s.virtual_layer_rows.data(), rates_row_subset(s).count, offsets + s.n}, &wall_pairs);
}

template <class Exec> void rates(const Exec& exec, SolverState& s, double t) {
    pack_neighbor_records(exec, s);
    if (s.params.boundary == BoundaryScheme::mdbc) modified_dynamic_boundary(exec, s);
    const SphParams& p = s.params;
    const bool sps = p.viscosity == Viscosity::laminar_sps;
    if (sps) sps_stress(exec, s);
    const bool fourtakas = p.diffusion == DensityDiffusion::fourtakas;
    auto launch = [&](auto kernel, auto diffusion, auto extras, auto walls) {
        const Rates<decltype(kernel), decltype(diffusion), decltype(extras), decltype(walls)> r{
            .position_mass = s.f<Vec4f>(field::record_position_mass),
            .velocity_density = s.f<Vec4f>(field::record_velocity_density),
            .pressure_term = s.f<float>(field::record_pressure_term),
            .acceleration = s.f<Vec3f>(field::acceleration),
            .density_rate = s.f<float>(field::density_rate),
            .xsph_velocity = s.f<Vec3f>(field::xsph_velocity),
            .dt_limit = s.f<float>(field::dt_limit),
            .kernel = kernel,
            .viscosity = ArtificialViscosity::make(p.alpha, p.c0),
            .diffusion = diffusion,
            .extras = extras,
            .walls = walls,
            .h = p.h_m,
            .c0 = p.c0,
            .eta2 = 0.01f * p.h_m * p.h_m,
            .gravity = p.gravity,
            .volumes = boundary_volumes(s, t),
        };
        if constexpr (decltype(walls)::enabled) {
            {
                auto scope = s.profile.phase("rates");
                if (walls.flags) exec.fill_zero(walls.flags, (s.n + 1) * sizeof(std::uint32_t));  // the scan's n + 1
                neighbor_pass(exec, s, r, "sph.rates", ListUse::none, rates_row_subset(s));
            }
            if (walls.flags) virtual_layer_rates(exec, s, r);
        } else {
            auto scope = s.profile.phase("rates");
            neighbor_pass(exec, s, r, "sph.rates");
        }
    };
    auto with_walls = [&](auto kernel, auto diffusion, auto extras) {
        if (s.fields.has(field::virtual_layers)) {
            const float support = kernel.support();
            launch(kernel, diffusion, extras,
                   VirtualLayers{s.f<Vec4f>(field::virtual_layers), s.f<Vec3f>(field::wall_density_gradient),
                                 s.fields.has(field::wall_velocity_gradient) ? s.f<Mat3f>(field::wall_velocity_gradient)
                                                                             : nullptr,
                                 s.virtual_layer_walls > 0 ? s.row_offsets.data() : nullptr,
                                 s.wall_pair_count.data(), s.wall_pair_index.data(), s.wall_pair_capacity,
                                 s.capacity, TaitEos::from_sound_speed(p.rho0, p.c0, p.gamma),
                                 support * support, s.f<Vec3f>(field::boundary_normal), 0.25f * p.dx_m,
                                 0.1f * p.rho0 * p.c0 * p.c0 / p.dx_m});
        } else {
            launch(kernel, diffusion, extras, NoVirtualLayers{});
        }
    };
    auto with_extras = [&](auto kernel, auto diffusion) {
        if (p.viscosity != Viscosity::artificial || p.xsph_epsilon > 0.0f)
            with_walls(kernel, diffusion,
                       ViscousExtras{{p.viscosity != Viscosity::artificial ? p.laminar_nu : 0.0f},
                                     {p.xsph_epsilon},
                                     {sps ? s.f<SymTensor>(field::sps_stress) : nullptr}});
        else
            with_walls(kernel, diffusion, NoViscousExtras{});
    };
    auto with_diffusion = [&](auto kernel) {
        if (p.diffusion == DensityDiffusion::none)
            with_extras(kernel, NoDensityDiffusion{});
        else
            with_extras(kernel, DensityDiffusionTerm{2.0f * p.diffusion_delta * p.h_m * p.c0,
                                                     (fourtakas ? -p.rho0 / (p.c0 * p.c0) : 0.0f) * p.gravity});
    };
    with_kernel(p, with_diffusion);
}

// With track_wall_impulse: add dt times the walls' force at the state of the last rates pass
// (time t) to the accumulated impulse. Call before the integrator moves the state.
template <class Exec> void accumulate_wall_impulse(const Exec& exec, SolverState& s, double t, double dt) {
    if (!s.options.track_wall_impulse) return;
    auto scope = s.profile.phase("wall impulse");
    exec.transform_reduce(s.workspace, s.n,
                          kern::WallForce{s.f<Vec3f>(field::position), s.f<Vec3f>(field::velocity),
                                          s.f<Vec3f>(field::acceleration), s.f<float>(field::mass),
                                          s.f<std::uint8_t>(field::kind), boundary_volumes(s, t)},
                          SumOp{}, Vec3d{0.0, 0.0, 0.0}, s.reduced_wall_force.data());
    Vec3d force = exec.read_value(s.reduced_wall_force.data());
    if (s.distributed()) {
        double f[3] = {force.x, force.y, force.z};
        s.ranks.communicator.allreduce(std::span<double>(f), dist::ReduceOp::sum);
        force = {f[0], f[1], f[2]};
    }
    s.wall_impulse += dt * force;
}

// dt = cfl * min over particles of min(dt_cv, dt_f), reduced on the device.
template <class Exec> double reduce_dt(const Exec& exec, SolverState& s) {
    auto scope = s.profile.phase("dt reduce");
    // Several ranks: the run loop's stop vote (Solver::step) rides along, its largest as the
    // least of the negated votes.
    const double stop_vote = s.stop_vote ? -double((*s.stop_vote)()) : 0.0;
    if (s.params.dt_fixed_s > 0.0f) {
        if (s.distributed()) s.agreed_stop = -std::int32_t(s.ranks.communicator.allreduce(stop_vote, dist::ReduceOp::min));
        return s.params.dt_fixed_s;
    }
    exec.transform_reduce(s.workspace, s.n, LoadAs<float, float>{s.f<float>(field::dt_limit)}, MinOp{},
                          std::numeric_limits<float>::infinity(), s.reduced_dt.data());
    double limit = exec.read_value(s.reduced_dt.data());
    if (s.distributed()) {
        double votes[2] = {limit, stop_vote};
        s.ranks.communicator.allreduce(std::span<double>(votes), dist::ReduceOp::min);
        limit = votes[0];
        s.agreed_stop = -std::int32_t(votes[1]);
    }
    const double dt = std::min({double(s.params.cfl) * limit, double(s.params.dt_max_s), viscous_dt_limit(s.params)});
    if (!(dt >= s.params.dt_min_s)) {
        const std::string what = "time step " + format_g(dt) + " s fell below its floor " +
                                 format_g(s.params.dt_min_s) + " s at step " + std::to_string(s.step) +
                                 " (t = " + format_g(s.time) + " s)";
        // Every rank sees the same all-reduced step: an agreed failure of no rank in particular.
        if (s.distributed()) dist::raise({-1, dist::FailureKind::numerical, what}, s.ranks.communicator.size());
        throw NumericalError(what);
    }
    return dt;
}

inline kern::ParticleStatus particle_status(SolverState& s) {
    const SphParams& p = s.params;
    const float margin = kernel_support(p);  // particles this far outside are removed
    kern::ParticleStatus st{s.f<Vec3f>(field::position), s.f<Vec3f>(field::velocity), s.f<float>(field::density),
                            s.f<std::uint8_t>(field::kind), {}, {}, 0.0f, 0.0f, 0.0f};
    const float inf = std::numeric_limits<float>::infinity();
    for (int k = 0; k < 3; ++k) {
        const bool periodic = p.faces[2 * k] == Face::periodic;
        st.lo[k] = periodic ? -inf : p.domain_min[k] - margin;
        st.hi[k] = periodic ? inf : p.domain_max[k] + margin;
    }
    const float runaway = runaway_speed(p);
    st.runaway_speed2 = runaway * runaway;
    const bool density_limits = p.density_min != 0.0f || p.density_max != 0.0f;
    st.density_lo = density_limits ? p.density_min : 0.0f;
    st.density_hi = density_limits ? p.density_max : inf;
    return st;
}

// The first particle whose state stops the run, and what about it: "particle 17 (fluid, id
// 4711) at (x, y, z) m: velocity is not finite". Reads the state back (the run is over).
inline std::string describe_failure(const SolverState& s) {
    const std::size_t n = s.n;
    std::vector<Vec3f> r(n), v(n);
    std::vector<float> d(n);
    std::vector<std::uint64_t> ids(n);
    std::vector<std::uint8_t> kinds(n);
    s.fields.download(field::position, r.data(), n);
    s.fields.download(field::velocity, v.data(), n);
    s.fields.download(field::density, d.data(), n);
    s.fields.download(field::id, ids.data(), n);
    s.fields.download(field::kind, kinds.data(), n);
    const double runaway = runaway_speed(s.params);
    for (std::size_t a = 0; a < n; ++a) {
        std::string what;
        const double speed = std::sqrt(double(v[a].x) * v[a].x + double(v[a].y) * v[a].y + double(v[a].z) * v[a].z);
        if (!(std::isfinite(r[a].x) && std::isfinite(r[a].y) && std::isfinite(r[a].z))) what = "position is not finite";
        else if (!(std::isfinite(v[a].x) && std::isfinite(v[a].y) && std::isfinite(v[a].z))) what = "velocity is not finite";
        else if (!std::isfinite(d[a])) what = "density is not finite";
        else if (!(d[a] > 0.0f)) what = "density " + format_g(d[a]) + " kg/m^3 is not positive";
        else if (speed > runaway) what = "speed " + format_g(speed) + " m/s exceeds the runaway limit " + format_g(runaway) + " m/s";
        if (what.empty()) continue;
        const char* kind = kinds[a] == kFluidKind ? "fluid" : "boundary";
        return "particle id " + std::to_string(ids[a]) + " (" + kind + ") at (" + format_g(r[a].x) + ", " +
               format_g(r[a].y) + ", " + format_g(r[a].z) + ") m: " + what;
    }
    return "a particle's state became unusable";
}

// The status of every rank after a step: `mine` this rank's, `total` every rank's sums. Throws
// when a particle stops the run (on every rank alike), else counts the removed particles.
inline void settle_status(SolverState& s, const SolverState::StatusVote& mine, const SolverState::StatusVote& total) {
    if (total.stopping > 0) {
        auto what = [&](const std::string& first) {
            return std::to_string(total.stopping) + " particle(s) with a non-finite state or a runaway speed at step " +
                   std::to_string(mine.step) + " (t = " + format_g(mine.time) + " s), first " + first +
                   "; lower the time step (--cfl) or check the scene";
        };
        if (!s.distributed()) throw NumericalError(what(describe_failure(s)));
        // The lowest rank with such a particle describes it; every rank throws that.
        const std::string text = mine.stopping > 0 ? describe_failure(s) : std::string();
        const auto all = s.ranks.communicator.allgatherv(std::as_bytes(std::span<const char>(text.data(), text.size())));
        for (std::size_t r = 0; r < all.size(); ++r)
            if (!all[r].empty())
                dist::raise({int(r), dist::FailureKind::numerical,
                             what(std::string(reinterpret_cast<const char*>(all[r].data()), all[r].size()))},
                            int(all.size()));
    }
    s.removed += total.removed;
    s.ranks.global_n -= total.removed;
}

// After a step: stop on NaN or runaway (naming the particle), remove fluid particles that left
// the domain or the density limits. Several ranks: every rank's status is summed by an
// all-reduce, or with `vote_at_migration` by the migration that follows (pending_status; a
// rank removes its particles before it knows the others' status: when some rank stops the run,
// no state after this step is kept).
template <class Exec> void check_and_remove(const Exec& exec, SolverState& s, bool vote_at_migration = false) {
    auto scope = s.profile.phase("check");
    const auto status = particle_status(s);
    exec.transform_reduce(s.workspace, s.n, status, SumOp{}, std::uint64_t{0}, s.reduced_status.data());
    const std::uint64_t flags = exec.read_value(s.reduced_status.data());
    const SolverState::StatusVote mine{flags >> 32, flags & 0xffffffffu, s.step + 1, s.time + s.dt};
    SolverState::StatusVote total = mine;
    if (s.distributed() && !vote_at_migration) {
        std::uint64_t sums[2] = {mine.stopping, mine.removed};
        s.ranks.communicator.allreduce(std::span<std::uint64_t>(sums), dist::ReduceOp::sum);
        total.stopping = sums[0];
        total.removed = sums[1];
    }
    const bool voted = !s.distributed() || !vote_at_migration;
    if (voted && total.stopping > 0) settle_status(s, mine, total);  // throws, before any row is removed
    if (mine.stopping == 0 && mine.removed > 0) {
        s.n = s.fields.compact(exec, s.workspace, s.n, kern::Remains{status});
        s.records_current = false;
        s.lists_valid = false;
    }
    if (voted) {
        // Every rank alike: a repack refreshes the ghosts, and the snow models search again.
        if (total.removed > 0) {
            s.records_current = false;
            s.lists_valid = false;
        }
        settle_status(s, mine, total);
    } else {
        s.pending_status = mine;
    }
}

// Several ranks: rows past a border go to their slab's rank (every field that persists).
// The status of the step before (check_and_remove's pending_status) travels with the counts.
template <class Exec> void migrate(const Exec& exec, SolverState& s) {
    auto scope = s.profile.phase("migrate");
    const std::optional<SolverState::StatusVote> status = std::exchange(s.pending_status, std::nullopt);
    dist::Votes votes{status ? status->stopping : 0, status ? status->removed : 0};
    s.n = s.ranks.exchange->migrate(exec, s.fields, s.f<Vec3f>(field::position), s.n, s.ranks.slabs,
                                    s.fields.fields_with(kFieldGather), &votes);
    if (status) settle_status(s, *status, {votes.stop, votes.count, status->step, status->time});
    s.records_current = false;
    s.lists_valid = false;
}

// The snow models' passes at the state of the step's start (docs/SNOW.md): density by
// summation, the records with the linear pressure, [the stress tensor], the accelerations.
template <class Exec> void snow_rates(const Exec& exec, SolverState& s, double t) {
    const SphParams& p = s.params;
    const Rheology& rh = p.rheology;
    const MullerKernels kernel(p.h_m);
    auto* records_pm = s.f<Vec4f>(field::record_position_mass);
    auto* records_vd = s.f<Vec4f>(field::record_velocity_density);
    auto* records_p = s.f<float>(field::record_pressure_term);
    // A new search when the lists are not valid: the fields are then in cell order (advance).
    const bool relist = !s.lists_valid;
    // Several ranks: which of the ghosts' fields each pass reads, refreshed after the pass
    // before it changed the owners'.
    const bool stress_tensor = has_stress_tensor(p);
    const std::uint64_t stress_fields = field_bit(field::corrected_stress) | field_bit(field::velocity_gradient) |
                                        field_bit(field::effective_viscosity);
    {
        // The records: positions, and the last step's densities for the kernel-gradient
        // correction's volumes (written by the gather after a reorder, else by the Leapfrog).
        const bool packed = !s.records_current;
        pack_neighbor_records(exec, s);
        // Kept lists: the ghosts' positions moved with their owners (a new search brought fresh
        // ghosts with the reorder; a repack refreshed them).
        if (!relist && !packed) refresh_ghosts(exec, s, field_bit(field::record_position_mass));
        auto scope = s.profile.phase("density");
        neighbor_pass(exec, s,
                      MullerDensity{kernel, ClampedLinearEos{rh.gas_constant, p.rho0}, s.f<float>(field::density),
                                    records_p,
                                    has_stress_tensor(p) ? s.f<SymTensor>(field::kernel_correction) : nullptr,
                                    records_vd, records_pm},
                      "snow.density", relist ? ListUse::write : ListUse::read);
    }
    if (relist) {
        exec.for_each(s.n, CopyPositions{s.f<Vec3f>(field::position), s.listed_position.data()}, "snow.listed");
        exec.fill_zero(s.relist.data(), sizeof(std::uint32_t));
        s.lists_valid = true;
    }
    {
        auto scope = s.profile.phase("pack");
        exec.for_each(s.n,
                      SnowRecords{s.f<Vec3f>(field::velocity), s.f<float>(field::density), records_vd},
                      "snow.pack");
    }
    refresh_ghosts(exec, s, field_bit(field::record_velocity_density) | field_bit(field::record_pressure_term));
    if (s.boundary_count > 0) {
        {
            auto scope = s.profile.phase("walls");
            neighbor_pass(exec, s, WallVelocity{records_vd, s.f<Vec3f>(field::velocity), kernel, records_pm},
                          "snow.walls", ListUse::read);
        }
        refresh_ghosts(exec, s, field_bit(field::record_velocity_density));  // the walls' velocities
    }
    auto forces = [&](auto viscous) {
        auto scope = s.profile.phase("forces");
        neighbor_pass(exec, s,
                      SnowForces<decltype(viscous)>{
                          .position_mass = records_pm,
                          .velocity_density = records_vd,
                          .pressure = records_p,
                          .acceleration = s.f<Vec3f>(field::acceleration),
                          .xsph_velocity = s.f<Vec3f>(field::xsph_velocity),
                          .dt_limit = s.f<float>(field::dt_limit),
                          .kernel = kernel,
                          .viscous = viscous,
                          .xsph_phi = rh.xsph_phi,
                          .sound_speed = sound_speed(p),
                          .max_acceleration = rh.max_acceleration,
                          .gravity = p.gravity,
                          .volumes = boundary_volumes(s, t),
                      },
                      "snow.forces", ListUse::read);
    };
    if (p.model == Model::newtonian_muller) {
        forces(LaplacianViscosity{rh.mu});
        return;
    }
    {
        auto scope = s.profile.phase("stress");
        neighbor_pass(exec, s,
                      SnowStress{records_pm, records_vd, s.f<SymTensor>(field::kernel_correction), kernel,
                                 StressLaw{p.model, rh.mu, rh.mu_solid, rh.yield_stress, rh.power_n},
                                 s.f<SymTensor>(field::stress), s.f<Mat3f>(field::corrected_stress),
                                 s.f<Mat3f>(field::velocity_gradient), s.f<float>(field::effective_viscosity),
                                 s.f<float>(field::strain_rate),
                                 s.f<std::uint8_t>(field::yielded), s.f<float>(field::dt_limit)},
                      "snow.stress", ListUse::read);
    }
    if (s.boundary_count > 0) {
        refresh_ghosts(exec, s, field_bit(field::corrected_stress));
        auto scope = s.profile.phase("walls");
        neighbor_pass(exec, s, WallStress{records_pm, s.f<Mat3f>(field::corrected_stress), kernel}, "snow.wall_stress",
                      ListUse::read);
    }
    if (stress_tensor) refresh_ghosts(exec, s, stress_fields);
    forces(StressDivergence{s.f<Mat3f>(field::corrected_stress), s.f<Mat3f>(field::velocity_gradient),
                            s.f<float>(field::effective_viscosity), rh.stress_form, rh.mode_control});
}

// One leapfrog step of a snow model.
template <class Exec> void advance_snow(const Exec& exec, SolverState& s) {
    const SphParams& p = s.params;
    const double t = s.time;
    snow_rates(exec, s, t);
    const double dt = reduce_dt(exec, s);
    s.dt = dt;
    {
        auto scope = s.profile.phase("integrate");
        exec.for_each(s.n,
                      Leapfrog{s.f<Vec3f>(field::position), s.f<Vec3f>(field::velocity),
                               s.f<Vec3f>(field::velocity_half), s.f<Vec3f>(field::acceleration),
                               s.f<Vec3f>(field::xsph_velocity), s.f<std::uint8_t>(field::kind), float(dt),
                               s.previous_valid, p.rheology.max_speed, boundary_stage(p, t, t + dt), periodic_wrap(p),
                               MovedPosition{s.f<Vec4f>(field::record_position_mass), s.listed_position.data(),
                                             s.relist.data(), s.grid.view().box,
                                             0.25f * kNeighborListSkin * kNeighborListSkin * p.h_m * p.h_m}},
                      "snow.leapfrog");
        // The Leapfrog wrote the position records; the velocity records hold the densities the
        // next density pass reads (MovedPosition), so no repacking before it.
        s.records_current = true;
        s.cell_ordered = false;
    }
    check_and_remove(exec, s);
    if (s.lists_valid && exec.read_value(s.relist.data()) != 0u) s.lists_valid = false;
    // Several ranks search again together: the ghosts change with every search.
    if (s.distributed()) s.lists_valid = s.ranks.communicator.all(s.lists_valid);
}

// Several ranks, after every step: the step's compute time, and every RankOptions::balance_every
// steps the imbalance (slowest rank over the mean) and new borders from the cost profile: each
// rank's measured time per particle spread over its particles' positions along the slab axis,
// summed over the ranks (dist::balance; the particles move at the next reorder). Without
// balancing the imbalance is still measured, every 10 steps.
template <class Exec> void balance(const Exec& exec, SolverState& s) {
    RankState& r = s.ranks;
    collect_compute_time(s);
    r.measured_steps += 1;
    const int every = r.balance_every > 0 ? r.balance_every : 10;
    if (s.step % every != 0) return;
    auto scope = s.profile.phase("balance");
    const dist::Communicator& ranks = r.communicator;
    const auto times = ranks.allgather(r.compute_s);
    double sum = 0.0, slowest = 0.0;
    for (const double t : times) {
        sum += t;
        slowest = std::max(slowest, t);
    }
    r.imbalance = sum > 0.0 ? slowest * double(times.size()) / sum : 1.0;
    if (r.balance_every > 0) {
        const int axis = r.slabs.axis;
        const double lo = s.grid.spec().domain_min[axis], hi = s.grid.spec().domain_max[axis];
        constexpr std::size_t kBins = 4096;
        // A rank whose particles stop the run (voted at the migration that follows) counts none:
        // its positions may not be finite.
        const std::size_t rows = s.pending_status && s.pending_status->stopping > 0 ? 0 : s.n;
        const auto counts = r.exchange->histogram(exec, s.f<Vec3f>(field::position), rows, axis, lo, hi, kBins);
        const double per_particle = s.n > 0 ? r.compute_s / double(s.n) : 0.0;
        std::vector<double> profile(2 * kBins);
        for (std::size_t b = 0; b < kBins; ++b) {
            profile[b] = per_particle * double(counts[b]);
            profile[kBins + b] = double(counts[b]);
        }
        ranks.allreduce(std::span<double>(profile), dist::ReduceOp::sum);
        const dist::CostProfile cost{lo, hi, {profile.begin(), profile.begin() + kBins},
                                     {profile.begin() + kBins, profile.end()}};
        // Room for the ghosts: a quarter of the rows.
        // Half a migration's rows across each border: a rank sends and receives over two.
        r.slabs = dist::balance(r.slabs, cost, {0.5, r.reach, 0.75 * double(s.capacity), 0.5 * double(r.migration_rows)});
    }
    r.compute_s = 0.0;
    r.measured_steps = 0;
}

}  // namespace detail

// Build the grid on the current positions and bring every field into its cell order, writing
// the neighbour records on the way. `in_step`: a reorder between the stages of a step, which
// also moves the state at the start of the step (kFieldGatherInStep).
//
// Several ranks: a reorder between steps first migrates the rows past a border (and moves the
// borders every RankOptions::balance_every steps); the grid covers where the last halo plan
// foresaw this rank's rows (its extent, read back only before the first plan), widened by the
// halo reach; the halo on the new order is due (begin_halo: built by the next neighbour pass).
template <class Exec> void sort_by_cell(const Exec& exec, SolverState& s, bool in_step) {
    dist::Extent window{};
    if (s.distributed()) {
        // A halo still due was for rows this reorder moves: nothing of it was queued yet.
        s.ranks.halo_due = false;
        if (!in_step) detail::migrate(exec, s);
        RankState& r = s.ranks;
        window = r.exchange->window(r.slabs, r.reach);
        if (window.empty()) window = r.exchange->extent(exec, s.f<Vec3f>(field::position), s.n, r.slabs.axis);
        s.grid.set_window(r.slabs.axis, window.lo - r.reach, window.hi + r.reach);
    }
    {
        auto scope = s.profile.phase("grid build");
        s.grid.build(exec, s.f<Vec3f>(field::position), s.n);
    }
    {
        auto scope = s.profile.phase("gather");
        s.fields.gather(exec, s.grid.sorted_to_original(), s.n, kFieldGather | (in_step ? kFieldGatherInStep : 0u),
                        detail::records_from_state(s));
    }
    s.records_current = true;
    s.cell_ordered = true;
    s.lists_valid = false;
    detail::list_mdbc_rows(exec, s);
    if (s.distributed()) detail::begin_halo(exec, s, window);
}

// One time step. On entry the fields are in the cell order of a grid built on the positions
// (the snow models: or their neighbour lists are valid, SolverState::lists_valid).
template <class Exec> void advance(const Exec& exec, SolverState& s) {
    const SphParams& p = s.params;
    if (is_snow_model(p)) {
        if (!s.lists_valid && !s.cell_ordered) sort_by_cell(exec, s, false);
        detail::advance_snow(exec, s);
        s.time += s.dt;
        s.step += 1;
        s.previous_valid = true;
        if (s.distributed()) detail::balance(exec, s);
        if (!s.lists_valid) sort_by_cell(exec, s, false);
        return;
    }
    const bool summation = p.density == DensityScheme::summation;
    const bool shepard_now = summation || (p.shepard_every > 0 && s.step > 0 && s.step % p.shepard_every == 0);
    const double t = s.time;
    const float rho0 = p.rho0;
    const auto wrap = detail::periodic_wrap(p);
    const auto* kind = s.f<std::uint8_t>(field::kind);

    if (shepard_now) detail::shepard(exec, s);
    detail::rates(exec, s, t);
    const double dt = detail::reduce_dt(exec, s);
    s.dt = dt;

    if (p.integrator == Integrator::verlet) {
        detail::accumulate_wall_impulse(exec, s, t, dt);
        auto scope = s.profile.phase("integrate");
        const bool euler = !s.previous_valid || (s.step + 1) % p.verlet_euler_every == 0;
        exec.for_each(s.n,
                      VerletStep{s.f<Vec3f>(field::position), s.f<Vec3f>(field::velocity), s.f<float>(field::density),
                                 s.f<Vec3f>(field::velocity_previous), s.f<float>(field::density_previous),
                                 detail::stage_rates(s), kind, float(dt), rho0, euler,
                                 detail::boundary_stage(p, t, t + dt), wrap},
                      "sph.verlet");
        s.records_current = false;
    } else {
        {
            auto scope = s.profile.phase("integrate");
            exec.for_each(s.n,
                          Predict{s.f<Vec3f>(field::position), s.f<Vec3f>(field::velocity), s.f<float>(field::density),
                                  s.f<Vec3f>(field::position_start), s.f<Vec3f>(field::velocity_start),
                                  s.f<float>(field::density_start), detail::stage_rates(s), kind, float(0.5 * dt), rho0,
                                  detail::boundary_stage(p, t, t + 0.5 * dt), wrap},
                          "sph.predict");
            s.records_current = false;
        }
        sort_by_cell(exec, s, true);
        if (summation) detail::shepard(exec, s);
        detail::rates(exec, s, t + 0.5 * dt);
        detail::accumulate_wall_impulse(exec, s, t + 0.5 * dt, dt);
        auto scope = s.profile.phase("integrate");
        const auto scheme = p.integrator == Integrator::symplectic ? CorrectorKind::symplectic : CorrectorKind::midpoint;
        exec.for_each(s.n,
                      Correct{s.f<Vec3f>(field::position), s.f<Vec3f>(field::velocity), s.f<float>(field::density),
                              s.f<Vec3f>(field::position_start), s.f<Vec3f>(field::velocity_start),
                              s.f<float>(field::density_start), detail::stage_rates(s), s.f<std::uint8_t>(field::kind),
                              float(dt), rho0, scheme, detail::boundary_stage(p, t, t + dt), wrap},
                      "sph.correct");
        s.records_current = false;
    }
    // Several ranks: the migration at the reorder below votes on the status.
    detail::check_and_remove(exec, s, true);
    s.time = t + dt;
    s.step += 1;
    s.previous_valid = true;
    if (s.distributed()) detail::balance(exec, s);
    sort_by_cell(exec, s, false);
}

// Wall normals for boundary particles from the neighbours (BoundaryNormalEstimate), when the
// input has none. The fields are in cell order, the records current (after sort_by_cell).
template <class Exec> void estimate_boundary_normals(const Exec& exec, SolverState& s) {
    const SphParams& p = s.params;
    detail::with_kernel(p, [&](auto kernel) {
        detail::neighbor_pass(exec, s,
                              BoundaryNormalEstimate<decltype(kernel)>{s.f<Vec4f>(field::record_position_mass),
                                                                       s.f<Vec3f>(field::boundary_normal), kernel,
                                                                       0.5f * p.dx_m},
                              "sph.normals");
    });
    s.mdbc_rows_counted = false;
    detail::list_mdbc_rows(exec, s);
}

// mdbc: the virtual wall layers behind each boundary particle (VirtualLayerScan), from its normal
// and its boundary neighbours, and how many have any (none: walls as thick as the support, and no
// virtual layers' pass). After the normals are in place; the records current.
template <class Exec> void scan_virtual_layers(const Exec& exec, SolverState& s) {
    const SphParams& p = s.params;
    detail::neighbor_pass(exec, s,
                          VirtualLayerScan{s.f<Vec4f>(field::record_position_mass), s.f<Vec3f>(field::boundary_normal),
                                           s.f<Vec4f>(field::virtual_layers), p.dx_m,
                                           std::min(virtual_layer_limit(kernel_support(p), p.dx_m),
                                                    VirtualLayerScan::kMaxLayers)},
                          "sph.virtual_layers");
    exec.transform_reduce(s.workspace, s.n, kern::HasVirtualLayers{s.f<Vec4f>(field::virtual_layers)}, SumOp{},
                          std::uint64_t{0}, s.reduced_status.data());
    s.virtual_layer_walls = exec.read_value(s.reduced_status.data());
}

template <class Exec> Diagnostics compute_diagnostics(const Exec& exec, SolverState& s) {
    exec.transform_reduce(s.workspace, s.n,
                          kern::DiagnosticsOf{s.f<Vec3f>(field::position), s.f<Vec3f>(field::velocity),
                                              s.f<float>(field::density), s.f<float>(field::mass),
                                              s.f<std::uint8_t>(field::kind), s.params.gravity},
                          CombineOp{}, DiagnosticSums::identity(), s.reduced_diagnostics.data());
    DiagnosticSums sums = exec.read_value(s.reduced_diagnostics.data());
    if (s.distributed()) sums = s.ranks.communicator.allreduce_combine(sums);
    Diagnostics d;
    d.step = s.step;
    d.time_s = s.time;
    d.dt_s = s.dt;
    d.removed = s.removed;
    d.kinetic_J = sums.kinetic_J;
    d.potential_J = sums.potential_J;
    d.max_speed = sums.max_speed;
    d.min_density = sums.min_density;
    d.max_density = sums.max_density;
    d.fluid_max = {sums.fluid_max.x, sums.fluid_max.y, sums.fluid_max.z};
    d.fluid_count = sums.fluid;
    d.momentum_kg_m_s = sums.momentum;
    d.wall_impulse_N_s = s.wall_impulse;
    d.imbalance = s.ranks.imbalance;
    return d;
}

// The family's instantiations, once per backend (solver_cpu.cpp, solver_cuda.cu).
#define PK_SPH_SOLVER_INSTANTIATE(Exec)                                     \
    template void sort_by_cell(const Exec&, SolverState&, bool);           \
    template void advance(const Exec&, SolverState&);                      \
    template void estimate_boundary_normals(const Exec&, SolverState&);    \
    template void scan_virtual_layers(const Exec&, SolverState&);          \
    template Diagnostics compute_diagnostics(const Exec&, SolverState&);   \
    template std::size_t workspace_bytes(const Exec&, std::size_t);

}  // namespace partikel::sph
