// The NeighborList passes, written once against an Exec policy; instantiated by
// neighbor_list_cpu.cpp (CpuExec) and neighbor_list_cuda.cu (CudaExec).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "core/buffer.hpp"
#include "core/timer.hpp"
#include "base/hd.hpp"
#include "core/reduce_ops.hpp"
#include "core/workspace.hpp"
#include "frnn/cell_grid.hpp"
#include "frnn/neighbor_list.hpp"
#include "frnn/shape_dispatch.hpp"

namespace partikel::frnn {

namespace kernels {

// CSR rows start at multiples of this many entries; padding entries hold kNoNeighbor.
constexpr std::uint32_t kRowAlign = 8;
constexpr std::uint32_t kNoNeighbor = 0xffffffffu;

// Neighbours of `p` in the given registration order, each as f(j) with j a sorted index.
template <SearchShape Shape, class F>
PK_DEVICE_INLINE void for_each_neighbor_ordered(const CellGridView& g, Vec3f p, int group_log2, F& f) {
    const Vec3f* positions = g.positions;
    const Box box = g.box;
    const float radius2 = g.radius2;
    auto test_range = [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t j = begin; j < end; ++j)
            if (distance2(box.displacement(p, positions[j])) <= radius2) f(j);
    };
    if constexpr (Shape != SearchShape::tight && Shape != SearchShape::ball) {
        if (group_log2 >= 0) {
            for_each_candidate_range_grouped<Shape>(g, p, group_log2, test_range);
            return;
        }
    }
    for_each_candidate_range<Shape>(g, p, test_range);
}

// Count pass: counts[row] = neighbours of row; row_sizes[row] = that rounded up to kRowAlign
// (scanned into the padded CSR offsets afterwards).
template <SearchShape Shape> struct CountNeighbors {
    CellGridView grid;
    const std::uint32_t* sorted_to_original;  // nullptr: rows in sorted order
    std::uint64_t* row_sizes;
    std::uint32_t* counts;
    PK_HD void operator()(std::size_t k) const {
        std::uint32_t found = 0;
        auto add = [&](std::uint32_t) { ++found; };
        for_each_neighbor_ordered<Shape>(grid, grid.positions[k], -1, add);
        const std::uint32_t row = sorted_to_original ? sorted_to_original[k] : static_cast<std::uint32_t>(k);
        row_sizes[row] = (found + (kRowAlign - 1)) / kRowAlign * kRowAlign;
        counts[row] = found;
    }
};

// 16 bytes, stored with one vector store.
struct alignas(16) Quad {
    std::uint32_t a, b, c, d;
};

// Fill pass (CSR, offsets known) or the single pass (strided: writes the first `depth`
// entries and the full count, so that an overflow is seen).
//
// CSR rows start at multiples of kRowAlign entries (32 bytes), and each thread collects
// kRowAlign entries in registers before writing them as one whole 32-byte sector (two 16-byte
// stores): a thread's entries are private to it, so writing them one word at a time would cost
// a memory transaction per entry on the GPU (on the H100 sectors and the shift register below
// made the fill 2.9x faster; docs/PERFORMANCE.md). The last group of a row is padded with
// kNoNeighbor.
template <SearchShape Shape> struct FillNeighbors {
    CellGridView grid;
    const std::uint32_t* sorted_to_original;  // nullptr: sorted index space
    int group_log2;
    const std::uint64_t* offsets;  // csr
    std::uint32_t* counts;         // strided
    std::uint32_t* indices;
    std::uint32_t stride;          // 0: csr
    std::uint32_t depth;           // strided: entries per row that fit
    PK_HD void operator()(std::size_t k) const {
        const std::uint32_t row = sorted_to_original ? sorted_to_original[k] : static_cast<std::uint32_t>(k);
        const std::uint32_t* s2o = sorted_to_original;
        std::uint32_t found = 0;
        if (stride == 0) {
            Quad* out = reinterpret_cast<Quad*>(indices + offsets[row]);
            std::uint32_t r0 = kNoNeighbor, r1 = kNoNeighbor, r2 = kNoNeighbor, r3 = kNoNeighbor, r4 = kNoNeighbor,
                          r5 = kNoNeighbor, r6 = kNoNeighbor, r7 = kNoNeighbor;
            std::uint32_t held = 0;
            // A shift register of the last 8 entries: the same instructions for every lane
            // whatever its fill level (a switch on the level diverged up to 8 ways in a warp
            // and cost 1.6x in the fill).
            auto shift_in = [&](std::uint32_t v) {
                r0 = r1;
                r1 = r2;
                r2 = r3;
                r3 = r4;
                r4 = r5;
                r5 = r6;
                r6 = r7;
                r7 = v;
            };
            auto put = [&](std::uint32_t j) {
                shift_in(s2o ? s2o[j] : j);
                if (++held == kRowAlign) {
                    out[0] = Quad{r0, r1, r2, r3};
                    out[1] = Quad{r4, r5, r6, r7};
                    out += 2;
                    held = 0;
                }
            };
            for_each_neighbor_ordered<Shape>(grid, grid.positions[k], group_log2, put);
            if (held) {
                for (std::uint32_t t = held; t < kRowAlign; ++t) shift_in(kNoNeighbor);
                out[0] = Quad{r0, r1, r2, r3};
                out[1] = Quad{r4, r5, r6, r7};
            }
        } else {
            std::uint32_t* out = indices + row;
            const std::size_t step = stride;
            const std::uint32_t cap = depth;
            auto put = [&](std::uint32_t j) {
                if (found < cap) out[found * step] = s2o ? s2o[j] : j;
                ++found;
            };
            for_each_neighbor_ordered<Shape>(grid, grid.positions[k], group_log2, put);
            counts[row] = found;
        }
    }
};

}  // namespace kernels

