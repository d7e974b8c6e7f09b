// The N-body step, force evaluation and diagnostics (nbody/solver.hpp), written once for both
// backends; instantiated by solver_cpu.cpp and solver_cuda.cu.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/hd.hpp"
#include "core/exec.hpp"
#include "core/fields_impl.hpp"
#include "core/key_ranges.hpp"
#include "core/memory.hpp"
#include "core/reduce_ops.hpp"
#include "nbody/direct.hpp"
#include "nbody/hybrid.hpp"
#include "nbody/partition.hpp"
#include "nbody/solver_state.hpp"
#include "nbody/tree.hpp"

namespace partikel::nbody {

namespace kernels {

struct BoxOfPosition {
    const Vec3d* position;
    PK_HD BoundingBox operator()(std::size_t i) const {
        const Vec3d x = position[i];
        // x - x is 0 exactly for finite x, NaN for infinities and NaN (no library call: both backends).
        if (!(x.x - x.x == 0.0 && x.y - x.y == 0.0 && x.z - x.z == 0.0)) {
            const double inf = std::numeric_limits<double>::infinity();
            return BoundingBox{{inf, inf, inf}, {-inf, -inf, -inf}, 1u};
        }
        return BoundingBox{{x.x, x.y, x.z}, {x.x, x.y, x.z}, 0u};
    }
};

struct CombineBoxes {
    PK_HD BoundingBox operator()(const BoundingBox& a, const BoundingBox& b) const {
        BoundingBox r;
        merge_box_corners(a, b, r);
        r.nonfinite = a.nonfinite + b.nonfinite;
        return r;
    }
};

inline BoundingBox empty_box() {
    const double inf = std::numeric_limits<double>::infinity();
    return BoundingBox{{inf, inf, inf}, {-inf, -inf, -inf}, 0u};
}

// A half kick: v + dt/2 a, in double (the force sums are float).
PK_HD inline Vec3d kicked(Vec3d v, const Vec4f& a, double half_dt) {
    v.x += half_dt * double(a.x);
    v.y += half_dt * double(a.y);
    v.z += half_dt * double(a.z);
    return v;
}

// The first half kick and the drift: v += a dt/2; x += v dt; body = (x, m) in float when the
// force sum reads the bodies in this order (direct).
struct KickDrift {
    Vec3d* position;
    Vec3d* velocity;
    const Vec4f* accel;
    Vec4f* body;  // nullptr: the tree's reorder writes the bodies
    double half_dt;
    double dt;
    PK_HD void operator()(std::size_t i) const {
        const Vec3d v = kicked(velocity[i], accel[i], half_dt);
        Vec3d x = position[i];
        x.x += dt * v.x;
        x.y += dt * v.y;
        x.z += dt * v.z;
        velocity[i] = v;
        position[i] = x;
        if (body) body[i] = Vec4f{float(x.x), float(x.y), float(x.z), body[i].w};
    }
};

struct Kick {
    Vec3d* velocity;
    const Vec4f* accel;
    double half_dt;
    PK_HD void operator()(std::size_t i) const { velocity[i] = kicked(velocity[i], accel[i], half_dt); }
};

// The reorder's epilogue (core/fields_impl.hpp): body k along the curve, the force sums' copy
// in float, from the state of body `from` before the fields move.
struct BodyRecord {
    const Vec3d* position;
    const float* mass;
    Vec4f* body;
    PK_HD void operator()(std::size_t k, std::uint32_t from) const {
        const Vec3d x = position[from];
        body[k] = Vec4f{float(x.x), float(x.y), float(x.z), mass[from]};
    }
};

// Keys of the rows [first_row, first_row + count) that arrived in a migration.
struct ArrivedKeys {
    const BoundingBox* box;
    const Vec3d* position;
    std::uint32_t first_row;
    std::uint64_t* keys;
    std::uint32_t* rows;
    PK_HD void operator()(std::size_t j) const {
        const std::uint32_t row = first_row + static_cast<std::uint32_t>(j);
        keys[j] = morton_key(root_cube(*box), position[row]);
        rows[j] = row;
    }
};

// The stayers and the arrivals, each sorted by key, merged into curve order by position:
// element i of one list goes to i plus the number of the other list's keys before it; among
// equal keys the stayers come first (the arrivals count them as before: after_equal).
struct MergePlace {
    const std::uint64_t* keys;   // this list's
    const std::uint32_t* rows;   // its rows, or nullptr: first_row + i
    std::uint32_t first_row;
    const std::uint64_t* other;  // the other list's keys
    std::uint32_t other_count;
    bool after_equal;
    std::uint64_t* merged_keys;
    std::uint32_t* merged_order;
    PK_HD void operator()(std::size_t i) const {
        const std::uint64_t key = keys[i];
        const std::size_t at = i + lower_bound_index(other, other_count, after_equal ? key + 1 : key);
        merged_keys[at] = key;
        merged_order[at] = rows ? rows[i] : first_row + static_cast<std::uint32_t>(i);
    }
};

// The hybrid's split: the first group the device walks.
struct SplitGroups {
    const std::uint32_t* load_prefix;
    std::uint32_t groups;
    double share;
    std::uint32_t* first_gpu_group;
    PK_HD void operator()(std::size_t) const {
        const double target = share * double(load_prefix[groups]);
        std::uint32_t lo = 0, hi = groups;
        while (lo < hi) {
            const std::uint32_t mid = lo + (hi - lo) / 2;
            if (double(load_prefix[mid]) < target) lo = mid + 1;
            else hi = mid;
        }
        *first_gpu_group = lo;
    }
};

struct MomentsOfBody {
    const Vec3d* position;
    const Vec3d* velocity;
    const Vec4f* body;
    const Vec4f* potential;
    PK_HD Moments operator()(std::size_t i) const {
        const double m = body[i].w;
        const Vec3d x = position[i], v = velocity[i];
        Moments r;
        r.kinetic = 0.5 * m * (v.x * v.x + v.y * v.y + v.z * v.z);
        r.potential = 0.5 * m * double(potential[i].w);
        r.mass = m;
        r.momentum[0] = m * v.x;
        r.momentum[1] = m * v.y;
        r.momentum[2] = m * v.z;
        r.angular_momentum[0] = m * (x.y * v.z - x.z * v.y);
        r.angular_momentum[1] = m * (x.z * v.x - x.x * v.z);
        r.angular_momentum[2] = m * (x.x * v.y - x.y * v.x);
        r.mass_moment[0] = m * x.x;
        r.mass_moment[1] = m * x.y;
        r.mass_moment[2] = m * x.z;
        return r;
    }
};

struct AddMoments {
    PK_HD Moments operator()(const Moments& a, const Moments& b) const { return Moments::combine(a, b); }
};

// Distance from the centre of mass as sortable bits (non-negative floats order as integers).
struct RadiusKeys {
    const Vec4f* bodies;
    const Moments* moments;
    std::uint32_t* key;
    std::uint32_t* index;
    PK_HD void operator()(std::size_t i) const {
        const Moments& m = *moments;
        const double inv = m.mass > 0.0 ? 1.0 / m.mass : 0.0;
        const Vec4f x = bodies[i];
        const double dx = double(x.x) - m.mass_moment[0] * inv, dy = double(x.y) - m.mass_moment[1] * inv,
                     dz = double(x.z) - m.mass_moment[2] * inv;
        const float r = float(sqrt(dx * dx + dy * dy + dz * dz));
        std::uint32_t bits;
        memcpy(&bits, &r, sizeof bits);
        key[i] = bits;
        index[i] = static_cast<std::uint32_t>(i);
    }
};

// cumulative[k] = mass of the k-th body by radius (k < n), cumulative[n] = 0: after an exclusive
// scan cumulative[k + 1] is the mass within the k-th radius.
struct MassByRadius {
    const std::uint32_t* order;
    const Vec4f* body;
    std::uint32_t n;
    double* cumulative;
    PK_HD void operator()(std::size_t k) const { cumulative[k] = k < n ? double(body[order[k]].w) : 0.0; }
};

struct LagrangianRadii {
    const std::uint32_t* sorted_key;
    const double* cumulative;
    std::uint32_t n;
    double f0, f1, f2;
    float* radius;
    PK_HD void operator()(std::size_t j) const {
        const double f = j == 0 ? f0 : (j == 1 ? f1 : f2);
        const double target = f * cumulative[n];
        std::uint32_t lo = 0, hi = n - 1;  // smallest k with cumulative[k + 1] >= target
        while (lo < hi) {
            const std::uint32_t mid = lo + (hi - lo) / 2;
            if (cumulative[mid + 1] < target) lo = mid + 1;
            else hi = mid;
        }
        float r;
        memcpy(&r, &sorted_key[lo], sizeof r);
        radius[j] = r;
    }
};

// Sample k: body samples[k] of every rank's (along the curve), one of this rank's, whose
// bodies start at first_own.
struct GatherSamples {
    const std::uint32_t* samples;
    const Vec4f* body;
    const Vec4f* accel;
    std::uint32_t first_own;
    Vec4f* targets;
    Vec4f* solver_values;
    PK_HD void operator()(std::size_t k) const {
        targets[k] = body[samples[k]];
        solver_values[k] = accel[samples[k] - first_own];
    }
};

}  // namespace kernels

template <class Exec> std::size_t workspace_bytes(const Exec& exec, std::size_t n) {
    std::size_t bytes = 256;
    auto grow = [&](std::size_t b) { bytes = b > bytes ? b : bytes; };
    grow(exec.template reduce_scratch_bytes<BoundingBox, kernels::CombineBoxes>(n));
    grow(exec.template reduce_scratch_bytes<Moments, kernels::AddMoments>(n));
    grow(exec.template reduce_scratch_bytes<std::uint64_t, SumOp>(group_count(n)));
    grow(exec.template sort_pairs_scratch_bytes<std::uint32_t, std::uint32_t>(n));
    grow(exec.template sort_pairs_scratch_bytes<std::uint64_t, std::uint32_t>(n));
    grow(exec.template exclusive_sum_scratch_bytes<double>(n + 1));
    grow(group_load_scratch_bytes(exec, n));
    return bytes;
}

namespace detail {

// NumericalError naming the first body with a non-finite position (host search; the run is over).
inline void report_nonfinite(SolverState& s) {
    std::vector<Vec3d> x(s.n);
    std::vector<std::uint64_t> ids(s.n);
    s.fields.download(field::position, x.data(), s.n);
    s.fields.download(field::id, ids.data(), s.n);
    for (std::size_t i = 0; i < s.n; ++i)
        if (!std::isfinite(x[i].x) || !std::isfinite(x[i].y) || !std::isfinite(x[i].z))
            throw NumericalError("nbody: step " + std::to_string(s.step) + ": body id " + std::to_string(ids[i]) +
                                 " has a non-finite position");
    throw NumericalError("nbody: step " + std::to_string(s.step) + ": a non-finite position");
}

template <class Exec> void bounding_box(const Exec& exec, SolverState& s) {
    auto scope = s.profile.phase("box");
    exec.transform_reduce(s.workspace, s.n, kernels::BoxOfPosition{s.position()}, kernels::CombineBoxes{},
                          kernels::empty_box(), s.box.data());
    if (!s.ranks) return;
    // Every rank's box: the keys of every rank then share one cube. A non-finite position on
    // any rank ends every rank here, with the first such rank's message.
    const dist::Communicator& comm = s.ranks->comm;
    BoundingBox box = kernels::empty_box();
    for (const BoundingBox& b : comm.allgather(exec.read_value(s.box.data()))) box = kernels::CombineBoxes{}(box, b);
    if (box.nonfinite) {
        std::optional<dist::Failure> mine;
        try {
            if (exec.read_value(s.box.data()).nonfinite) report_nonfinite(s);
        } catch (...) {
            mine = dist::failure_of(std::current_exception(), s.ranks->rank);
        }
        comm.settle(mine);
    }
    exec.write_value(s.box.data(), box);
}

// The walk of this rank's bodies through the tree of every rank's.
inline TreeWalk device_walk(SolverState& s, bool with_potential, Vec4f* out) {
    TreeWalk w;
    w.tree = s.tree->view();
    w.bodies = s.tree_bodies();
    w.body_count = s.tree_size();
    w.target_begin = s.first_own();
    w.target_end = s.first_own() + s.n;
    w.G = float(s.params.units.G);
    w.softening = s.params.softening;
    w.theta = s.params.theta;
    w.quadrupole = s.params.quadrupole;
    w.with_potential = with_potential;
    w.group_begin = 0;
    w.group_end = group_count(s.n);
    w.out = out;
    w.cell_interactions = s.group_cells.data();
    w.body_interactions = s.group_pairs.data();
    return w;
}

// Every rank's `bytes` bytes per body of `mine` (this rank's n bodies) into `all`, in rank
// order along the curve (first[]), on the device.
inline void all_gather_bodies(RankState& d, const void* mine, std::size_t n, void* all, std::size_t bytes) {
    d.sends.clear();
    d.receives.clear();
    auto* out = static_cast<std::byte*>(all);
    for (int q = 0; q < d.size; ++q) {
        const std::size_t count = d.first[std::size_t(q) + 1] - d.first[std::size_t(q)];
        d.sends.push_back({q, mine, n * bytes});
        d.receives.push_back({q, out + d.first[std::size_t(q)] * bytes, count * bytes});
    }
    d.comm.exchange(d.sends, d.receives);
}

// Across ranks, after the bodies were sorted along the curve: each body goes to the rank owning
// its key (partition.hpp), arrivals are merged with the stayers into curve order, and every
// rank's bodies and keys are gathered in curve order. Returns the keys of every rank's bodies.
template <class Exec> const std::uint64_t* exchange_bodies(const Exec& exec, SolverState& s) {
    RankState& d = *s.ranks;
    Octree& tree = *s.tree;
    const std::size_t ranks = std::size_t(d.size), me = std::size_t(d.rank);
    std::vector<std::uint32_t> rows(ranks + 1);
    const std::uint64_t* own_keys = nullptr;  // this rank's keys along the curve, after the migration
    {
        auto scope = s.profile.phase("migrate");
        // The bodies for rank q are rows [rows[q], rows[q+1]) of the sorted keys.
        bound_starts(exec, tree.sorted_keys(), s.n, d.splitters_device.data(), ranks + 1, d.split_rows.data(),
                     "nbody.split_rows");
        exec.copy_to_host(rows.data(), d.split_rows.data(), rows.size() * sizeof(std::uint32_t));
        std::vector<std::uint64_t> leaving(ranks);
        for (std::size_t q = 0; q < ranks; ++q) leaving[q] = rows[q + 1] - rows[q];
        // sent[q * ranks + p]: rank q's bodies for rank p; every rank sees every count.
        const std::vector<std::uint64_t> sent = d.comm.allgather_concat(std::span<const std::uint64_t>(leaving));
        d.migrated = 0;
        for (std::size_t p = 0; p < ranks; ++p) {
            std::uint64_t held = 0, rows_needed = 0;  // after the migration; during it (arrivals after all rows)
            for (std::size_t q = 0; q < ranks; ++q) {
                held += sent[q * ranks + p];
                rows_needed += q == p ? 0 : sent[q * ranks + p];
                if (q != p) d.migrated += sent[q * ranks + p];
            }
            std::uint64_t own_rows = 0;
            for (std::size_t q = 0; q < ranks; ++q) own_rows += sent[p * ranks + q];
            rows_needed += own_rows;
            d.first[p + 1] = d.first[p] + held;
            // Every rank sees every count: the same error everywhere, agreed.
            if (rows_needed > d.capacity)
                d.comm.collectively([&] {
                    throw OutOfMemoryError("nbody: rank " + std::to_string(p) + " needs room for " +
                                               std::to_string(rows_needed) + " bodies in a migration; it has " +
                                               std::to_string(d.capacity) + " (the split could not follow the bodies)",
                                           rows_needed * migrating_bytes(), d.capacity * migrating_bytes());
                });
        }
        // Leavers go from their sorted rows; arrivals land after this rank's rows.
        d.sends.clear();
        d.receives.clear();
        std::size_t arrived = 0;
        for (std::size_t q = 0; q < ranks; ++q) {
            if (q == me) continue;
            const std::size_t out = rows[q + 1] - rows[q], in = sent[q * ranks + me];
            for (int f = 0; f < field::count; ++f) {
                if (!(kNbodyFields[f].flags & kFieldGather)) continue;
                const std::size_t record = field_element_bytes(kNbodyFields[f]);
                auto* base = static_cast<std::byte*>(s.fields.raw(f, record));
                if (out) d.sends.push_back({int(q), base + rows[q] * record, out * record});
                if (in) d.receives.push_back({int(q), base + (s.n + arrived) * record, in * record});
            }
            arrived += in;
        }
        d.comm.exchange(d.sends, d.receives);
        const std::size_t stay = rows[me + 1] - rows[me];
        const std::uint64_t* keys = tree.sorted_keys();
        if (arrived > 0 || rows[me] > 0) {
            const auto m = static_cast<std::uint32_t>(arrived);
            exec.for_each(arrived,
                          kernels::ArrivedKeys{s.box.data(), s.position(), static_cast<std::uint32_t>(s.n),
                                               d.arrived_keys.data(), d.arrived_rows.data()},
                          "nbody.arrived_keys");
            exec.sort_pairs(s.workspace, d.arrived_keys.data(), d.arrived_keys_sorted.data(), d.arrived_rows.data(),
                            d.arrived_order.data(), arrived, 0, 3 * kMortonBitsPerAxis);
            const std::uint64_t* stay_keys = tree.sorted_keys() + rows[me];
            exec.for_each(stay,
                          kernels::MergePlace{stay_keys, nullptr, rows[me], d.arrived_keys_sorted.data(), m, false,
                                              d.merged_keys.data(), d.merged_order.data()},
                          "nbody.merge_stayers");
            exec.for_each(arrived,
                          kernels::MergePlace{d.arrived_keys_sorted.data(), d.arrived_order.data(), 0, stay_keys,
                                              static_cast<std::uint32_t>(stay), true, d.merged_keys.data(),
                                              d.merged_order.data()},
                          "nbody.merge_arrivals");
            s.fields.gather(exec, d.merged_order.data(), stay + arrived, kFieldGather,
                            kernels::BodyRecord{s.position(), s.fields.data<float>(field::mass), s.body()});
            keys = d.merged_keys.data();
        }
        s.n = stay + arrived;
        d.total = d.first[ranks];
        own_keys = keys;
    }
    auto scope = s.profile.phase("gather");
    all_gather_bodies(d, s.body(), s.n, d.all_bodies.data(), sizeof(Vec4f));
    all_gather_bodies(d, own_keys, s.n, d.all_keys.data(), sizeof(std::uint64_t));
    return d.all_keys.data();
}

// The tree of the current positions: box, keys, sort, reorder along the curve, nodes,
// multipoles; across ranks the migration and the gather of every rank's bodies come between.
template <class Exec> void rebuild_tree(const Exec& exec, SolverState& s) {
    Octree& tree = *s.tree;
    bounding_box(exec, s);
    {
        auto scope = s.profile.phase("keys");
        tree.compute_keys(exec, s.box.data(), s.position(), s.n);
    }
    {
        auto scope = s.profile.phase("sort");
        tree.sort_keys(exec, s.n);
    }
    {
        auto scope = s.profile.phase("reorder");
        s.fields.gather(exec, tree.order(), s.n, kFieldGather,
                        kernels::BodyRecord{s.position(), s.fields.data<float>(field::mass), s.body()});
    }
    const std::uint64_t* keys = s.ranks ? exchange_bodies(exec, s) : tree.sorted_keys();
    {
        auto scope = s.profile.phase("build");
        tree.build_nodes(exec, s.box.data(), keys, s.tree_size());
    }
    if (!s.ranks && exec.read_value(s.box.data()).nonfinite) report_nonfinite(s);
    auto scope = s.profile.phase("multipoles");
    tree.compute_multipoles(exec, s.tree_bodies());
}

template <class Exec> void hybrid_walk(const Exec& exec, SolverState& s) {
    HybridState& h = *s.hybrid;
    const Octree& tree = *s.tree;
    const std::size_t n = s.n;
    const auto groups = static_cast<std::uint32_t>(group_count(n));
    const std::size_t nodes = tree.node_count();
    const TreeView v = tree.view();
    group_load_prefix(exec, s.workspace, tree.leaf_levels(), n, h.load_prefix.data());
    const double share = h.threads.cpu_share();
    exec.for_each(1, kernels::SplitGroups{h.load_prefix.data(), groups, share, h.first_gpu_group.data()},
                  "nbody.hybrid.split");
    // The tree goes to the host on a second queue while the device walks its share.
    h.tree_ready.record(s.backend);
    h.tree_ready.enqueue_wait(h.copy_queue);
    auto to_host = [&](void* dst, const void* src, std::size_t bytes) {
        copy_bytes(h.copy_queue, dst, src, bytes, CopyDirection::device_to_host, true);
    };
    to_host(h.bodies.data(), s.body(), n * sizeof(Vec4f));
    to_host(h.com_mass.data(), v.com_mass, nodes * sizeof(Vec4f));
    to_host(h.cube.data(), v.cube, nodes * sizeof(Vec4f));
    to_host(h.links.data(), v.links, nodes * sizeof(NodeLinks));
    if (s.params.quadrupole) {
        to_host(h.quad.data(), v.quad, nodes * sizeof(Vec4f));
        to_host(h.quad_yz.data(), v.quad_yz, nodes * sizeof(float));
    }
    to_host(h.load_prefix_host.data(), h.load_prefix.data(), (std::size_t(groups) + 1) * sizeof(std::uint32_t));
    to_host(h.first_gpu_group_host.data(), h.first_gpu_group.data(), sizeof(std::uint32_t));
    h.tree_copied.record(h.copy_queue);

    TreeWalk walk = device_walk(s, false, s.accel());
    walk.first_group = h.first_gpu_group.data();
    h.gpu_timer.start();
    tree_forces(exec, walk);
    h.gpu_timer.stop();

    Stopwatch clock;
    h.tree_copied.synchronize();
    const std::uint32_t cpu_groups = h.first_gpu_group_host.data()[0];
    TreeWalk host = walk;
    host.tree = TreeView{h.com_mass.data(), h.cube.data(), h.links.data(), h.quad.data(), h.quad_yz.data(), v.node_count};
    host.bodies = h.bodies.data();
    host.first_group = nullptr;
    host.out = h.accel.data();
    host.cell_interactions = h.cells.data();
    host.body_interactions = h.pairs.data();
    walk_on_cpu_threads(host, std::span<const std::uint32_t>(h.load_prefix_host.data(), std::size_t(groups) + 1),
                        cpu_groups, h.threads.cpu_threads());
    const std::size_t cpu_bodies = std::min<std::size_t>(n, std::size_t(cpu_groups) * kGroupSize);
    auto to_device = [&](void* dst, const void* src, std::size_t bytes) {
        copy_bytes(h.copy_queue, dst, src, bytes, CopyDirection::host_to_device, true);
    };
    to_device(s.accel(), h.accel.data(), cpu_bodies * sizeof(Vec4f));
    to_device(s.group_cells.data(), h.cells.data(), cpu_groups * sizeof(std::uint32_t));
    to_device(s.group_pairs.data(), h.pairs.data(), cpu_groups * sizeof(std::uint32_t));
    h.results_uploaded.record(h.copy_queue);
    // The upload counts as the CPU's time (the thesis adds the transfer latency to t_CPU).
    h.results_uploaded.synchronize();
    const double cpu_seconds = clock.seconds();
    const double gpu_seconds = h.gpu_timer.seconds();
    h.results_uploaded.enqueue_wait(s.backend);  // the kick reads the CPU's results
    h.status = HybridStatus{h.threads.count(), h.threads.cpu_threads(), share, cpu_groups, groups, cpu_seconds, gpu_seconds};
    h.threads.update(cpu_seconds, gpu_seconds);
}

// The direct sum of every body on every body, into `out` (accelerations, with the potential in
// .w when asked). Across ranks the sources pass round a ring: in round k this rank sums the
// bodies of rank (r - k) mod R while it sends them on to rank r + 1 and receives the next
// round's from rank r - 1, so every rank sums every body, its own first.
template <class Exec> void direct_sum(const Exec& exec, SolverState& s, Vec4f* out, bool with_potential) {
    DirectSum d;
    d.targets = s.body();
    d.target_count = s.n;
    d.sources = s.body();
    d.source_count = s.n;
    d.G = float(s.params.units.G);
    d.softening = s.params.softening;
    d.with_potential = with_potential;
    d.out = out;
    d.partial = s.direct_partial.empty() ? nullptr : s.direct_partial.data();
    if (!s.ranks) {
        direct_forces(exec, d);
        return;
    }
    RankState& r = *s.ranks;
    for (int round = 0; round < r.size; ++round) {
        const bool last = round + 1 == r.size;
        if (!last) {
            const int from = (r.rank - round - 1 + 2 * r.size) % r.size;  // whose bodies arrive next
            const std::size_t count = r.first[std::size_t(from) + 1] - r.first[std::size_t(from)];
            r.sends.assign(1, dist::SendBytes{(r.rank + 1) % r.size, d.sources, d.source_count * sizeof(Vec4f)});
            r.receives.assign(1, dist::ReceiveBytes{(r.rank - 1 + r.size) % r.size, r.ring[round % 2].data(),
                                                    count * sizeof(Vec4f)});
            r.comm.start_exchange(r.sends, r.receives);
            direct_forces(exec, d);
            r.comm.finish_exchange();
            d.sources = r.ring[round % 2].data();
            d.source_count = count;
        } else {
            direct_forces(exec, d);
        }
        d.targets_among_sources = false;
        d.accumulate = true;
    }
}

// Every rank's bodies along the curve in all_bodies (the tree keeps them so; the direct sum
// gathers them here): the sources of the force-error references and the Lagrangian radii.
template <class Exec> const Vec4f* every_body(const Exec&, SolverState& s) {
    if (s.ranks && !s.tree) all_gather_bodies(*s.ranks, s.body(), s.n, s.ranks->all_bodies.data(), sizeof(Vec4f));
    return s.tree_bodies();
}

// Across ranks, each rank's walk time of the last step (all-gathered), and for the tree the
// next split (partition.hpp): the splitters become the keys at the new cuts.
inline void balance(SolverState& s) {
    RankState& d = *s.ranks;
    d.walk_seconds = d.comm.allgather(d.walk_timer.seconds());
    if (!s.tree) return;
    const std::vector<std::size_t> cuts =
        balanced_split(d.first, d.walk_seconds, kBalanceDamping, std::size_t(kBalanceShare * double(d.capacity)));
    for (std::size_t k = 1; k < cuts.size() - 1; ++k) {
        std::uint64_t key = kKeyEnd;
        if (cuts[k] < d.total) copy_bytes(s.backend, &key, d.all_keys.data() + cuts[k], sizeof key, CopyDirection::device_to_host);
        d.splitters[k] = key;
    }
    d.splitters_device.copy_from_host(d.splitters);
}

}  // namespace detail

// Accelerations at the current positions (the tree methods reorder the bodies first).
template <class Exec> void compute_forces(const Exec& exec, SolverState& s) {
    if (s.params.method == ForceMethod::direct) {
        detail::bounding_box(exec, s);
        if (!s.ranks && exec.read_value(s.box.data()).nonfinite) detail::report_nonfinite(s);
        auto scope = s.profile.phase("direct");
        if (s.ranks) s.ranks->walk_timer.start();
        detail::direct_sum(exec, s, s.accel(), false);
        if (s.ranks) s.ranks->walk_timer.stop();
        return;
    }
    detail::rebuild_tree(exec, s);
    auto scope = s.profile.phase("traversal");
    if (s.ranks) s.ranks->walk_timer.start();
    if (s.params.method == ForceMethod::hybrid) detail::hybrid_walk(exec, s);
    else tree_forces(exec, detail::device_walk(s, false, s.accel()));
    if (s.ranks) s.ranks->walk_timer.stop();
}

template <class Exec> void advance(const Exec& exec, SolverState& s) {
    const double dt = s.params.dt;
    {
        auto scope = s.profile.phase("integration");
        const bool direct = s.params.method == ForceMethod::direct;
        exec.for_each(s.n,
                      kernels::KickDrift{s.position(), s.velocity(), s.accel(),
                                         direct ? s.body() : nullptr, 0.5 * dt, dt},
                      "nbody.kick_drift");
    }
    compute_forces(exec, s);
    {
        auto scope = s.profile.phase("integration");
        exec.for_each(s.n, kernels::Kick{s.velocity(), s.accel(), 0.5 * dt}, "nbody.kick");
    }
    if (s.ranks) {
        auto scope = s.profile.phase("balance");
        detail::balance(s);
    }
    s.step += 1;
    s.time += dt;
    s.last_dt = dt;
    s.potential_current = false;
}

template <class Exec> void potential_pass(const Exec& exec, SolverState& s) {
    if (s.params.method == ForceMethod::direct) {
        detail::direct_sum(exec, s, s.potential(), true);
    } else {
        TreeWalk w = detail::device_walk(s, true, s.potential());
        w.cell_interactions = nullptr;  // keep the counts of the step's walk
        w.body_interactions = nullptr;
        tree_forces(exec, w);
    }
    s.potential_current = true;
}

template <class Exec> Diagnostics compute_diagnostics(const Exec& exec, SolverState& s) {
    if (!s.potential_current) potential_pass(exec, s);
    const Moments zero{};
    exec.transform_reduce(s.workspace, s.n,
                          kernels::MomentsOfBody{s.position(), s.velocity(), s.body(), s.potential()},
                          kernels::AddMoments{}, zero, s.moments.data());
    Moments m = exec.read_value(s.moments.data());
    if (s.ranks) {
        m = s.ranks->comm.allreduce_combine(m);
        exec.write_value(s.moments.data(), m);
    }
    // The radii from every rank's bodies (each rank sorts them all: diagnostics only).
    const Vec4f* bodies = detail::every_body(exec, s);
    const std::size_t n = s.tree_size();
    const auto n32 = static_cast<std::uint32_t>(n);
    exec.for_each(n, kernels::RadiusKeys{bodies, s.moments.data(), s.radius_key.data(), s.radius_index.data()},
                  "nbody.radius_keys");
    exec.sort_pairs(s.workspace, s.radius_key.data(), s.radius_key_sorted.data(), s.radius_index.data(),
                    s.radius_order.data(), n);
    exec.for_each(n + 1, kernels::MassByRadius{s.radius_order.data(), bodies, n32, s.cumulative_mass.data()},
                  "nbody.mass_by_radius");
    exec.exclusive_sum(s.workspace, s.cumulative_mass.data(), s.cumulative_mass.data(), n + 1);
    exec.for_each(3,
                  kernels::LagrangianRadii{s.radius_key_sorted.data(), s.cumulative_mass.data(), n32,
                                           kLagrangianFractions[0], kLagrangianFractions[1], kLagrangianFractions[2],
                                           s.lagrangian.data()},
                  "nbody.lagrangian_radii");
    float radii[3];
    exec.copy_to_host(radii, s.lagrangian.data(), sizeof radii);
    Diagnostics d;
    d.step = s.step;
    d.time = s.time;
    d.kinetic = m.kinetic;
    d.potential = m.potential;
    d.total = m.kinetic + m.potential;
    d.mass = m.mass;
    for (int k = 0; k < 3; ++k) {
        d.momentum[k] = m.momentum[k];
        d.angular_momentum[k] = m.angular_momentum[k];
        d.centre_of_mass[k] = m.mass > 0.0 ? m.mass_moment[k] / m.mass : 0.0;
        d.lagrangian_radius[k] = radii[k];
    }
    d.virial_ratio = m.potential != 0.0 ? 2.0 * m.kinetic / std::fabs(m.potential) : std::nan("");
    return d;
}

template <class Exec> Interactions count_interactions(const Exec& exec, SolverState& s) {
    Interactions r;
    if (s.params.method == ForceMethod::direct) {
        r.bodies = std::uint64_t(s.tree_size()) * std::uint64_t(s.tree_size());
        return r;
    }
    const std::size_t groups = group_count(s.n);
    exec.transform_reduce(s.workspace, groups, LoadAs<std::uint32_t, std::uint64_t>{s.group_cells.data()}, SumOp{},
                          std::uint64_t{0}, s.interaction_sums.data());
    exec.transform_reduce(s.workspace, groups, LoadAs<std::uint32_t, std::uint64_t>{s.group_pairs.data()}, SumOp{},
                          std::uint64_t{0}, s.interaction_sums.data() + 1);
    std::uint64_t sums[2];
    exec.copy_to_host(sums, s.interaction_sums.data(), sizeof sums);
    if (s.ranks) s.ranks->comm.allreduce(std::span<std::uint64_t>(sums, 2), dist::ReduceOp::sum);
    r.cells = sums[0];
    r.bodies = sums[1];
    return r;
}

template <class Exec>
void reference_accelerations(const Exec& exec, SolverState& s, const std::uint32_t* samples, std::size_t count,
                             Vec4f* targets, Vec4f* reference, Vec4f* solver_values, Vec4f* partial) {
    const Vec4f* bodies = detail::every_body(exec, s);
    exec.for_each(count,
                  kernels::GatherSamples{samples, bodies, s.accel(), static_cast<std::uint32_t>(s.first_own()),
                                         targets, solver_values},
                  "nbody.gather_samples");
    DirectSum d;
    d.targets = targets;
    d.target_count = count;
    d.target_source_index = samples;
    d.sources = bodies;
    d.source_count = s.tree_size();
    d.G = float(s.params.units.G);
    d.softening = s.params.softening;
    d.double_sums = true;
    d.out = reference;
    d.partial = partial;
    direct_forces(exec, d);
}

template <class Exec> std::size_t reference_partial_capacity(const Exec& exec, std::size_t count) {
    return direct_partial_capacity(exec, count);
}

// The family's instantiations, once per backend (solver_cpu.cpp, solver_cuda.cu).
#define PK_NBODY_SOLVER_INSTANTIATE(Exec)                                                                  \
    template std::size_t workspace_bytes(const Exec&, std::size_t);                                        \
    template void compute_forces(const Exec&, SolverState&);                                               \
    template void advance(const Exec&, SolverState&);                                                      \
    template void potential_pass(const Exec&, SolverState&);                                               \
    template Diagnostics compute_diagnostics(const Exec&, SolverState&);                                   \
    template Interactions count_interactions(const Exec&, SolverState&);                                   \
    template void reference_accelerations(const Exec&, SolverState&, const std::uint32_t*, std::size_t,   \
                                          Vec4f*, Vec4f*, Vec4f*, Vec4f*);                                 \
    template std::size_t reference_partial_capacity(const Exec&, std::size_t);

}  // namespace partikel::nbody
