// The octree's build and walk (nbody/tree.hpp), written once for both backends; instantiated
// by tree_cpu.cpp and tree_cuda.cu.
#pragma once

#include <bit>
#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "base/hd.hpp"
#include "core/exec.hpp"
#include "core/morton.hpp"
#include "nbody/gravity.hpp"
#include "nbody/tree.hpp"

namespace partikel::nbody {

namespace kernels {

// Number of leading tree levels (3 key bits each) two keys share, 0..kMaxTreeDepth.
PK_DEVICE_INLINE int shared_levels(std::uint64_t a, std::uint64_t b) {
    const std::uint64_t x = a ^ b;
    if (x == 0) return kMaxTreeDepth;
#if defined(__CUDA_ARCH__)
    const int zeros = __clzll(static_cast<long long>(x));
#else
    const int zeros = std::countl_zero(x);
#endif
    return (zeros - 1) / 3;  // bit 63 is never set
}

struct MortonKeys {
    const BoundingBox* box;
    const Vec3d* positions;
    std::uint64_t* keys;
    std::uint32_t* index;
    PK_HD void operator()(std::size_t i) const {
        keys[i] = morton_key(root_cube(*box), positions[i]);
        index[i] = static_cast<std::uint32_t>(i);
    }
};

// window[s] = levels shared by the sorted keys s and s + c, for s + c < n.
struct WindowLevels {
    const std::uint64_t* keys;
    std::uint32_t capacity;
    std::uint8_t* window;
    PK_HD void operator()(std::size_t s) const {
        window[s] = static_cast<std::uint8_t>(shared_levels(keys[s], keys[s + capacity]));
    }
};

// The leaf level of body i and the number of nodes it owns (tree.hpp); owned[n] = 0.
struct LeafLevels {
    const std::uint64_t* keys;
    const std::uint8_t* window;
    std::uint32_t n;
    std::uint32_t capacity;
    std::uint32_t max_depth;
    std::uint8_t* leaf_level;
    std::uint32_t* owned;
    PK_HD void operator()(std::size_t k) const {
        const auto i = static_cast<std::uint32_t>(k);
        if (i == n) {
            owned[n] = 0;
            return;
        }
        int widest = -1;
        if (n > capacity) {
            const std::uint32_t first = i > capacity ? i - capacity : 0;
            const std::uint32_t last = i < n - 1 - capacity ? i : n - 1 - capacity;
            for (std::uint32_t s = first; s <= last; ++s) widest = window[s] > widest ? window[s] : widest;
        }
        const int leaf = widest + 1 < int(max_depth) ? widest + 1 : int(max_depth);
        const int first_level = i == 0 ? 0 : shared_levels(keys[i - 1], keys[i]) + 1;
        leaf_level[i] = static_cast<std::uint8_t>(leaf);
        owned[i] = first_level <= leaf ? static_cast<std::uint32_t>(leaf - first_level + 1) : 0u;
    }
};

// Writes the nodes body i owns: links and cube (tree.hpp).
struct WriteNodes {
    const BoundingBox* box;
    const std::uint64_t* keys;
    const std::uint8_t* leaf_level;
    const std::uint32_t* offset;  // first node owned by each body; offset[n] = node count
    std::uint32_t n;
    std::uint32_t capacity;
    std::uint32_t max_depth;
    NodeLinks* links;
    Vec4f* cube;
    std::uint8_t* node_level;
    PK_HD void operator()(std::size_t k) const {
        const auto i = static_cast<std::uint32_t>(k);
        const int leaf = leaf_level[i];
        const int first_level = i == 0 ? 0 : shared_levels(keys[i - 1], keys[i]) + 1;
        if (first_level > leaf) return;
        const RootCube c = root_cube(*box);
        const std::uint64_t key = keys[i];
        const std::uint32_t cell[3] = {morton_compact(key), morton_compact(key >> 1), morton_compact(key >> 2)};
        const std::uint32_t node_count = offset[n];
        for (int level = first_level; level <= leaf; ++level) {
            // The cell's end: the first body whose top 3 * level key bits differ. A leaf below
            // the depth cap holds at most c bodies.
            std::uint32_t end = n;
            if (level > 0) {
                const int shift = 63 - 3 * level;
                const std::uint64_t prefix = key >> shift;
                std::uint32_t lo = i + 1;
                std::uint32_t hi = (level == leaf && leaf < int(max_depth) && n - i > capacity) ? i + capacity + 1 : n;
                while (lo < hi) {
                    const std::uint32_t mid = lo + (hi - lo) / 2;
                    if ((keys[mid] >> shift) == prefix) lo = mid + 1;
                    else hi = mid;
                }
                end = lo;
            }
            const std::uint32_t node = offset[i] + static_cast<std::uint32_t>(level - first_level);
            const double size = c.edge / double(1u << level);
            links[node] = NodeLinks{end < n ? offset[end] : node_count, i,
                                    end | (level == leaf ? NodeLinks::kLeafBit : 0u), float(0.5 * size)};
            node_level[node] = static_cast<std::uint8_t>(level);
            const int drop = kMortonBitsPerAxis - level;
            cube[node] = Vec4f{float(c.lo[0] + (double(cell[0] >> drop) + 0.5) * size),
                               float(c.lo[1] + (double(cell[1] >> drop) + 0.5) * size),
                               float(c.lo[2] + (double(cell[2] >> drop) + 0.5) * size), float(0.5 * size)};
        }
    }
};

// The traceless quadrupole of mass m at offset d, added to q (xx, yy, xy, xz) and qyz.
PK_DEVICE_INLINE void add_quadrupole(float m, Vec3f d, Vec4f& q, float& qyz) {
    const float d2 = d.x * d.x + d.y * d.y + d.z * d.z;
    q.x += m * (3.0f * d.x * d.x - d2);
    q.y += m * (3.0f * d.y * d.y - d2);
    q.z += m * (3.0f * d.x * d.y);
    q.w += m * (3.0f * d.x * d.z);
    qyz += m * (3.0f * d.y * d.z);
}

// Multipoles of the nodes of one level (threads over all nodes; others return at once).
// Positions are taken relative to the cell's centre so that float sums keep their digits.
struct Multipoles {
    const Vec4f* bodies;
    const NodeLinks* links;
    const std::uint8_t* node_level;
    const Vec4f* cube;
    Vec4f* com_mass;
    Vec4f* quad;
    float* quad_yz;
    std::uint32_t level;
    PK_HD void operator()(std::size_t k) const {
        if (node_level[k] != level) return;
        const NodeLinks node = links[k];
        const Vec3f centre = cube[k].xyz();
        float mass = 0.0f;
        Vec3f moment{0.0f, 0.0f, 0.0f};
        Vec4f q{0.0f, 0.0f, 0.0f, 0.0f};
        float qyz = 0.0f;
        if (node.leaf()) {
            for (std::uint32_t j = node.begin; j < node.end(); ++j) {
                const Vec4f b = bodies[j];
                mass += b.w;
                moment += b.w * (b.xyz() - centre);
            }
            const Vec3f com = mass > 0.0f ? moment / mass : Vec3f{0.0f, 0.0f, 0.0f};
            for (std::uint32_t j = node.begin; j < node.end(); ++j) {
                const Vec4f b = bodies[j];
                add_quadrupole(b.w, (b.xyz() - centre) - com, q, qyz);
            }
            moment = com;
        } else {
            for (std::uint32_t child = std::uint32_t(k) + 1; child < node.next; child = links[child].next) {
                const Vec4f c = com_mass[child];
                mass += c.w;
                moment += c.w * (c.xyz() - centre);
            }
            const Vec3f com = mass > 0.0f ? moment / mass : Vec3f{0.0f, 0.0f, 0.0f};
            for (std::uint32_t child = std::uint32_t(k) + 1; child < node.next; child = links[child].next) {
                const Vec4f c = com_mass[child];
                const Vec4f cq = quad[child];
                q.x += cq.x;
                q.y += cq.y;
                q.z += cq.z;
                q.w += cq.w;
                qyz += quad_yz[child];
                add_quadrupole(c.w, (c.xyz() - centre) - com, q, qyz);
            }
            moment = com;
        }
        const Vec3f com = centre + moment;
        com_mass[k] = Vec4f{com.x, com.y, com.z, mass};
        quad[k] = q;
        quad_yz[k] = qyz;
    }
};

// dx^2 + dy^2 + dz^2 with every product and sum rounded (no fused multiply-add on the GPU, where
// the compiler would otherwise contract them), so that the walk takes the same decisions on both
// backends from the same tree: the hybrid's CPU and GPU halves then walk exactly the same cells.
PK_DEVICE_INLINE float rounded_square_sum(float dx, float dy, float dz) {
#if defined(__CUDA_ARCH__)
    return __fadd_rn(__fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy)), __fmul_rn(dz, dz));
#else
    return dx * dx + dy * dy + dz * dz;  // ISO C++ mode: no contraction
#endif
}

