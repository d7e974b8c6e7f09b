// Fixed-radius near neighbours on a uniform cell grid (Nitta 2019).
//
// A CellGrid sorts particles by cell with a counting sort (atomic insert giving the rank inside
// the cell, exclusive scan of the cell counts, permutation; a stable radix-sort build is kept
// for comparison) and keeps one start index per cell, so that the cells of one x row are one
// contiguous particle range. Kernels of both backends find neighbours through the PK_HD
// function `for_each_neighbor(view, p, f)`, which calls `f` for every particle within the search
// radius: neighbour data is never materialised unless a NeighborList (neighbor_list.hpp) is
// asked for.
//
//   frnn::GridSpec spec{.domain_min = lo, .domain_max = hi, .radius = 2 * h};
//   frnn::CellGrid grid(backend, spec, n_max);        // allocates everything, once
//   grid.build(d_positions, n);                        // every step: no allocation
//   auto g = grid.view();                              // pass by value into a kernel:
//   frnn::for_each_neighbor(g, p_a, [&](std::uint32_t b, Vec3f r_ab, float r2) { ... });
//
// Neighbours are defined by the float test r2 = |r_ij|^2 <= radius^2 (inclusive), with r_ij
// computed exactly as `Box::displacement` computes it (minimum image on periodic axes). Every
// search shape returns exactly the set the brute-force oracle (brute_force.hpp) returns; the
// cell edge carries a small safety margin (see GridSpec) so that float rounding of cell
// coordinates can never drop a pair at distance exactly r.
//
// Cell numbering: cell (ix, iy, iz) has the linear id ix + nx (iy + ny iz) (x fastest, so an x
// row is contiguous), or, with GridSpec::morton, the rank of its Z-order (Morton) code among
// all cells of the grid (compact: no padding to a power of two).
//
// Subdivided cells (Nitta 2019): cell edge s = radius / 2^k. The block search shapes visit a
// fixed block of cells around the particle's home cell (counts per k = 0..3):
//   SearchShape::full    the 3x3x3 coarse cells of edge r, subdivided: (3 2^k)^3    27 216 1728 13824
//   SearchShape::cube    home +- 2^k cells per axis: (2^(k+1)+1)^3               27 125  729  4913
//   SearchShape::sphere  the cube's cells whose box distance to the home cell
//                        is <= r (rows trimmed by a table made for any k)        27 125  613  3449
//   SearchShape::tight   (default) per axis only the cells overlapping [p - r, p + r]:
//                        2^(k+1) or 2^(k+1)+1 cells per axis (in practice the Cube's count).
//   SearchShape::ball    the tight box's rows whose cells come within r of p in (y, z), each
//                        cut in x to the cells overlapping the ball of radius r around p
//                        (per position; about 2/3 of the tight box's candidates at k = 1).
// All shapes walk one contiguous particle range per (dy, dz) row (branch-free clamping of the
// x range at open faces, at most two ranges where a periodic x row wraps), except with
// Morton numbering, where every cell is its own range.
//
// Choosing k (docs/PERFORMANCE.md, "Neighbour search", H100): candidates examined per neighbour
// found fall 6.5, 3.8, 2.8, 2.5 for k = 0..3 (Sphere: 2.3 at k = 2, 1.6 at k = 3), but per-cell
// overhead grows; at SPH's density (about 110 neighbours) k = 1 is fastest (15 % faster than
// k = 0), at about 400 neighbours k = 1 and k = 2 with Sphere tie. The default k = 0 is the
// plain cell list.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "base/hd.hpp"
#include "base/vec.hpp"
#include "core/workspace.hpp"
#include "frnn/box.hpp"

