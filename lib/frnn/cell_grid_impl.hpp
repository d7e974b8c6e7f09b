// The build of a CellGrid, written once against an Exec policy and instantiated by
// cell_grid_cpu.cpp (CpuExec) and cell_grid_cuda.cu (CudaExec). Only PK_HD functors and Exec
// calls.
#pragma once

#include <cstdint>
#include <string>

#include "core/atomics.hpp"
#include "core/buffer.hpp"
#include "core/key_ranges.hpp"
#include "base/hd.hpp"
#include "base/error.hpp"
#include "core/timer.hpp"
#include "core/workspace.hpp"
#include "frnn/cell_grid.hpp"

namespace partikel::frnn {

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

}  // namespace kernels

template <class Exec> std::size_t CellGrid::scratch_bytes(const Exec& exec, std::size_t cells, std::size_t n) {
    const std::size_t scan = exec.template exclusive_sum_scratch_bytes<std::uint32_t>(cells + 1);
    const std::size_t sort = exec.template sort_pairs_scratch_bytes<std::uint32_t, std::uint32_t>(n);
    return scan > sort ? scan : sort;
}

template <class Exec> void CellGrid::build(const Exec& exec, const Vec3f* positions, std::size_t n) {
    if (n > max_particles_)
        throw UsageError("frnn: build of " + std::to_string(n) + " particles exceeds the grid's capacity of " +
                         std::to_string(max_particles_));
    n_ = n;
    if (!timing_) {
        for (int phase = 0; phase < 3; ++phase) build_phase(exec, positions, n, phase);
        return;
    }
    DeviceTimer timer(exec.backend());
    double* slots[3] = {&times_.count_s, &times_.scan_s, &times_.permute_s};
    for (int phase = 0; phase < 3; ++phase) {
        timer.start();
        build_phase(exec, positions, n, phase);
        timer.stop();
        *slots[phase] = timer.seconds();
    }
}

// One phase (0: cells and ranks or keys, 1: scan or sort, 2: permutation or cell starts) of
// build(). Phases are separate so that they can be timed.
template <class Exec>
void CellGrid::build_phase(const Exec& exec, const Vec3f* positions, std::size_t n, int phase) {
    const std::size_t cells = cells_;
    CellGridView view = base_;
    view.morton_rank = morton_rank_.empty() ? nullptr : morton_rank_.data();
    const int bits = [&] {
        int b = 1;
        while (b < 32 && (std::size_t{1} << b) <= cells) ++b;
        return b;
    }();
    if (spec_.sort == SortMethod::counting) {
        if (phase == 0) {
            exec.fill_zero(cell_start_.data(), (cells + 1) * sizeof(std::uint32_t));
            exec.for_each(n,
                          kernels::AssignCellAndRank{view, positions, particle_cell_.data(), particle_rank_.data(),
                                                     cell_start_.data()},
                          "frnn.grid.count");
        } else if (phase == 1) {
            exec.exclusive_sum(workspace_, cell_start_.data(), cell_start_.data(), cells + 1);
        } else {
            exec.for_each(n,
                          kernels::PermuteIntoCells{positions, particle_cell_.data(), particle_rank_.data(),
                                                    cell_start_.data(), sorted_positions_.data(),
                                                    sorted_to_original_.data(), sorted_cells_.data()},
                          "frnn.grid.permute");
        }
    } else {
        if (phase == 0) {
            exec.for_each(n, kernels::AssignKeys{view, positions, particle_cell_.data(), particle_rank_.data()},
                          "frnn.grid.keys");
        } else if (phase == 1) {
            exec.sort_pairs(workspace_, particle_cell_.data(), sorted_cells_.data(), particle_rank_.data(),
                            sorted_to_original_.data(), n, 0, bits);
        } else {
            exec.for_each(n, kernels::GatherPositions{positions, sorted_to_original_.data(), sorted_positions_.data()},
                          "frnn.grid.gather");
            key_starts(exec, sorted_cells_.data(), n, cells, cell_start_.data(), "frnn.grid.starts");
        }
    }
}

// The family's instantiations, once per backend (cell_grid_cpu.cpp, cell_grid_cuda.cu).
#define PK_FRNN_CELL_GRID_INSTANTIATE(Exec)                                                   \
    template void CellGrid::build(const Exec&, const Vec3f*, std::size_t);                     \
    template std::size_t CellGrid::scratch_bytes(const Exec&, std::size_t, std::size_t);

}  // namespace partikel::frnn
