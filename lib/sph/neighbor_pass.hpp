// The SPH pair loop, written once: for each particle a, load what the interaction needs of a,
// visit every neighbour b within the kernel support through the neighbour records (one 16-byte
// load gives b's position and its mass and kind; frnn::for_each_neighbor_record), let the
// interaction accumulate its pair terms, then let it store its results. An interaction is a
// small struct of evaluators (HOOMD-style: each with its own parameters) that provides
//
//   static constexpr int kMinBlocksPerSM;       // occupancy asked of the GPU launch
//   struct Particle { Vec3f r; ... };           // what a pair needs of a, loaded once
//   struct Sums { ... };                        // what the pairs accumulate, value-initialised
//   Particle load(std::size_t a) const;
//   bool interacts(const Particle&) const;      // false: no neighbour loop, finish() still runs
//   void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b, Sums&) const;
//   void finish(std::size_t a, const Particle& a, const Sums&) const;
//
// so that the density filter, the WCSPH rates and the snow model's passes share this loop. The
// snow passes share one search through NeighborLists.
// On the CPU an interaction may also give its pair body in two halves (BatchedPairs below):
//
//   bool pairs(const Particle& a, std::uint32_t b, float w_b) const;  // pair() does something
//   void pair_terms(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, float w_b, Sums&) const;
//   void Sums::add(const Sums&);                                       // combine two partial sums
//
// and the pass then collects the neighbours that pair into batches and runs the terms over a
// batch in SIMD lanes (NeighborBatch).
// Indices a, b are positions in the cell-ordered arrays.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "frnn/cell_grid.hpp"

// A pass is one function on the CPU, everything it calls inlined: past its size limits GCC's
// inliner leaves the pair body (its sums then in memory), the kernel, the minimum image and the
// row search as calls per candidate (+20% of the CPU step, docs/PERFORMANCE.md). nvcc inlines
// them anyway.
#if defined(__CUDACC__)
#define PK_NEIGHBOR_PASS
#else
#define PK_NEIGHBOR_PASS __attribute__((flatten))
#endif

