// Materialised neighbour lists built from a CellGrid: CSR (offsets + flat indices) or a
// warp-friendly strided layout (entry s of row i at indices[s * stride + i], so that the lanes
// of a warp, handling consecutive rows, read consecutive words).
//
//   frnn::NeighborList list(backend, n_max, n_max * 128, {});   // capacity: entries (CSR)
//   grid.build(d_positions, n);
//   list.build(grid);                                             // count, scan, fill
//   auto v = list.view();                                         // by value into kernels:
//   for (std::uint32_t s = 0; s < v.size(i); ++s) { std::uint32_t j = v.at(i, s); ... }
//
// The CSR build runs the search twice (count pass, exclusive scan of the counts into 64-bit
// offsets, fill pass). CSR rows start at multiples of 8 entries (32 bytes, one memory sector)
// so that the fill writes whole sectors; the padding after a row's `size(i)` entries holds
// 0xffffffff and costs 3.5 entries per row on average (count it in the capacity; count()
// returns the padded size). The strided build runs the search once and fails when a row has
// more than `capacity` neighbours; on the H100 it is slower than CSR (docs/PERFORMANCE.md).
// Rows and entries are original particle indices (the order of the positions given to
// CellGrid::build) or, with IndexSpace::sorted, the grid's cell order. Every row holds the
// particle itself. Nothing is allocated after construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/backend.hpp"
#include "base/hd.hpp"
#include "core/buffer.hpp"
#include "core/workspace.hpp"
#include "frnn/cell_grid.hpp"

namespace partikel::frnn {

enum class ListLayout : std::uint8_t { csr, strided };
enum class IndexSpace : std::uint8_t { original, sorted };
// Order of the entries of a row: `cell` is the search order (rows of cells, x fastest);
// `shared_first` is the registration order of Nitta (2019) (see for_each_candidate_range_grouped).
enum class ListOrder : std::uint8_t { cell, shared_first };

struct ListOptions {
    SearchShape shape = SearchShape::tight;
    ListLayout layout = ListLayout::csr;
    IndexSpace indices = IndexSpace::original;
    ListOrder order = ListOrder::cell;
    int group_log2 = -1;  // shared_first: groups of 2^g consecutive x cells; -1: g = k (a coarse cell)
};

// Trivially copyable; passed by value into kernels.
struct NeighborListView {
    const std::uint64_t* offsets;  // csr: row i is indices[offsets[i], offsets[i] + counts[i]); rows + 1 values
    const std::uint32_t* counts;   // entries of row i (both layouts)
    const std::uint32_t* indices;
    std::uint32_t stride;          // strided: entry s of row i at indices[s * stride + i]; 0 for csr
    std::uint32_t rows;

    PK_DEVICE_INLINE std::uint32_t size(std::uint32_t i) const {
        return counts[i];
    }
    PK_DEVICE_INLINE std::uint32_t at(std::uint32_t i, std::uint32_t s) const {
        return stride ? indices[static_cast<std::size_t>(s) * stride + i] : indices[offsets[i] + s];
    }
};

class NeighborList {
public:
    // capacity: total entries for CSR; entries per row (the stride's depth) for strided.
    NeighborList(const Backend& backend, std::size_t max_particles, std::size_t capacity, ListOptions options = {});

    // Builds the list of every particle of `grid` (radius: the grid's). Throws UsageError,
    // naming the capacity needed, when the entries do not fit; the list is then empty. The
    // first form runs on the list's backend, the second with the Exec of templated code.
    void build(const CellGrid& grid);
    template <class Exec> void build(const Exec& exec, const CellGrid& grid);
    // The CSR count pass and scan only: returns the entries (padding included) a CSR list of
    // `grid` needs, for sizing a list before the loop. For strided lists, the largest row.
    std::uint64_t count(const CellGrid& grid);
    template <class Exec> std::uint64_t count(const Exec& exec, const CellGrid& grid);

    NeighborListView view() const;
    std::uint64_t total() const { return total_; }  // neighbour entries after the last build (no padding)
    std::size_t rows() const { return rows_; }
    const ListOptions& options() const { return options_; }
    std::size_t capacity() const { return capacity_; }
    std::size_t memory_bytes() const;

    // The list on the host as CSR (both layouts): offsets (rows + 1) and indices.
    void copy_to_host(std::vector<std::uint64_t>& offsets, std::vector<std::uint32_t>& indices) const;

    struct BuildTimes {
        double count_s = 0;  // count pass (CSR) or the single pass (strided)
        double scan_s = 0;   // scan of the counts into offsets (CSR)
        double fill_s = 0;   // fill pass (CSR)
    };
    void enable_timing(bool on) { timing_ = on; }
    const BuildTimes& last_build_times() const { return times_; }

    // Scratch bytes of the scan and the reductions over `rows` rows (neighbor_list_impl.hpp).
    template <class Exec> static std::size_t scratch_bytes(const Exec& exec, std::size_t rows);

private:
    struct Pass {  // what one build's passes read
        CellGridView grid;
        const std::uint32_t* sorted_to_original;  // nullptr: rows in cell order
        int group_log2;                           // registration groups; -1: search order
    };
    Pass pass_for(const CellGrid& grid) const;
    template <class Exec> void run_phase(const Exec& exec, const Pass& pass, int phase, double* seconds);

    Backend backend_;
    ListOptions options_;
    std::size_t max_particles_ = 0;
    std::size_t capacity_ = 0;  // entries (csr) or stride depth (strided)
    std::size_t rows_ = 0;
    std::uint64_t total_ = 0;
    DeviceBuffer<std::uint64_t> offsets_;       // csr: max_particles + 1 (rows padded to 8 entries)
    DeviceBuffer<std::uint32_t> counts_;        // max_particles
    DeviceBuffer<std::uint32_t> indices_;
    DeviceBuffer<std::uint32_t> largest_row_;   // device scalar
    DeviceBuffer<std::uint64_t> entries_;       // device scalar
    std::uint32_t depth_ = 0;                   // strided: entries per row written by this pass
    Workspace workspace_;
    bool timing_ = false;
    BuildTimes times_{};
};

}  // namespace partikel::frnn
