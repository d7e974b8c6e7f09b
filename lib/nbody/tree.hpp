// The Barnes-Hut octree (Barnes & Hut, "A hierarchical O(N log N) force-calculation algorithm",
// 1986), built on the device from Morton keys, and its force walk. docs/NBODY.md explains the
// construction and the layout; in short:
//
// Keys. Bodies are quantised to 2^21 steps per axis in the bounding cube of their bounding box
// and sorted by 63-bit Morton key (core/morton.hpp): a cell of level L is the set of keys
// sharing their top 3L bits, a contiguous range of the sorted bodies. The caller reorders its
// bodies along the curve (order()) every step.
//
// Nodes, without atomics or per-level passes. The cell of level L around body i holds more than
// c bodies (c = leaf capacity) exactly when some run of c + 1 consecutive sorted bodies through
// i shares L levels, so body i's leaf level is
//   L_i = min(max_depth, 1 + max { shared_levels(key_s, key_{s+c}) : i - c <= s <= i }).
// Body i "owns" the nodes of levels f_i .. L_i that begin with it, f_i being the first level at
// which its key differs from body i-1's (0 for body 0). Numbering the nodes by (owning body,
// level) then lists them in depth-first pre-order: node k's children start at k + 1, and the
// node after its subtree ("next", the thesis's Next array; "more" is k + 1 and needs no array)
// is the first node owned by the first body after its range. Counts, one exclusive scan, one
// write pass; no empty cells.
//
// Multipoles. Per level, deepest first: a leaf from its bodies, an internal node from its
// children (monopole, centre of mass, traceless quadrupole about it).
//
// The walk. Bodies are walked in groups of 32 consecutive bodies along the curve (a warp on
// the GPU, one task on the CPU), stack-free: at node k the group uses the cell whole when it is
// far enough for every body of the group -- l / d < theta with d from the body to the cell's
// centre of mass, and for theta > 1/sqrt(3) the body outside the cell's cube (Salmon & Warren's
// "exploding cell", 1994; below that the distance test implies it) -- and goes on to next(k);
// a leaf it cannot use whole is summed body by body; any other cell is opened (k + 1). Each
// body evaluates its own test and the group opens the cell if any body needs it (a warp vote on
// the GPU, as in Burtscher & Pingali's CUDA Barnes-Hut, 2011): control flow is the same for the
// whole group, and every body's force meets the opening criterion, some with more detail than
// it asked for.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/morton.hpp"
#include "core/workspace.hpp"
#include "nbody/params.hpp"

namespace partikel::nbody {

// Axis-aligned box of the bodies and the number of non-finite coordinates met.
struct BoundingBox {
    double lo[3];
    double hi[3];
    std::uint32_t nonfinite;
};

// The root cube: the bounding box's lower corner and its longest edge, widened by 2^-20 so that
// the box's upper faces quantise inside (a degenerate box gets edge 1).
struct RootCube {
    double lo[3];
    double edge;
};

PK_DEVICE_INLINE RootCube root_cube(const BoundingBox& box) {
    RootCube c;
    double edge = 0.0;
    for (int a = 0; a < 3; ++a) {
        c.lo[a] = box.lo[a];
        const double e = box.hi[a] - box.lo[a];
        edge = e > edge ? e : edge;
    }
    c.edge = edge > 0.0 ? edge * (1.0 + 1.0 / 1048576.0) : 1.0;
    return c;
}

// The Morton key of a position in the root cube: 2^21 steps per axis (core/morton.hpp).
PK_DEVICE_INLINE std::uint64_t morton_key(const RootCube& c, const Vec3d& x) {
    const double scale = double(1u << kMortonBitsPerAxis) / c.edge;
    const double top = double((1u << kMortonBitsPerAxis) - 1);
    std::uint32_t q[3];
    for (int a = 0; a < 3; ++a) {
        double t = (x[a] - c.lo[a]) * scale;
        t = t > 0.0 ? t : 0.0;  // also NaN -> 0 (NaN positions are reported by the caller)
        t = t < top ? t : top;
        q[a] = static_cast<std::uint32_t>(t);
    }
    return morton_code(q[0], q[1], q[2]);
}

// What the walk reads at every node it visits, with the centre of mass: one 16-byte load.
struct alignas(16) NodeLinks {
    static constexpr std::uint32_t kLeafBit = 1u << 31;
    std::uint32_t next;          // the node after this one's subtree (node_count: the end)
    std::uint32_t begin;         // bodies [begin, end()) in curve order
    std::uint32_t end_and_leaf;  // end, | kLeafBit for a leaf (no children; else they start at k + 1)
    float half;                  // half the cell's edge
    PK_HD std::uint32_t end() const { return end_and_leaf & ~kLeafBit; }
    PK_HD bool leaf() const { return (end_and_leaf & kLeafBit) != 0; }
};

// The tree as the walk reads it; trivially copyable, passed by value into kernels.
struct TreeView {
    const Vec4f* com_mass = nullptr;  // centre of mass, mass
    const Vec4f* cube = nullptr;      // centre of the cell, half its edge (read only for theta > 1/sqrt(3))
    const NodeLinks* links = nullptr;
    const Vec4f* quad = nullptr;      // Qxx, Qyy, Qxy, Qxz (traceless: Qzz = -Qxx - Qyy)
    const float* quad_yz = nullptr;   // Qyz
    std::uint32_t node_count = 0;
};

inline constexpr int kGroupSize = 32;
inline std::size_t group_count(std::size_t bodies) { return (bodies + kGroupSize - 1) / kGroupSize; }

class Octree {
public:
    // Allocates everything for up to `max_bodies` bodies (max_nodes() nodes).
    Octree(const Backend& backend, std::size_t max_bodies, int leaf_capacity, int max_depth);