// Whether any thread of a block of one warp says yes: a warp vote on the GPU; on the CPU, where
// one thread runs the block's threads one after the other, their answers ORed without a branch
// (a SIMD reduction over the block). Every thread gets the same answer, so the block's control
// flow stays uniform. (A block collective like this would sit well beside PerThread in
// core/exec.hpp.)
template <class Block, class Predicate> PK_DEVICE_INLINE bool any_thread(Block& b, Predicate predicate) {
    static_assert(Block::kThreads == 32, "any_thread: the block is one warp");
    unsigned any = 0;
    b.threads([&](int t) { any |= unsigned(predicate(t)); });
#if defined(__CUDA_ARCH__)
    any = __any_sync(0xffffffffu, any);
#endif
    return any != 0;
}

// The walk of one group. Every value a body keeps is a PerThread of its own (x, y, z, a_x, ...):
// registers on the GPU, and on the CPU arrays over the group's 32 bodies, so that each
// b.threads below is a loop over contiguous floats that the compiler turns into SIMD code (a
// cell or a source body broadcast against the group's bodies).
template <bool WithPotential, bool Quadrupole> struct TreeWalkGroups {
    static constexpr int kThreads = kGroupSize;
    TreeView tree;
    const Vec4f* bodies;
    std::uint32_t target_begin;
    std::uint32_t target_end;
    float G;
    float eps2;
    float open_factor;  // (2 / theta)^2: the cell of half edge h is used whole when d^2 > h^2 open_factor
    bool guard;         // theta > 1/sqrt(3): also require the body outside the cell's cube
    std::uint32_t group_offset;
    const std::uint32_t* first_group;
    Vec4f* out;
    std::uint32_t* cell_interactions;
    std::uint32_t* body_interactions;

    template <class Block> PK_HD PK_CPU_SIMD_CLONES void operator()(Block& b) const {
        const std::uint32_t g = group_offset + static_cast<std::uint32_t>(b.index());
        if (first_group && g < *first_group) return;
        const std::uint32_t first = target_begin + g * kGroupSize;
        const std::uint32_t count =
            target_end - first < std::uint32_t(kGroupSize) ? target_end - first : std::uint32_t(kGroupSize);
        PerThread<float, Block> x(b), y(b), z(b), ax(b), ay(b), az(b), phi(b);
        b.threads([&](int t) {
            // Lanes past the last body repeat it and write nothing.
            const Vec4f self = bodies[first + (std::uint32_t(t) < count ? std::uint32_t(t) : count - 1)];
            x[t] = self.x;
            y[t] = self.y;
            z[t] = self.z;
            ax[t] = 0.0f;
            ay[t] = 0.0f;
            az[t] = 0.0f;
            phi[t] = 0.0f;
        });
        // One interaction of every body of the group: add(body, a, phi).
        auto interact = [&](auto add) {
            b.threads([&](int t) {
                Vec3f a{ax[t], ay[t], az[t]};
                float p = phi[t];
                add(Vec4f{x[t], y[t], z[t], 0.0f}, t, a, p);
                ax[t] = a.x;
                ay[t] = a.y;
                az[t] = a.z;
                phi[t] = p;
            });
        };
        std::uint32_t cells = 0, pairs = 0;
        std::uint32_t k = 0;
        while (k < tree.node_count) {
            const NodeLinks node = tree.links[k];
            const Vec4f com = tree.com_mass[k];
            // The opening test of every body: the cell may be used whole for it when l/d < theta
            // (d^2 > h^2 (2/theta)^2), and for theta > 1/sqrt(3) when the body is also outside
            // the cell's cube, with a relative margin for rounding (for smaller theta the
            // distance test implies that: d > sqrt(3) l). The group uses the cell whole only if
            // every body may: no body is near by distance, nor (guard) inside the cube.
            const float limit = node.half * node.half * open_factor;
            bool open = any_thread(b, [&](int t) {
                return !(rounded_square_sum(x[t] - com.x, y[t] - com.y, z[t] - com.z) > limit);
            });
            if (!open && guard) {
                const Vec4f cube = tree.cube[k];
                const float reach = 1.0001f * cube.w;
                open = any_thread(b, [&](int t) {
                    return !((fabsf(x[t] - cube.x) > reach) | (fabsf(y[t] - cube.y) > reach) | (fabsf(z[t] - cube.z) > reach));
                });
            }
            if (!open) {
                const Vec4f q = Quadrupole ? tree.quad[k] : Vec4f{0.0f, 0.0f, 0.0f, 0.0f};
                const float qyz = Quadrupole ? tree.quad_yz[k] : 0.0f;
                interact([&](Vec4f self, int, Vec3f& a, float& p) { add_cell<WithPotential, Quadrupole>(self, com, q, qyz, eps2, a, p); });
                ++cells;
                k = node.next;
            } else if (node.leaf()) {
                // Source by source, each against the whole group: every body sums its sources
                // in the leaf's order, as a loop over the sources per body would.
                for (std::uint32_t j = node.begin; j < node.end(); ++j) {
                    const Vec4f source = bodies[j];
                    interact([&](Vec4f self, int t, Vec3f& a, float& p) {
                        add_point_mass<WithPotential, float>(self, source, eps2, a, p, j == first + std::uint32_t(t));
                    });
                }
                pairs += node.end() - node.begin;
                k = node.next;
            } else {
                ++k;
            }
        }
        b.threads([&](int t) {
            if (std::uint32_t(t) < count)
                out[first - target_begin + std::uint32_t(t)] = Vec4f{G * ax[t], G * ay[t], G * az[t], WithPotential ? G * phi[t] : 0.0f};
            if (t == 0 && cell_interactions) cell_interactions[g] = cells * count;
            if (t == 0 && body_interactions) body_interactions[g] = pairs * count;
        });
    }
};

