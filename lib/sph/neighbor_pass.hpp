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
// Indices a, b are positions in the cell-ordered arrays.
#pragma once

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

// `Ghosts`: the pass also walks GhostCells (an instantiation of its own, so that one rank runs
// the loop it always ran, with the same arguments).
template <class Interaction, bool Ghosts = false> struct NeighborPass {
    static constexpr int kMinBlocksPerSM = Interaction::kMinBlocksPerSM;
    frnn::CellGridView grid;
    const Vec4f* records;  // per particle: position (xyz) and the interaction's w (cell order)
    Interaction interaction;
    NeighborLists lists{};
    ListUse use = ListUse::none;
    [[no_unique_address]] std::conditional_t<Ghosts, GhostCells, NoGhosts> ghosts{};
    PK_HD PK_NEIGHBOR_PASS void operator()(std::size_t a) const {
        const typename Interaction::Particle self = interaction.load(a);
        typename Interaction::Sums sums{};
        if (!interaction.interacts(self)) {
            if (use == ListUse::write) lists.count[a] = NeighborLists::kUnlisted;
            interaction.finish(a, self, sums);
            return;
        }
        const std::uint32_t listed = use == ListUse::read ? lists.count[a] : NeighborLists::kUnlisted;
        if (listed <= lists.capacity) {
            for (std::uint32_t k = 0; k < listed; ++k) {
                const std::uint32_t b = lists.index[k * lists.stride + a];
                const Vec4f record_b = records[b];
                const Vec3f r_ab = grid.box.displacement(self.r, record_b.xyz());
                const float r2 = frnn::distance2(r_ab);
                if (r2 <= lists.pair_radius2) interaction.pair(self, b, r_ab, r2, record_b, sums);
            }
        } else {
            std::uint32_t found = 0;
            auto visit = [&](std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b) {
                if (use == ListUse::write && found < lists.capacity) lists.index[found * lists.stride + a] = b;
                ++found;
                if (r2 <= lists.pair_radius2) interaction.pair(self, b, r_ab, r2, record_b, sums);
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
        interaction.finish(a, self, sums);
    }
};

// A pass over some of the rows only: pass(rows[k]) for k < count (mdbc's passes over the parts of
// the list SolverState::mdbc_rows: the boundary particles' passes instead of every particle
// returning at once for the fluid's, and the rates pass without the boundary particles').
template <class Pass> struct OnRows {
    static constexpr int kMinBlocksPerSM = Pass::kMinBlocksPerSM;
    const std::uint32_t* rows;
    Pass pass;
    PK_HD PK_NEIGHBOR_PASS void operator()(std::size_t k) const { pass(rows[k]); }
};

}  // namespace partikel::sph
