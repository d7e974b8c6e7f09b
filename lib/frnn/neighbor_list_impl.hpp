// The NeighborList passes, written once against an Exec policy; instantiated by
// neighbor_list.cpp (CpuExec) and neighbor_list.cu (CudaExec).
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/buffer.hpp"
#include "core/launch.hpp"
#include "core/reduce_ops.hpp"
#include "core/workspace.hpp"
#include "frnn/cell_grid.hpp"
#include "frnn/neighbor_list.hpp"
#include "frnn/shape_dispatch.hpp"

namespace partikel::frnn {

struct NeighborList::Impl {
    Backend backend;
    ListOptions options;
    std::size_t max_particles = 0;
    std::size_t capacity = 0;  // entries (csr) or stride depth (strided)
    std::size_t rows = 0;
    std::uint64_t total = 0;
    DeviceBuffer<std::uint64_t> offsets;  // csr: max_particles + 1 (rows padded to kRowAlign)
    DeviceBuffer<std::uint32_t> counts;   // max_particles
    DeviceBuffer<std::uint32_t> indices;
    DeviceBuffer<std::uint32_t> scalar;        // largest row (strided)
    DeviceBuffer<std::uint64_t> total_scalar;  // entries (strided)
    std::uint32_t depth = 0;                   // strided: entries per row written by this pass
    Workspace workspace;
    bool timing = false;
    BuildTimes times{};
    explicit Impl(const Backend& b) : backend(b) {}
};

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

// Phases of NeighborList::build: 0 count (csr) / single pass (strided), 1 scan, 2 fill.
template <SearchShape Shape, class Exec>
void neighbor_list_phase_shaped(const Exec& exec, NeighborList::Impl& L, const CellGridView& grid,
                                const std::uint32_t* s2o, int group_log2, int phase) {
    const std::size_t n = grid.count;
    const bool strided = L.options.layout == ListLayout::strided;
    if (phase == 0) {
        if (strided) {
            const auto stride = static_cast<std::uint32_t>(L.max_particles > 0 ? L.max_particles : 1);
            exec.for_each_uneven(n,
                                 kernels::FillNeighbors<Shape>{grid, s2o, group_log2, nullptr, L.counts.data(),
                                                               L.indices.data(), stride, L.depth},
                                 "frnn.list.strided");
        } else {
            exec.fill_zero(L.offsets.data() + n, sizeof(std::uint64_t));
            exec.for_each_uneven(n, kernels::CountNeighbors<Shape>{grid, s2o, L.offsets.data(), L.counts.data()},
                                 "frnn.list.count");
        }
    } else if (phase == 1) {
        if (!strided) exec.exclusive_sum(L.workspace, L.offsets.data(), L.offsets.data(), n + 1);
        exec.transform_reduce(L.workspace, n, LoadAs<std::uint32_t, std::uint32_t>{L.counts.data()}, MaxOp{},
                              std::uint32_t{0}, L.scalar.data());
        exec.transform_reduce(L.workspace, n, LoadAs<std::uint32_t, std::uint64_t>{L.counts.data()}, SumOp{},
                              std::uint64_t{0}, L.total_scalar.data());
    } else {
        exec.for_each_uneven(n,
                             kernels::FillNeighbors<Shape>{grid, s2o, group_log2, L.offsets.data(), nullptr,
                                                           L.indices.data(), 0u, 0u},
                             "frnn.list.fill");
    }
}

template <class Exec>
void neighbor_list_phase(const Exec& exec, NeighborList::Impl& L, const CellGridView& grid, const std::uint32_t* s2o,
                         int group_log2, int phase) {
    with_shape(L.options.shape, [&](auto s) {
        neighbor_list_phase_shaped<decltype(s)::value>(exec, L, grid, s2o, group_log2, phase);
    });
}

template <class Exec> std::size_t neighbor_list_scratch_bytes(const Exec& exec, std::size_t rows) {
    std::size_t scan = exec.template exclusive_sum_scratch_bytes<std::uint64_t>(rows + 1);
    std::size_t reduce = exec.template reduce_scratch_bytes<std::uint32_t, MaxOp>(rows);
    std::size_t sum = exec.template reduce_scratch_bytes<std::uint64_t, SumOp>(rows);
    return std::max({scan, reduce, sum});
}

namespace cuda_side {
std::size_t neighbor_list_scratch_bytes(const Backend& backend, std::size_t rows);
void neighbor_list_phase(NeighborList::Impl& L, const CellGridView& grid, const std::uint32_t* s2o, int group_log2,
                         int phase);
}  // namespace cuda_side

}  // namespace partikel::frnn