// Per group: sum over its bodies of 1 + leaf level; load[groups] = 0 (for the exclusive scan).
struct GroupLoad {
    const std::uint8_t* leaf_level;
    std::uint32_t n;
    std::uint32_t groups;
    std::uint32_t* load;
    PK_HD void operator()(std::size_t g) const {
        if (g == groups) {
            load[g] = 0;
            return;
        }
        const std::uint32_t first = static_cast<std::uint32_t>(g) * kGroupSize;
        const std::uint32_t end = n - first < std::uint32_t(kGroupSize) ? n : first + kGroupSize;
        std::uint32_t sum = 0;
        for (std::uint32_t i = first; i < end; ++i) sum += 1u + leaf_level[i];
        load[g] = sum;
    }
};

}  // namespace kernels

template <class Exec> std::size_t Octree::scratch_bytes(const Exec& exec, std::size_t bodies) {
    const std::size_t sort = exec.template sort_pairs_scratch_bytes<std::uint64_t, std::uint32_t>(bodies);
    const std::size_t scan = exec.template exclusive_sum_scratch_bytes<std::uint32_t>(bodies + 1);
    return sort > scan ? sort : scan;
}

template <class Exec>
void Octree::compute_keys(const Exec& exec, const BoundingBox* box, const Vec3d* positions, std::size_t n) {
    if (n > max_bodies_)
        throw UsageError("nbody: keys of " + std::to_string(n) + " bodies (capacity " + std::to_string(max_bodies_) + ")");
    exec.for_each(n, kernels::MortonKeys{box, positions, keys_.data(), index_.data()}, "nbody.tree.keys");
}