namespace partikel::sph {

// Neighbour lists: a pass searches the cells and writes each particle's neighbours
// (ListUse::write); later passes read them (ListUse::read) instead of testing every candidate of
// the 27 cells again, in the same step (the positions unchanged) or, when the search reached a
// skin beyond the pair radius, in the steps after it while no particle has moved half the skin
// (SolverState::lists_valid). Column-major, index[k * stride + a] for k < capacity, in the
// search's visiting order, so that a reading pass sums in the same order as a search of the same
// positions and gives the same bits.
// A particle with more neighbours than the capacity (count > capacity), or one the writing pass
// did not search (count = kUnlisted), is searched again by the readers.
enum class ListUse : std::uint8_t { none, write, read };
struct NeighborLists {
    static constexpr std::uint32_t kUnlisted = 0xffffffffu;
    std::uint32_t* count = nullptr;
    std::uint32_t* index = nullptr;
    std::uint32_t capacity = 0;
    std::size_t stride = 0;  // particles allocated for
    // m^2: pairs further apart are listed (they are in the skin) but not summed. The search's
    // own radius (the grid's) is then h (1 + skin).
    float pair_radius2 = __builtin_huge_valf();
};

// Ghosts (several ranks, lib/dist): rows [offset, offset + count) of every per-particle array
// hold other ranks' particles within the search reach of this rank's, in the cell order of a
// grid of their own (same geometry as the owned grid). A particle whose coordinate along the
// slab axis lies at most `below` or at least `above` (the ghosts' extents widened by the reach)
// also walks that grid; its ghost neighbours are b = offset + j.
// The ghosts from lower ranks (rows from below_offset, in below_grid's order) and from higher
// ranks (from above_offset); a particle at x <= below along the axis walks the first, at
// x >= above the second.
struct GhostCells {
    frnn::CellGridView below_grid, above_grid;
    std::uint32_t below_offset = 0, above_offset = 0;  // the owned particles n, n + the lower ranks' ghosts
    int axis = 0;
    float below = -__builtin_huge_valf(), above = __builtin_huge_valf();  // m
};

struct NoGhosts {};

// The rows a pass runs over by their coordinate along one axis: those strictly between lo and hi
// (`inside`), or the others; every row with axis < 0. Several ranks overlap a halo with the rows
// of a slab's interior, which need no ghost (sph/solver_impl.hpp, neighbor_pass), and then run
// the rest with the ghosts: a band of its own rather than a list of rows, so that neither pass
// costs more than its rows and a one-rank pass compiles no other kernel.
struct RowBand {
    int axis = -1;
    float lo = 0.0f, hi = 0.0f;  // m
    bool inside = true;
    PK_HD bool holds(const Vec4f& record) const {
        if (axis < 0) return true;
        const float x = record.xyz()[axis];
        return (x > lo && x < hi) == inside;  // a NaN coordinate is never inside
    }
};

#if !defined(__CUDACC__)
template <class I>
concept BatchedPairs = requires(const I& i, const typename I::Particle& a, std::uint32_t b, Vec3f r_ab, float r2,
                                float w_b, typename I::Sums& s) {
    { i.pairs(a, b, w_b) } -> std::convertible_to<bool>;
    i.pair_terms(a, b, r_ab, r2, w_b, s);
    s.add(s);
};

// The CPU's pair bodies over kLanes neighbours at once: the pairs of one particle are collected
// in their visiting order, and the terms of a full batch run as one loop over the lanes that the
// compiler turns into SIMD code (the neighbours' loads lane by lane, the terms' branches as
// selects: -fno-trapping-math, lib/sph/CMakeLists.txt). Lane l sums the pairs l, l + kLanes, l + 2 kLanes, ... of the particle, and the lanes
// are added in lane order at the end: a fixed order of the sums in the source, so the results
// do not depend on the thread count, the vector width of the clone the CPU runs
// (PK_CPU_SIMD_CLONES) or on whether the neighbours came from a search or a list.
template <class Interaction> struct NeighborBatch {
    static constexpr int kLanes = 8;
    using Particle = typename Interaction::Particle;
    using Sums = typename Interaction::Sums;
    std::uint32_t b[kLanes];
    float x[kLanes], y[kLanes], z[kLanes], r2[kLanes], w[kLanes];
    Sums lanes[kLanes]{};
    int count = 0;

    // The terms of the batch's pairs, lane l into into[l].
    void run(const Interaction& interaction, const Particle& a, Sums* into) const {
#pragma omp simd
        for (int l = 0; l < kLanes; ++l)
            interaction.pair_terms(a, b[l], Vec3f{x[l], y[l], z[l]}, r2[l], w[l], into[l]);
    }
    void push(const Interaction& interaction, const Particle& a, std::uint32_t b_, Vec3f r_ab, float r2_, float w_b) {
        b[count] = b_;
        x[count] = r_ab.x;
        y[count] = r_ab.y;
        z[count] = r_ab.z;
        r2[count] = r2_;
        w[count] = w_b;
        if (++count == kLanes) {
            run(interaction, a, lanes);
            count = 0;
        }
    }
    // The last batch's lanes past `count` repeat its first pair, into sums of their own that
    // are dropped: the SIMD code runs, not a scalar loop over the few pairs left.
    Sums sums(const Interaction& interaction, const Particle& a) {
        if (count > 0) {
            for (int l = count; l < kLanes; ++l) {
                b[l] = b[0];
                x[l] = x[0];
                y[l] = y[0];
                z[l] = z[0];
                r2[l] = r2[0];
                w[l] = w[0];
            }
            Sums last[kLanes]{};
            run(interaction, a, last);
            for (int l = 0; l < count; ++l) lanes[l].add(last[l]);
        }
        Sums s = lanes[0];
        for (int l = 1; l < kLanes; ++l) s.add(lanes[l]);
        return s;
    }
};
#endif

// `Ghosts`: the pass also walks GhostCells (an instantiation of its own, so that one rank runs
// the loop it always ran, with the same arguments). Its rates pass spills 352 B per thread at
// 48 registers (116 B without ghosts), yet one block fewer per SM (64 registers, 48 B) measured
// 7% slower on the H100 (docs/PERFORMANCE.md, "Several GPUs"): the warps matter more.
template <class Interaction, bool Ghosts = false> struct NeighborPass {
    static constexpr int kMinBlocksPerSM = Interaction::kMinBlocksPerSM;
    frnn::CellGridView grid;
    const Vec4f* records;  // per particle: position (xyz) and the interaction's w (cell order)
    Interaction interaction;
    NeighborLists lists{};
    ListUse use = ListUse::none;
    [[no_unique_address]] std::conditional_t<Ghosts, GhostCells, NoGhosts> ghosts{};
    RowBand band{};
    PK_HD PK_NEIGHBOR_PASS void operator()(std::size_t a) const {
        if (!band.holds(records[a])) return;
        const typename Interaction::Particle self = interaction.load(a);
        typename Interaction::Sums sums{};
        if (!interaction.interacts(self)) {
            if (use == ListUse::write) lists.count[a] = NeighborLists::kUnlisted;
            interaction.finish(a, self, sums);
            return;
        }
#if !defined(__CUDACC__)
        if constexpr (BatchedPairs<Interaction>) {
            sums = batched_sums(a, self);
        } else
#endif
        {
            for_each_pair(a, self, [&](std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b) {
                interaction.pair(self, b, r_ab, r2, record_b, sums);
            });
        }
        interaction.finish(a, self, sums);
    }

#if !defined(__CUDACC__)
    // A function of its own, compiled for baseline x86-64 and for AVX2 (the batch's lanes).
    PK_CPU_SIMD_CLONES PK_NEIGHBOR_PASS typename Interaction::Sums batched_sums(std::size_t a,
                                                                                const typename Interaction::Particle& self) const {
        // A copy on the stack, whose parameters the compiler may read in every lane (a read
        // through `this` in a branch of the terms might fault for all it knows, and stops the
        // branch's conversion into selects).
        const Interaction local = interaction;
        NeighborBatch<Interaction> batch;
        for_each_pair(a, self, [&](std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b) {
            if (local.pairs(self, b, record_b.w)) batch.push(local, self, b, r_ab, r2, record_b.w);
        });
        return batch.sums(local, self);
    }
#endif

    // pair(b, r_ab, r2, record_b) for every neighbour of a within the pair radius: from a's list,
    // or from a search of the cells (writing the list).
    template <class Pair>
    PK_DEVICE_INLINE void for_each_pair(std::size_t a, const typename Interaction::Particle& self, Pair&& pair) const {
        const std::uint32_t listed = use == ListUse::read ? lists.count[a] : NeighborLists::kUnlisted;
        if (listed <= lists.capacity) {
            for (std::uint32_t k = 0; k < listed; ++k) {
                const std::uint32_t b = lists.index[k * lists.stride + a];
                const Vec4f record_b = records[b];
                const Vec3f r_ab = grid.box.displacement(self.r, record_b.xyz());
                const float r2 = frnn::distance2(r_ab);
                if (r2 <= lists.pair_radius2) pair(b, r_ab, r2, record_b);
            }
        } else {
            std::uint32_t found = 0;
            auto visit = [&](std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b) {
                if (use == ListUse::write && found < lists.capacity) lists.index[found * lists.stride + a] = b;
                ++found;
                if (r2 <= lists.pair_radius2) pair(b, r_ab, r2, record_b);
            };
            frnn::for_each_neighbor_record(grid, records, self.r, visit);
            if constexpr (Ghosts) {
                const float x = self.r[ghosts.axis];
                auto walk = [&](const frnn::CellGridView& grid_of_side, std::uint32_t offset) {
                    frnn::for_each_neighbor_record(grid_of_side, records + offset, self.r,
                                                   [&](std::uint32_t j, Vec3f r_ab, float r2, const Vec4f& record_b) {
                                                       visit(offset + j, r_ab, r2, record_b);
                                                   });
                };
                if (x <= ghosts.below) walk(ghosts.below_grid, ghosts.below_offset);
                if (x >= ghosts.above) walk(ghosts.above_grid, ghosts.above_offset);
            }
            if (use == ListUse::write) lists.count[a] = found;
        }
    }
};

// A pass over some of the rows only: pass(rows[k]) for k < count (mdbc's passes over the parts of
// the list SolverState::mdbc_rows: the boundary particles' passes instead of every particle
// returning at once for the fluid's, and the rates pass without the boundary particles'), and
// with `listed` only for k < *listed, a count in device memory that the launch's count bounds (the
// virtual layers' rows, listed on the device after the rates pass: no read-back).
template <class Pass> struct OnRows {
    static constexpr int kMinBlocksPerSM = Pass::kMinBlocksPerSM;
    const std::uint32_t* rows;
    const std::uint32_t* listed;  // nullptr: every row of the launch
    Pass pass;
    PK_HD PK_NEIGHBOR_PASS void operator()(std::size_t k) const {
        if (listed && k >= *listed) return;
        pass(rows[k]);
    }
};

}  // namespace partikel::sph
