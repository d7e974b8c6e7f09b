#include "frnn/search_stats.hpp"

#include <algorithm>

#include "core/buffer.hpp"
#include "core/dispatch.hpp"

namespace partikel::frnn {

void count_neighbors(const CellGrid& grid, SearchShape shape, std::uint32_t* counts) {
    with_exec(grid.backend(), [&](const auto& e) { count_neighbors(e, grid.view(), shape, counts); });
}

void neighbor_visit_digests(const CellGrid& grid, bool records, std::uint64_t* digests) {
    const Backend& b = grid.backend();
    DeviceBuffer<Vec4f> record_buffer(b, records ? std::max<std::size_t>(grid.size(), 1) : 0);
    Vec4f* r = records ? record_buffer.data() : nullptr;
    with_exec(b, [&](const auto& e) { neighbor_visit_digests(e, grid.view(), r, digests); });
}

SearchStats search_stats(const CellGrid& grid, SearchShape shape) {
    const std::size_t n = grid.size();
    SearchStats s;
    s.particles = n;
    if (n == 0) return s;
    const Backend& b = grid.backend();
    DeviceBuffer<std::uint32_t> nb(b, n), cand(b, n), cells(b, n);
    with_exec(b, [&](const auto& e) { search_stats_per_particle(e, grid.view(), shape, nb.data(), cand.data(), cells.data()); });
    const auto h_nb = nb.to_vector(), h_cand = cand.to_vector(), h_cells = cells.to_vector();
    s.min_neighbors = h_nb[0];
    for (std::size_t k = 0; k < n; ++k) {
        s.neighbors += h_nb[k];
        s.candidates += h_cand[k];
        s.cells += h_cells[k];
        s.min_neighbors = std::min(s.min_neighbors, h_nb[k]);
        s.max_neighbors = std::max(s.max_neighbors, h_nb[k]);
    }
    s.histogram.assign(s.max_neighbors + 1u, 0);
    for (auto c : h_nb) ++s.histogram[c];
    return s;
}

std::string shape_name(SearchShape shape) {
    switch (shape) {
        case SearchShape::tight: return "tight";
        case SearchShape::full: return "full";
        case SearchShape::cube: return "cube";
        case SearchShape::sphere: return "sphere";
        case SearchShape::ball: return "ball";
    }
    return "?";
}

}  // namespace partikel::frnn
