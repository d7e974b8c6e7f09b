// The build of a CellGrid, written once against an Exec policy and instantiated by
// cell_grid.cpp (CpuExec) and cell_grid.cu (CudaExec). Only PK_HD functors and Exec calls.
#pragma once

#include <cstdint>
#include <optional>

#include "core/atomics.hpp"
#include "core/buffer.hpp"
#include "core/launch.hpp"
#include "core/workspace.hpp"
#include "frnn/cell_grid.hpp"

namespace partikel::frnn {

// Everything a CellGrid owns: allocated in the constructor, never in build().
struct CellGrid::Impl {
    Backend backend;
    GridSpec spec;
    std::size_t max_particles = 0;
    std::size_t n = 0;
    std::size_t cells = 0;
    CellGridView base{};  // geometry; pointers filled by view()

    DeviceBuffer<std::uint32_t> cell_start;          // cells + 1 (counts before the scan)
    DeviceBuffer<std::uint32_t> particle_cell;       // per original particle (radix: unsorted keys)
    DeviceBuffer<std::uint32_t> particle_rank;       // rank inside the cell (radix: 0..n-1)
    DeviceBuffer<std::uint32_t> sorted_cells;        // per sorted particle
    DeviceBuffer<std::uint32_t> sorted_to_original;  // per sorted particle
    DeviceBuffer<Vec3f> sorted_positions;
    DeviceBuffer<std::uint32_t> morton_rank;         // cells (Morton numbering only)
    DeviceBuffer<std::int8_t> sphere_rows;           // (2^(k+1)+1)^2
    Workspace workspace;

    bool timing = false;
    BuildTimes times{};

    explicit Impl(const Backend& b) : backend(b) {}
};

namespace kernels {

// Counting sort, phase 1: the cell of particle i and its rank among the particles of that cell.
struct AssignCellAndRank {
    CellGridView grid;
    const Vec3f* positions;
    std::uint32_t* particle_cell;
    std::uint32_t* particle_rank;
    std::uint32_t* cell_count;
    PK_HD void operator()(std::size_t i) const {
        const std::uint32_t c = cell_of(grid, positions[i]);
        particle_cell[i] = c;
        particle_rank[i] = atomic_add(&cell_count[c], 1u);
    }
};

// Counting sort, phase 3: scatter into cell order, slot = cell_start[cell] + rank.
struct PermuteIntoCells {
    const Vec3f* positions;
    const std::uint32_t* particle_cell;
    const std::uint32_t* particle_rank;
    const std::uint32_t* cell_start;
    Vec3f* sorted_positions;
    std::uint32_t* sorted_to_original;
    std::uint32_t* sorted_cells;
    PK_HD void operator()(std::size_t i) const {
        const std::uint32_t c = particle_cell[i];
        const std::uint32_t slot = cell_start[c] + particle_rank[i];
        sorted_positions[slot] = positions[i];
        sorted_to_original[slot] = static_cast<std::uint32_t>(i);
        sorted_cells[slot] = c;
    }
};

// Radix build, phase 1: sort keys (the cell) and values (the original index).
struct AssignKeys {
    CellGridView grid;
    const Vec3f* positions;
    std::uint32_t* keys;
    std::uint32_t* values;
    PK_HD void operator()(std::size_t i) const {
        keys[i] = cell_of(grid, positions[i]);
        values[i] = static_cast<std::uint32_t>(i);
    }
};

// Radix build: positions gathered into sorted order.
struct GatherPositions {
    const Vec3f* positions;
    const std::uint32_t* sorted_to_original;
    Vec3f* sorted_positions;
    PK_HD void operator()(std::size_t k) const { sorted_positions[k] = positions[sorted_to_original[k]]; }
};

// Radix build: cell_start[c] = first sorted index whose cell is >= c (binary search), c <= cells.
struct CellStartsFromSortedKeys {
    const std::uint32_t* sorted_cells;
    std::uint32_t n;
    std::uint32_t* cell_start;
    PK_HD void operator()(std::size_t c) const {
        std::uint32_t lo = 0, hi = n;
        const auto key = static_cast<std::uint32_t>(c);
        while (lo < hi) {
            const std::uint32_t mid = lo + (hi - lo) / 2;
            if (sorted_cells[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        cell_start[c] = lo;
    }
};

}  // namespace kernels

// Scratch bytes of the scan and the radix sort for grids of `cells` cells and `n` particles.
template <class Exec> std::size_t cell_grid_scratch_bytes(const Exec& exec, std::size_t cells, std::size_t n) {
    std::size_t scan = exec.template exclusive_sum_scratch_bytes<std::uint32_t>(cells + 1);
    std::size_t sort = exec.template sort_pairs_scratch_bytes<std::uint32_t, std::uint32_t>(n);
    return scan > sort ? scan : sort;
}

// One phase (0: cells and ranks or keys, 1: scan or sort, 2: permutation or cell starts) of
// CellGrid::build. Phases are separate so that they can be timed.
template <class Exec>
void cell_grid_build_phase(const Exec& exec, CellGrid::Impl& g, const Vec3f* positions, std::size_t n, int phase) {
    const std::size_t cells = g.cells;
    CellGridView view = g.base;
    view.morton_rank = g.morton_rank.empty() ? nullptr : g.morton_rank.data();
    const int bits = [&] {
        int b = 1;
        while (b < 32 && (std::size_t{1} << b) <= cells) ++b;
        return b;
    }();
    if (g.spec.sort == SortMethod::counting) {
        if (phase == 0) {
            exec.fill_zero(g.cell_start.data(), (cells + 1) * sizeof(std::uint32_t));
            exec.for_each(n,
                          kernels::AssignCellAndRank{view, positions, g.particle_cell.data(), g.particle_rank.data(),
                                                     g.cell_start.data()},
                          "frnn.grid.count");
        } else if (phase == 1) {
            exec.exclusive_sum(g.workspace, g.cell_start.data(), g.cell_start.data(), cells + 1);
        } else {
            exec.for_each(n,
                          kernels::PermuteIntoCells{positions, g.particle_cell.data(), g.particle_rank.data(),
                                                    g.cell_start.data(), g.sorted_positions.data(),
                                                    g.sorted_to_original.data(), g.sorted_cells.data()},
                          "frnn.grid.permute");
        }
    } else {
        if (phase == 0) {
            exec.for_each(n, kernels::AssignKeys{view, positions, g.particle_cell.data(), g.particle_rank.data()},
                          "frnn.grid.keys");
        } else if (phase == 1) {
            exec.sort_pairs(g.workspace, g.particle_cell.data(), g.sorted_cells.data(), g.particle_rank.data(),
                            g.sorted_to_original.data(), n, 0, bits);
        } else {
            exec.for_each(n, kernels::GatherPositions{positions, g.sorted_to_original.data(), g.sorted_positions.data()},
                          "frnn.grid.gather");
            exec.for_each(cells + 1,
                          kernels::CellStartsFromSortedKeys{g.sorted_cells.data(), static_cast<std::uint32_t>(n),
                                                            g.cell_start.data()},
                          "frnn.grid.starts");
        }
    }
}

// The CUDA side (cell_grid.cu), present in CUDA builds only.
namespace cuda_side {
std::size_t cell_grid_scratch_bytes(const Backend& backend, std::size_t cells, std::size_t n);
void cell_grid_build_phase(CellGrid::Impl& g, const Vec3f* positions, std::size_t n, int phase);
}  // namespace cuda_side

}  // namespace partikel::frnn