// Phases of a build: 0 count (csr) / single pass (strided), 1 scan and reductions, 2 fill.
template <SearchShape Shape, class Exec>
void neighbor_list_phase(const Exec& exec, const CellGridView& grid, const std::uint32_t* s2o, int group_log2,
                         int phase, bool strided, std::uint32_t stride, std::uint32_t depth, Workspace& ws,
                         std::uint64_t* offsets, std::uint32_t* counts, std::uint32_t* indices,
                         std::uint32_t* largest_row, std::uint64_t* entries) {
    const std::size_t n = grid.count;
    if (phase == 0) {
        if (strided) {
            exec.for_each_uneven(
                n, kernels::FillNeighbors<Shape>{grid, s2o, group_log2, nullptr, counts, indices, stride, depth},
                "frnn.list.strided");
        } else {
            exec.fill_zero(offsets + n, sizeof(std::uint64_t));
            exec.for_each_uneven(n, kernels::CountNeighbors<Shape>{grid, s2o, offsets, counts}, "frnn.list.count");
        }
    } else if (phase == 1) {
        if (!strided) exec.exclusive_sum(ws, offsets, offsets, n + 1);
        exec.transform_reduce(ws, n, LoadAs<std::uint32_t, std::uint32_t>{counts}, MaxOp{}, std::uint32_t{0},
                              largest_row);
        exec.transform_reduce(ws, n, LoadAs<std::uint32_t, std::uint64_t>{counts}, SumOp{}, std::uint64_t{0}, entries);
    } else {
        exec.for_each_uneven(
            n, kernels::FillNeighbors<Shape>{grid, s2o, group_log2, offsets, nullptr, indices, 0u, 0u},
            "frnn.list.fill");
    }
}

template <class Exec> void NeighborList::run_phase(const Exec& exec, const Pass& pass, int phase, double* seconds) {
    auto run = [&] {
        const bool strided = options_.layout == ListLayout::strided;
        const auto stride = static_cast<std::uint32_t>(max_particles_ > 0 ? max_particles_ : 1);
        with_shape(options_.shape, [&](auto s) {
            neighbor_list_phase<decltype(s)::value>(exec, pass.grid, pass.sorted_to_original, pass.group_log2, phase,
                                                    strided, stride, depth_, workspace_, offsets_.data(),
                                                    counts_.data(), indices_.data(), largest_row_.data(),
                                                    entries_.data());
        });
    };
    if (!timing_ || !seconds) {
        run();
        return;
    }
    DeviceTimer timer(exec.backend());
    timer.start();
    run();
    timer.stop();
    *seconds = timer.seconds();
}

template <class Exec> std::uint64_t NeighborList::count(const Exec& exec, const CellGrid& grid) {
    const Pass pass = pass_for(grid);
    const std::size_t n = grid.size();
    rows_ = 0;
    total_ = 0;
    if (options_.layout == ListLayout::strided) {
        depth_ = 0;  // counts only
        run_phase(exec, pass, 0, &times_.count_s);
        run_phase(exec, pass, 1, nullptr);
        return exec.read_value(largest_row_.data());
    }
    run_phase(exec, pass, 0, &times_.count_s);
    run_phase(exec, pass, 1, &times_.scan_s);
    return exec.read_value(offsets_.data() + n);
}

template <class Exec> void NeighborList::build(const Exec& exec, const CellGrid& grid) {
    const Pass pass = pass_for(grid);
    const std::size_t n = grid.size();
    rows_ = 0;
    total_ = 0;
    if (options_.layout == ListLayout::strided) {
        depth_ = static_cast<std::uint32_t>(capacity_);
        run_phase(exec, pass, 0, &times_.count_s);
        run_phase(exec, pass, 1, nullptr);
        const std::uint32_t largest = exec.read_value(largest_row_.data());
        if (largest > capacity_)
            throw UsageError("frnn: a particle has " + std::to_string(largest) +
                             " neighbours, more than the strided list's " + std::to_string(capacity_) +
                             " entries per row");
        rows_ = n;
        total_ = exec.read_value(entries_.data());
        return;
    }
    run_phase(exec, pass, 0, &times_.count_s);
    run_phase(exec, pass, 1, &times_.scan_s);
    const std::uint64_t padded = exec.read_value(offsets_.data() + n);
    if (padded > capacity_)
        throw UsageError("frnn: the neighbour list needs " + std::to_string(padded) + " entries (rows padded to " +
                         std::to_string(kernels::kRowAlign) + "), capacity is " + std::to_string(capacity_));
    run_phase(exec, pass, 2, &times_.fill_s);
    rows_ = n;
    total_ = exec.read_value(entries_.data());
}

template <class Exec> std::size_t NeighborList::scratch_bytes(const Exec& exec, std::size_t rows) {
    const std::size_t scan = exec.template exclusive_sum_scratch_bytes<std::uint64_t>(rows + 1);
    const std::size_t reduce = exec.template reduce_scratch_bytes<std::uint32_t, MaxOp>(rows);
    const std::size_t sum = exec.template reduce_scratch_bytes<std::uint64_t, SumOp>(rows);
    return std::max({scan, reduce, sum});
}

// The family's instantiations, once per backend (neighbor_list_cpu.cpp, neighbor_list_cuda.cu).
#define PK_FRNN_NEIGHBOR_LIST_INSTANTIATE(Exec)                                 \
    template void NeighborList::build(const Exec&, const CellGrid&);           \
    template std::uint64_t NeighborList::count(const Exec&, const CellGrid&);   \
    template std::size_t NeighborList::scratch_bytes(const Exec&, std::size_t);

}  // namespace partikel::frnn