    // Most nodes a tree of `bodies` can have: every body in its own leaf, plus at most
    // floor(bodies / (c + 1)) (and 8^L) internal cells on each of the levels 0 .. max_depth - 1.
    static std::size_t max_nodes(std::size_t bodies, int leaf_capacity, int max_depth);

    // 1. Morton keys of `positions` (any order) in the cube around *box (backend memory).
    template <class Exec> void compute_keys(const Exec& exec, const BoundingBox* box, const Vec3d* positions, std::size_t n);
    // 2. Sort them: afterwards order()[k] is the index, in the order given to compute_keys, of
    //    the k-th body along the curve.
    template <class Exec> void sort_keys(const Exec& exec, std::size_t n);
    // 3. The nodes, from n sorted keys (backend memory): sorted_keys(), or across ranks every
    //    rank's sorted keys laid end to end (nbody/partition.hpp). Reads the node count back
    //    (one synchronisation).
    template <class Exec>
    void build_nodes(const Exec& exec, const BoundingBox* box, const std::uint64_t* sorted_keys, std::size_t n);
    // 4. Multipoles, from the bodies (x, y, z, m) in curve order.
    template <class Exec> void compute_multipoles(const Exec& exec, const Vec4f* bodies);

    const std::uint32_t* order() const { return order_.data(); }
    const std::uint64_t* sorted_keys() const { return sorted_keys_.data(); }
    const std::uint8_t* leaf_levels() const { return leaf_level_.data(); }  // per body in curve order
    const std::uint8_t* node_levels() const { return node_level_.data(); }  // per node, 0: the root
    TreeView view() const;
    std::size_t node_count() const { return node_count_; }
    std::size_t body_count() const { return n_; }
    int leaf_capacity() const { return leaf_capacity_; }
    int max_depth() const { return max_depth_; }
    std::size_t device_bytes() const;

    // Scratch bytes of the sort and scan (tree_impl.hpp).
    template <class Exec> static std::size_t scratch_bytes(const Exec& exec, std::size_t bodies);

private:
    Backend backend_;
    std::size_t max_bodies_;
    std::size_t max_nodes_;
    int leaf_capacity_;
    int max_depth_;
    std::size_t n_ = 0;
    std::size_t node_count_ = 0;

    DeviceBuffer<std::uint64_t> keys_, sorted_keys_;
    DeviceBuffer<std::uint32_t> index_, order_;
    DeviceBuffer<std::uint8_t> window_levels_, leaf_level_;
    DeviceBuffer<std::uint32_t> node_offset_;  // bodies + 1: nodes owned, then their first index
    DeviceBuffer<Vec4f> com_mass_, cube_, quad_;
    DeviceBuffer<NodeLinks> links_;
    DeviceBuffer<std::uint8_t> node_level_;
    DeviceBuffer<float> quad_yz_;
    Workspace workspace_;
};

// One force walk over the tree of `bodies`: accelerations (and potentials) of the targets
// [target_begin, target_end) of those bodies (all of them on one rank; a rank's own share of
// every rank's bodies otherwise), in groups of kGroupSize counted from target_begin: groups
// [group_begin, group_end), or every group from *first_group on when first_group is given
// (backend memory: the hybrid's split, known only on the device when the walk is queued).
struct TreeWalk {
    TreeView tree;
    const Vec4f* bodies = nullptr;    // curve order, (x, y, z, m)
    std::size_t body_count = 0;
    std::size_t target_begin = 0;
    std::size_t target_end = 0;       // group_count(target_end - target_begin) groups
    float G = 1.0f;
    float softening = 0.0f;
    float theta = 0.5f;
    bool quadrupole = true;
    bool with_potential = false;      // else out[i].w is 0
    std::size_t group_begin = 0;
    std::size_t group_end = 0;        // group_count(body_count) for all
    const std::uint32_t* first_group = nullptr;
    Vec4f* out = nullptr;             // (a_x, a_y, a_z, phi) of target i at out[i - target_begin]
    // Per group, the interactions of its bodies: cells used whole, and body-body pairs.
    std::uint32_t* cell_interactions = nullptr;
    std::uint32_t* body_interactions = nullptr;
};

template <class Exec> void tree_forces(const Exec& exec, const TreeWalk& walk);

// The hybrid's work estimate (Hochstetter 2012, sec. 5.8.3): per group, the sum over its bodies
// of 1 + the level of the body's leaf (deeper leaves see more cells), as an exclusive prefix:
// load_prefix[g] for g = 0 .. groups (backend memory, groups + 1 entries).
template <class Exec>
void group_load_prefix(const Exec& exec, Workspace& ws, const std::uint8_t* leaf_levels, std::size_t bodies,
                       std::uint32_t* load_prefix);
template <class Exec> std::size_t group_load_scratch_bytes(const Exec& exec, std::size_t bodies);

}  // namespace partikel::nbody
