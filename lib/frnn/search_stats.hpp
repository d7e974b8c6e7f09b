// Query kernels that do not materialise lists: the per-particle neighbour count (the cheapest
// callback query, the "count only" time of the benchmark) and the statistics of a search shape:
// neighbours found, candidates examined (particles in the cells visited) and cells visited.
// These are the figures of merit of Nitta (2019): candidates per neighbour found is what subdividing
// cells and trimming the search block reduce.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frnn/cell_grid.hpp"

namespace partikel::frnn {

// counts[k] = neighbours of the k-th particle in cell order (itself included); backend memory.
template <class Exec>
void count_neighbors(const Exec& exec, const CellGridView& grid, SearchShape shape, std::uint32_t* counts);
void count_neighbors(const CellGrid& grid, SearchShape shape, std::uint32_t* counts);  // on the grid's backend

// Per particle in cell order (backend memory, any pointer may be nullptr): neighbours found,
// candidates examined and cells visited, for `shape`.
template <class Exec>
void search_stats_per_particle(const Exec& exec, const CellGridView& grid, SearchShape shape,
                               std::uint32_t* neighbors, std::uint32_t* candidates, std::uint32_t* cells);

// Per particle in cell order (backend memory): an order-sensitive digest of the neighbours
// visited by for_each_neighbor (ball shape; `records` nullptr) or by for_each_neighbor_record
// over records made from the grid's positions into `records` (count values; chunked on the
// GPU). Equal digests mean the same neighbours in the same order, so sums over them round the
// same way.
template <class Exec>
void neighbor_visit_digests(const Exec& exec, const CellGridView& grid, Vec4f* records, std::uint64_t* digests);
// The same on the grid's backend; allocates the records (a verification aid, not for loops).
void neighbor_visit_digests(const CellGrid& grid, bool records, std::uint64_t* digests);

struct SearchStats {
    std::uint64_t particles = 0;
    std::uint64_t neighbors = 0;   // sum over particles, each particle counting itself
    std::uint64_t candidates = 0;  // particles examined (distance tests)
    std::uint64_t cells = 0;       // cells visited (after clamping at open faces)
    std::uint32_t min_neighbors = 0;
    std::uint32_t max_neighbors = 0;
    std::vector<std::uint64_t> histogram;  // histogram[c]: particles with c neighbours
    double candidates_per_neighbor() const { return neighbors ? double(candidates) / double(neighbors) : 0.0; }
    double mean_neighbors() const { return particles ? double(neighbors) / double(particles) : 0.0; }
};

// Runs search_stats_per_particle into temporary buffers (it allocates: not for step loops) and
// aggregates on the host.
SearchStats search_stats(const CellGrid& grid, SearchShape shape);

std::string shape_name(SearchShape shape);  // "tight", "full", "cube", "sphere"

}  // namespace partikel::frnn