template <class Exec> void Octree::sort_keys(const Exec& exec, std::size_t n) {
    exec.sort_pairs(workspace_, keys_.data(), sorted_keys_.data(), index_.data(), order_.data(), n, 0,
                    3 * kMortonBitsPerAxis);
}

template <class Exec>
void Octree::build_nodes(const Exec& exec, const BoundingBox* box, const std::uint64_t* sorted_keys, std::size_t n) {
    if (n > max_bodies_ || n == 0)
        throw UsageError("nbody: tree of " + std::to_string(n) + " bodies (capacity " + std::to_string(max_bodies_) + ")");
    n_ = n;
    const auto n32 = static_cast<std::uint32_t>(n);
    const auto capacity = static_cast<std::uint32_t>(leaf_capacity_);
    if (n > std::size_t(capacity))
        exec.for_each(n - capacity, kernels::WindowLevels{sorted_keys, capacity, window_levels_.data()},
                      "nbody.tree.windows");
    exec.for_each(n + 1,
                  kernels::LeafLevels{sorted_keys, window_levels_.data(), n32, capacity,
                                      static_cast<std::uint32_t>(max_depth_), leaf_level_.data(), node_offset_.data()},
                  "nbody.tree.leaf_levels");
    exec.exclusive_sum(workspace_, node_offset_.data(), node_offset_.data(), n + 1);
    node_count_ = exec.read_value(node_offset_.data() + n);
    if (node_count_ > max_nodes_ || node_count_ == 0)
        throw NumericalError("nbody: the tree has " + std::to_string(node_count_) + " nodes, outside 1.." +
                             std::to_string(max_nodes_));
    exec.for_each(n,
                  kernels::WriteNodes{box, sorted_keys, leaf_level_.data(), node_offset_.data(), n32, capacity,
                                      static_cast<std::uint32_t>(max_depth_), links_.data(), cube_.data(),
                                      node_level_.data()},
                  "nbody.tree.nodes");
}

