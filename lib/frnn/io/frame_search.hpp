// Neighbour search over the particles of stored frames (what frnn-build does): which group and
// radius a frame's search uses, the search plan (cell list, Verlet list, subdivided cells),
// one grid kept across frames while it fits, statistics, a brute-force check, and the lists
// written back into the frame:
//   group <g>: neighbor_count (u32) and neighbor_offset (u64) per particle;
//   group "neighbors": index (u32), the neighbours' rows in <g>, row i at [offset, offset + count);
//   attributes frnn.group, frnn.radius, frnn.list_radius, frnn.method, frnn.k, frnn.search, frnn.order.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "formats/frame.hpp"
#include "frnn/brute_force.hpp"
#include "frnn/cell_grid.hpp"
#include "frnn/neighbor_list.hpp"
#include "frnn/search_stats.hpp"

namespace partikel::frnn {

enum class SearchMethod { cell, verlet, subcell };

struct FrameSearchOptions {
    std::string group;          // "" the first group with a position column
    float radius_m = 0.0f;      // > 0, or
    std::string radius_column;  // r = factor * max of this column, or of this numeric frame attribute
    float factor = 1.0f;
    SearchMethod method = SearchMethod::cell;
    int k = -1;                 // -1: the method's default (subcell 2, else 0)
    std::optional<SearchShape> shape;  // default: subcell sphere, else tight
    float skin_m = -1.0f;       // Verlet: lists hold pairs within r + skin (default 0.1 r)
    std::string periodic;       // axes "xyz", "xz", ...
    std::vector<double> domain; // x0 y0 z0 x1 y1 z1 (m); empty: the frame's domain.min/max, else the bounds
    bool morton = false;
    SortMethod sort = SortMethod::counting;
    ListOrder order = ListOrder::cell;
};

// What one run searches with; UsageError for inconsistent options.
struct SearchPlan {
    int k = 0;
    SearchShape shape = SearchShape::tight;
    bool verlet = false;
};
SearchPlan make_plan(const FrameSearchOptions& options);

struct FrameSearchResult {
    std::string group;
    std::size_t particles = 0;
    float interaction_radius_m = 0.0f;  // r
    GridSpec spec;                      // spec.radius: r, or r + skin for Verlet lists
    std::array<int, 3> dims{};
    SearchStats stats;                  // with `stats`
    CellGrid::BuildTimes grid_times;
    NeighborList::BuildTimes list_times;
    std::uint64_t entries = 0;
    std::size_t checked = 0;            // particles compared with brute force
    HostNeighborLists lists;            // original rows; filled unless only statistics were asked
};

class FrameSearch {
public:
    FrameSearch(const Backend& backend, FrameSearchOptions options);
    const SearchPlan& plan() const { return plan_; }

    // Searches the frame's group. `stats`: phase times of a second (steady-state) build and the
    // search statistics, without copying the lists unless `check_sample`; `check_sample`: compare
    // that many particles (all when fewer) with brute force, seeded by `seed`; Error on a difference.
    FrameSearchResult search(const fmt::Frame& frame, bool stats, std::optional<std::size_t> check_sample,
                             std::uint64_t seed);
    // The lists of `result` into `frame` (see the header comment).
    void attach_lists(fmt::Frame& frame, const FrameSearchResult& result) const;

private:
    Backend backend_;
    FrameSearchOptions options_;
    SearchPlan plan_;
    std::optional<CellGrid> grid_;  // kept while the geometry is the same and the particles fit
    std::size_t grid_capacity_ = 0;
};

// A human-readable block, or one JSON object per line, of a result's statistics and times.
std::string format_search_stats(std::uint64_t frame_index, const FrameSearchResult& result, const SearchPlan& plan,
                                SearchMethod method, const std::string& device, bool json, bool checked);
// The searched-cell counts of every k (0..3), or of one.
std::string searched_cells_table();
std::string searched_cells_for(int k);

SearchMethod parse_search_method(const std::string& name);  // cell, verlet, subcell
std::string method_name(SearchMethod method);
SearchShape parse_search_shape(const std::string& name);    // tight, ball, full, cube, sphere

}  // namespace partikel::frnn