namespace partikel::frnn {

enum class Boundary : std::uint8_t { open, periodic };

// Which cells a query visits; see the header comment. `tight` is the default.
enum class SearchShape : std::uint8_t { tight, full, cube, sphere, ball };

// How build() sorts particles by cell.
enum class SortMethod : std::uint8_t {
    counting,  // atomic insert rank + exclusive scan + permutation (default; order inside a
               // cell depends on thread timing on the GPU and with several CPU threads)
    radix,     // stable radix sort of (cell, index): deterministic order inside a cell
};

struct GridSpec {
    Vec3f domain_min{}, domain_max{};  // m; open faces: particles outside are put in the edge cells
                                       // (periodic axes: positions within one box length of the
                                       // box are exact to the last bit; wrap them every step)
    float radius = 0;                  // search radius r (m); neighbours are |r_ij|^2 <= r^2 (inclusive)
    int subdivision = 0;               // k: cell edge = radius / 2^k (0..3)
    std::array<Boundary, 3> boundary{Boundary::open, Boundary::open, Boundary::open};
    bool morton = false;               // Z-order numbering of cells
    SortMethod sort = SortMethod::counting;
    // The cell edge is radius / 2^k times (1 + margin), margin = max(1e-6, 6e-7 (n + 2)) for n
    // cells along the longest axis; on periodic axes the edge is then rounded up so that a
    // whole number of cells fills the box. The margin covers float rounding of cell
    // coordinates and costs about 3 * margin more candidates.
};

Box make_box(const GridSpec& spec);

// Trivially copyable; passed by value into kernels (both backends).
struct CellGridView {
    Vec3f origin{};           // m, the corner of cell (0, 0, 0) (= GridSpec::domain_min)
    Vec3f cell_size{};        // m, cell edge per axis (>= radius / 2^k)
    Vec3f inv_cell_size{};    // 1/m
    std::int32_t dims[3]{};   // cells per axis
    Box box{};                // periodic axes and box lengths
    float radius = 0;         // m
    float radius2 = 0;        // m^2, the neighbour test r2 <= radius2
    float reach = 0;          // m, radius widened by a few ulp for cell ranges (never for the test)
    Vec3f reach_slack{};      // m, extra reach on periodic axes (rounding of the wrap)
    std::int32_t subdivision = 0;      // k
    const std::uint32_t* morton_rank;  // linear id -> Morton cell id; nullptr for linear numbering
    const std::int8_t* sphere_rows;    // (2^(k+1)+1)^2 x-extents of the Sphere shape, by (dz, dy)
    const std::uint32_t* cell_start;   // particles of cell c (in cell order) are [cell_start[c], cell_start[c+1])
    const Vec3f* positions;            // positions in cell (sorted) order
    std::uint32_t count;               // particles
};

// Calls f(j, r_ij, r2) for every particle j (a sorted index, the particle itself included) with
// r2 = |r_ij|^2 <= radius^2, where r_ij = p - positions[j] with the minimum-image convention on
// periodic axes. Usable inside kernels on both backends (PK_HD). The default, fastest variant.
// `Shape` picks the cells visited (same result for every shape; see the header comment).
template <SearchShape Shape = SearchShape::tight, class F>
PK_HD void for_each_neighbor(const CellGridView& grid, Vec3f p, F&& f);

// As for_each_neighbor (ball shape), with each candidate read from `records` (cell order;
// records[j].x, .y, .z equal to the grid's positions) and passed on: f(j, r_ij, r2, records[j]).
// One load then serves the distance test and the neighbour's payload (e.g. its mass in w). The
// calls come in the same order on both backends; on the GPU the distance tests of up to 32
// candidates run first and the body then only for the neighbours among them
// (cell_grid_search.hpp), so that the lanes of a warp run the body together.
template <class Record, class F>
PK_HD void for_each_neighbor_record(const CellGridView& grid, const Record* records, Vec3f p, F&& f);

// Calls f(begin, end) for every contiguous range of sorted particle indices the search for `p`
// examines (the candidates), and returns the number of cells visited. The building block of
// for_each_neighbor; also used for statistics (candidates examined per neighbour found).
template <SearchShape Shape = SearchShape::tight, class F>
PK_HD std::uint32_t for_each_candidate_range(const CellGridView& grid, Vec3f p, F&& f);

// As for_each_candidate_range, in the registration order of Nitta (2019): the home cells of one group
// of 2^group_log2 consecutive x cells first visit, row by row, the cells that all of them
// search (in one order for the whole group), then the rest of their own search. Particles of
// neighbouring cells, which share a warp on the GPU, then read the same neighbours at the same
// time. Block shapes only (full, cube, sphere).
template <SearchShape Shape, class F>
PK_HD std::uint32_t for_each_candidate_range_grouped(const CellGridView& grid, Vec3f p, int group_log2, F&& f);

// Nominal number of cells a search shape visits around a home cell at subdivision k, as in
// the table of Nitta (2019) (full 27/216/1728/13824, cube 27/125/729/4913, sphere 27/125/613/3449 for
// k = 0..3). For `tight` and `ball` the largest count (2^(k+1)+1)^3. Any k >= 0 (host code).
std::uint64_t searched_cells(SearchShape shape, int k);

// The Sphere row table for subdivision k: for dz, dy in [-2^k, 2^k], the largest |dx| whose
// cell has box distance <= r from the home cell, or -1 when no cell of that row does. Entry
// (dz + 2^k) * (2^(k+1)+1) + (dy + 2^k). Any k in 0..6 (host code).
std::vector<std::int8_t> sphere_row_table(int k);

// The subdivision k for a search of `radius` among particles `spacing` apart, as measured fastest
// for SPH-like loads (docs/PERFORMANCE.md, "Neighbour search" and "SPH"): on the GPU the finest
// cells whose edge radius / 2^k is still at least 0.8 spacing (k = 1 for radius 3 spacings,
// 2 for 2 sqrt(3)): smaller cells leave too few candidates per row to fill the 32-candidate
// chunks of the GPU traversal, larger ones test too many candidates per neighbour; on the CPU
// k = 1. Given the grid's volume (m^3) and the particle count, k is then lowered while the grid
// would have more than 16 cells per particle: clearing and scanning a mostly empty grid costs
// more than the extra candidates (measured: an avalanche of 1.74M particles on a hillside, a
// 440M-cell grid at k = 1 took 3.1 ms of a 5.4 ms step to build, 0.44 ms at k = 0).
int default_subdivision(float radius, float spacing, bool gpu, double grid_volume_m3 = 0.0, std::size_t particles = 0);

class CellGrid {
public:
    CellGrid(const Backend& backend, const GridSpec& spec, std::size_t max_particles);  // allocates all it ever needs

