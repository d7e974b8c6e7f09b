// Bodies of search_stats.hpp, instantiated by search_stats_cpu.cpp and search_stats_cuda.cu.
#pragma once

#include <cstdint>

#include "base/hd.hpp"
#include "frnn/cell_grid.hpp"
#include "frnn/search_stats.hpp"
#include "frnn/shape_dispatch.hpp"

namespace partikel::frnn {

namespace kernels {

template <SearchShape Shape> struct CountNeighborsSorted {
    CellGridView grid;
    std::uint32_t* counts;
    PK_HD void operator()(std::size_t k) const {
        std::uint32_t found = 0;
        for_each_neighbor<Shape>(grid, grid.positions[k], [&](std::uint32_t, Vec3f, float) { ++found; });
        counts[k] = found;
    }
};

template <SearchShape Shape> struct SearchStatsKernel {
    CellGridView grid;
    std::uint32_t* neighbors;
    std::uint32_t* candidates;
    std::uint32_t* cells;
    PK_HD void operator()(std::size_t k) const {
        const Vec3f p = grid.positions[k];
        std::uint32_t found = 0, examined = 0;
        const Box box = grid.box;
        const std::uint32_t visited = for_each_candidate_range<Shape>(grid, p, [&](std::uint32_t b, std::uint32_t e) {
            examined += e - b;
            for (std::uint32_t j = b; j < e; ++j)
                if (distance2(box.displacement(p, grid.positions[j])) <= grid.radius2) ++found;
        });
        if (neighbors) neighbors[k] = found;
        if (candidates) candidates[k] = examined;
        if (cells) cells[k] = visited;
    }
};

// FNV-1a-style fold of the visited indices, in visiting order.
struct VisitDigest {
    CellGridView grid;
    const Vec4f* records;  // nullptr: for_each_neighbor over the grid's positions
    std::uint64_t* digests;
    PK_HD void operator()(std::size_t k) const {
        std::uint64_t d = 14695981039346656037ull;
        auto fold = [&](std::uint32_t j) { d = (d ^ (std::uint64_t{j} + 1u)) * 1099511628211ull; };
        const Vec3f p = grid.positions[k];
        if (records)
            for_each_neighbor_record(grid, records, p, [&](std::uint32_t j, Vec3f, float, const Vec4f&) { fold(j); });
        else
            for_each_neighbor<SearchShape::ball>(grid, p, [&](std::uint32_t j, Vec3f, float) { fold(j); });
        digests[k] = d;
    }
};

struct PositionRecord {
    const Vec3f* positions;
    Vec4f* records;
    PK_DEVICE_INLINE void operator()(std::size_t k) const {
        const Vec3f p = positions[k];
        records[k] = {p.x, p.y, p.z, 0.0f};
    }
};

}  // namespace kernels

template <class Exec>
void count_neighbors(const Exec& exec, const CellGridView& g, SearchShape shape, std::uint32_t* counts) {
    with_shape(shape, [&](auto s) {
        exec.for_each_uneven(g.count, kernels::CountNeighborsSorted<decltype(s)::value>{g, counts}, "frnn.count");
    });
}

template <class Exec>
void search_stats_per_particle(const Exec& exec, const CellGridView& g, SearchShape shape, std::uint32_t* nb,
                               std::uint32_t* cand, std::uint32_t* cells) {
    with_shape(shape, [&](auto s) {
        exec.for_each_uneven(g.count, kernels::SearchStatsKernel<decltype(s)::value>{g, nb, cand, cells}, "frnn.stats");
    });
}

template <class Exec>
void neighbor_visit_digests(const Exec& exec, const CellGridView& g, Vec4f* records, std::uint64_t* digests) {
    if (records) exec.for_each(g.count, kernels::PositionRecord{g.positions, records}, "frnn.records");
    exec.for_each_uneven(g.count, kernels::VisitDigest{g, records, digests}, "frnn.digest");
}

// The family's instantiations, once per backend (search_stats_cpu.cpp, search_stats_cuda.cu).
#define PK_FRNN_SEARCH_STATS_INSTANTIATE(Exec)                                                                      \
    template void count_neighbors(const Exec&, const CellGridView&, SearchShape, std::uint32_t*);                  \
    template void search_stats_per_particle(const Exec&, const CellGridView&, SearchShape, std::uint32_t*,         \
                                            std::uint32_t*, std::uint32_t*);                                        \
    template void neighbor_visit_digests(const Exec&, const CellGridView&, Vec4f*, std::uint64_t*);

}  // namespace partikel::frnn