template <class Exec> void Octree::compute_multipoles(const Exec& exec, const Vec4f* bodies) {
    for (int level = max_depth_; level >= 0; --level)
        exec.for_each(node_count_,
                      kernels::Multipoles{bodies, links_.data(), node_level_.data(), cube_.data(), com_mass_.data(), quad_.data(),
                                          quad_yz_.data(), static_cast<std::uint32_t>(level)},
                      "nbody.tree.multipoles");
}

template <class Exec> void tree_forces(const Exec& exec, const TreeWalk& w) {
    if (w.target_end > w.body_count || w.target_begin > w.target_end || w.body_count >= (std::size_t{1} << 31))
        throw UsageError("nbody: tree walk of targets beyond the bodies");
    if (w.group_end <= w.group_begin) return;
    if (w.group_end > group_count(w.target_end - w.target_begin))
        throw UsageError("nbody: tree walk of groups beyond the targets");
    const float eps2 = softening2(w.softening);
    const float open_factor = (2.0f / w.theta) * (2.0f / w.theta);
    const bool guard = w.theta * w.theta > 1.0f / 3.0f;
    const std::size_t blocks = w.group_end - w.group_begin;
    const std::size_t shared = 0;
    auto launch = [&](auto walk) {
        walk.tree = w.tree;
        walk.bodies = w.bodies;
        walk.target_begin = static_cast<std::uint32_t>(w.target_begin);
        walk.target_end = static_cast<std::uint32_t>(w.target_end);
        walk.G = w.G;
        walk.eps2 = eps2;
        walk.open_factor = open_factor;
        walk.guard = guard;
        walk.group_offset = static_cast<std::uint32_t>(w.group_begin);
        walk.first_group = w.first_group;
        walk.out = w.out;
        walk.cell_interactions = w.cell_interactions;
        walk.body_interactions = w.body_interactions;
        exec.for_each_block(blocks, shared, walk, "nbody.tree.walk");
    };
    if (w.with_potential) {
        if (w.quadrupole) launch(kernels::TreeWalkGroups<true, true>{});
        else launch(kernels::TreeWalkGroups<true, false>{});
    } else {
        if (w.quadrupole) launch(kernels::TreeWalkGroups<false, true>{});
        else launch(kernels::TreeWalkGroups<false, false>{});
    }
}

template <class Exec> std::size_t group_load_scratch_bytes(const Exec& exec, std::size_t bodies) {
    return exec.template exclusive_sum_scratch_bytes<std::uint32_t>(group_count(bodies) + 1);
}

template <class Exec>
void group_load_prefix(const Exec& exec, Workspace& ws, const std::uint8_t* leaf_levels, std::size_t bodies,
                       std::uint32_t* load_prefix) {
    const std::size_t groups = group_count(bodies);
    exec.for_each(groups + 1,
                  kernels::GroupLoad{leaf_levels, static_cast<std::uint32_t>(bodies), static_cast<std::uint32_t>(groups),
                                     load_prefix},
                  "nbody.tree.group_load");
    exec.exclusive_sum(ws, load_prefix, load_prefix, groups + 1);
}

// The family's instantiations, once per backend (tree_cpu.cpp, tree_cuda.cu).
#define PK_NBODY_TREE_INSTANTIATE(Exec)                                                                  \
    template std::size_t Octree::scratch_bytes(const Exec&, std::size_t);                                \
    template void Octree::compute_keys(const Exec&, const BoundingBox*, const Vec3d*, std::size_t);      \
    template void Octree::sort_keys(const Exec&, std::size_t);                                           \
    template void Octree::build_nodes(const Exec&, const BoundingBox*, const std::uint64_t*, std::size_t); \
    template void Octree::compute_multipoles(const Exec&, const Vec4f*);                                 \
    template void tree_forces(const Exec&, const TreeWalk&);                                             \
    template std::size_t group_load_scratch_bytes(const Exec&, std::size_t);                             \
    template void group_load_prefix(const Exec&, Workspace&, const std::uint8_t*, std::size_t, std::uint32_t*);

}  // namespace partikel::nbody