    // positions: backend memory, n <= max_particles, original order. Counting sort by cell (no
    // allocation). After it, view().positions are in cell order and sorted_to_original()[k] is
    // the original index of the k-th particle in cell order. The first form runs on the grid's
    // backend; the second from templated code with the Exec it has (core/exec.hpp).
    void build(const Vec3f* positions, std::size_t n);
    template <class Exec> void build(const Exec& exec, const Vec3f* positions, std::size_t n);

    // A window of the grid along one open axis: only the cells that cover [lo, hi] (at least
    // one), with the whole grid's cell edges, so that a grid over a rank's slab and its halo
    // (lib/dist) clears and scans only those cells. Positions outside the window fall into its
    // edge cells, as positions outside an open grid do: every search stays exact, only slower
    // when many are outside. Takes effect at the next build(); clear_window() restores the whole
    // grid. Not with Morton numbering.
    void set_window(int axis, float lo, float hi);
    void clear_window();

    CellGridView view() const;
    const std::uint32_t* sorted_to_original() const { return sorted_to_original_.data(); }  // length size()
    std::size_t size() const { return n_; }
    const GridSpec& spec() const { return spec_; }

    // Cell id of each particle in sorted order (backend memory, length size()).
    const std::uint32_t* sorted_cells() const { return sorted_cells_.data(); }
    std::size_t cell_count() const { return cells_; }  // nx * ny * nz
    std::array<int, 3> dims() const { return {base_.dims[0], base_.dims[1], base_.dims[2]}; }
    std::size_t max_particles() const { return max_particles_; }
    const Backend& backend() const { return backend_; }
    // Bytes of backend memory held.
    std::size_t memory_bytes() const;

    // Phases of the last build(), in seconds, measured only when timing is enabled (it adds a
    // device synchronisation per phase; for benchmarks and frnn-build --stats).
    struct BuildTimes {
        double count_s = 0;    // cell of each particle and its rank in the cell (or the sort keys)
        double scan_s = 0;     // exclusive scan of the cell counts (or cell starts after a sort)
        double permute_s = 0;  // scatter positions and indices into cell order (or the radix sort)
    };
    void enable_timing(bool on) { timing_ = on; }
    const BuildTimes& last_build_times() const { return times_; }

    // Scratch bytes of the build's scan and radix sort (cell_grid_impl.hpp).
    template <class Exec> static std::size_t scratch_bytes(const Exec& exec, std::size_t cells, std::size_t n);

private:
    template <class Exec> void build_phase(const Exec& exec, const Vec3f* positions, std::size_t n, int phase);

    Backend backend_;
    GridSpec spec_;
    std::size_t max_particles_ = 0;
    std::size_t n_ = 0;
    std::size_t cells_ = 0;
    CellGridView base_{};  // geometry (of the window, if any); pointers filled by view()
    CellGridView whole_{};  // the whole grid's geometry
    std::size_t whole_cells_ = 0;

    DeviceBuffer<std::uint32_t> cell_start_;          // cells + 1 (counts before the scan)
    DeviceBuffer<std::uint32_t> particle_cell_;       // per original particle (radix: unsorted keys)
    DeviceBuffer<std::uint32_t> particle_rank_;       // rank inside the cell (radix: 0..n-1)
    DeviceBuffer<std::uint32_t> sorted_cells_;        // per sorted particle
    DeviceBuffer<std::uint32_t> sorted_to_original_;  // per sorted particle
    DeviceBuffer<Vec3f> sorted_positions_;
    DeviceBuffer<std::uint32_t> morton_rank_;         // cells (Morton numbering only)
    DeviceBuffer<std::int8_t> sphere_rows_;           // (2^(k+1)+1)^2
    Workspace workspace_;

    bool timing_ = false;
    BuildTimes times_{};
};

}  // namespace partikel::frnn

#include "frnn/cell_grid_search.hpp"
