#include "frnn/neighbor_list.hpp"

#include <algorithm>
#include <span>
#include <string>

#include "core/dispatch.hpp"
#include "core/error.hpp"
#include "core/exec_cpu.hpp"
#include "core/timer.hpp"
#include "frnn/neighbor_list_impl.hpp"

namespace partikel::frnn {

namespace {

void run_phase(NeighborList::Impl& L, const CellGridView& grid, const std::uint32_t* s2o, int group_log2, int phase) {
    if (L.backend.is_cuda()) { PK_CUDA_ONLY(return cuda_side::neighbor_list_phase(L, grid, s2o, group_log2, phase);) }
    neighbor_list_phase(CpuExec(L.backend), L, grid, s2o, group_log2, phase);
}

// Runs `phase` and, when timing, stores its device time in *slot.
void timed_phase(NeighborList::Impl& L, const CellGridView& grid, const std::uint32_t* s2o, int group_log2, int phase,
                 double* slot) {
    if (!L.timing) {
        run_phase(L, grid, s2o, group_log2, phase);
        return;
    }
    DeviceTimer timer(L.backend);
    timer.start();
    run_phase(L, grid, s2o, group_log2, phase);
    timer.stop();
    *slot = timer.seconds();
}

}  // namespace

NeighborList::NeighborList(const Backend& backend, std::size_t max_particles, std::size_t capacity, ListOptions options)
    : impl_(std::make_unique<Impl>(backend)) {
    Impl& L = *impl_;
    if (options.order == ListOrder::shared_first &&
        (options.shape == SearchShape::tight || options.shape == SearchShape::ball))
        throw UsageError("frnn: the shared-first registration order needs a block search shape (full, cube, sphere)");
    if (options.group_log2 > 6) throw UsageError("frnn: registration groups of at most 2^6 cells");
    if (max_particles >= (std::size_t{1} << 32) - 1)
        throw UsageError("frnn: at most 2^32 - 2 particles, got " + std::to_string(max_particles));
    L.options = options;
    L.max_particles = max_particles;
    L.capacity = capacity;
    const std::size_t slots = std::max<std::size_t>(max_particles, 1);
    L.counts = DeviceBuffer<std::uint32_t>(backend, slots);
    if (options.layout == ListLayout::strided) {
        if (capacity == 0 || capacity > 0xffffffffu) throw UsageError("frnn: a strided list needs 1..2^32-1 entries per row");
        L.indices = DeviceBuffer<std::uint32_t>(backend, std::max<std::size_t>(max_particles * capacity, 1));
    } else {
        L.offsets = DeviceBuffer<std::uint64_t>(backend, max_particles + 1);
        L.offsets.fill_zero();
        L.indices = DeviceBuffer<std::uint32_t>(backend, std::max<std::size_t>(capacity, 1));
    }
    L.scalar = DeviceBuffer<std::uint32_t>(backend, 1);
    L.total_scalar = DeviceBuffer<std::uint64_t>(backend, 1);
    std::size_t scratch = 0;
    if (backend.is_cuda()) {
        PK_CUDA_ONLY(scratch = cuda_side::neighbor_list_scratch_bytes(backend, slots);)
    } else {
        scratch = neighbor_list_scratch_bytes(CpuExec(backend), slots);
    }
    L.workspace.reserve(backend, std::max<std::size_t>(scratch, 256));
}

NeighborList::~NeighborList() = default;
NeighborList::NeighborList(NeighborList&&) noexcept = default;
NeighborList& NeighborList::operator=(NeighborList&&) noexcept = default;

namespace {

struct BuildArgs {
    CellGridView grid;
    const std::uint32_t* s2o;
    int group_log2;
};

BuildArgs build_args(const NeighborList::Impl& L, const CellGrid& grid) {
    if (grid.size() > L.max_particles)
        throw UsageError("frnn: a grid of " + std::to_string(grid.size()) + " particles exceeds the list's capacity of " +
                         std::to_string(L.max_particles) + " rows");
    if (!(grid.backend().kind() == L.backend.kind() && grid.backend().device_index() == L.backend.device_index()))
        throw UsageError("frnn: the neighbour list and the grid live on different backends");
    BuildArgs a{grid.view(), L.options.indices == IndexSpace::original ? grid.sorted_to_original() : nullptr, -1};
    if (L.options.order == ListOrder::shared_first)
        a.group_log2 = L.options.group_log2 >= 0 ? L.options.group_log2 : grid.spec().subdivision;
    return a;
}

}  // namespace

std::uint64_t NeighborList::count(const CellGrid& grid) {
    Impl& L = *impl_;
    const BuildArgs a = build_args(L, grid);
    const std::size_t n = grid.size();
    L.rows = 0;
    L.total = 0;
    if (L.options.layout == ListLayout::strided) {
        L.depth = 0;  // counts only
        timed_phase(L, a.grid, a.s2o, a.group_log2, 0, &L.times.count_s);
        run_phase(L, a.grid, a.s2o, a.group_log2, 1);
        std::uint32_t max_row = 0;
        copy_bytes(L.backend, &max_row, L.scalar.data(), sizeof max_row, CopyDirection::device_to_host);
        return max_row;
    }
    timed_phase(L, a.grid, a.s2o, a.group_log2, 0, &L.times.count_s);
    timed_phase(L, a.grid, a.s2o, a.group_log2, 1, &L.times.scan_s);
    std::uint64_t total = 0;
    copy_bytes(L.backend, &total, L.offsets.data() + n, sizeof total, CopyDirection::device_to_host);
    return total;
}

void NeighborList::build(const CellGrid& grid) {
    Impl& L = *impl_;
    const BuildArgs a = build_args(L, grid);
    const std::size_t n = grid.size();
    L.rows = 0;
    L.total = 0;
    if (L.options.layout == ListLayout::strided) {
        L.depth = static_cast<std::uint32_t>(L.capacity);
        timed_phase(L, a.grid, a.s2o, a.group_log2, 0, &L.times.count_s);
        run_phase(L, a.grid, a.s2o, a.group_log2, 1);
        std::uint32_t max_row = 0;
        std::uint64_t total = 0;
        copy_bytes(L.backend, &max_row, L.scalar.data(), sizeof max_row, CopyDirection::device_to_host);
        copy_bytes(L.backend, &total, L.total_scalar.data(), sizeof total, CopyDirection::device_to_host);
        if (max_row > L.capacity)
            throw UsageError("frnn: a particle has " + std::to_string(max_row) +
                             " neighbours, more than the strided list's " + std::to_string(L.capacity) +
                             " entries per row");
        L.rows = n;
        L.total = total;
        return;
    }
    timed_phase(L, a.grid, a.s2o, a.group_log2, 0, &L.times.count_s);
    timed_phase(L, a.grid, a.s2o, a.group_log2, 1, &L.times.scan_s);
    std::uint64_t padded = 0;
    copy_bytes(L.backend, &padded, L.offsets.data() + n, sizeof padded, CopyDirection::device_to_host);
    if (padded > L.capacity)
        throw UsageError("frnn: the neighbour list needs " + std::to_string(padded) + " entries (rows padded to " +
                         std::to_string(kernels::kRowAlign) + "), capacity is " + std::to_string(L.capacity));
    timed_phase(L, a.grid, a.s2o, a.group_log2, 2, &L.times.fill_s);
    std::uint64_t total = 0;
    copy_bytes(L.backend, &total, L.total_scalar.data(), sizeof total, CopyDirection::device_to_host);
    L.rows = n;
    L.total = total;
}

NeighborListView NeighborList::view() const {
    const Impl& L = *impl_;
    NeighborListView v{};
    v.rows = static_cast<std::uint32_t>(L.rows);
    v.indices = L.indices.data();
    v.counts = L.counts.data();
    if (L.options.layout == ListLayout::strided) {
        v.stride = static_cast<std::uint32_t>(std::max<std::size_t>(L.max_particles, 1));
    } else {
        v.offsets = L.offsets.data();
        v.stride = 0;
    }
    return v;
}

std::uint64_t NeighborList::total() const { return impl_->total; }
std::size_t NeighborList::rows() const { return impl_->rows; }
const ListOptions& NeighborList::options() const { return impl_->options; }
std::size_t NeighborList::capacity() const { return impl_->capacity; }
std::size_t NeighborList::memory_bytes() const {
    const Impl& L = *impl_;
    return L.offsets.bytes() + L.counts.bytes() + L.indices.bytes() + L.workspace.size();
}
void NeighborList::enable_timing(bool on) { impl_->timing = on; }
const NeighborList::BuildTimes& NeighborList::last_build_times() const { return impl_->times; }

void NeighborList::copy_to_host(std::vector<std::uint64_t>& offsets, std::vector<std::uint32_t>& indices) const {
    const Impl& L = *impl_;
    offsets.assign(L.rows + 1, 0);
    std::vector<std::uint32_t> counts(L.rows);
    if (L.rows) L.counts.copy_to_host(counts);
    if (L.options.layout == ListLayout::csr) {
        // Compact the padded rows.
        std::vector<std::uint64_t> padded(L.rows + 1, 0);
        if (L.rows) L.offsets.copy_to_host(std::span<std::uint64_t>(padded.data(), L.rows + 1));
        std::vector<std::uint32_t> all(padded[L.rows]);
        if (!all.empty()) L.indices.copy_to_host(std::span<std::uint32_t>(all.data(), all.size()));
        for (std::size_t i = 0; i < L.rows; ++i) offsets[i + 1] = offsets[i] + counts[i];
        indices.resize(offsets[L.rows]);
        for (std::size_t i = 0; i < L.rows; ++i)
            std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(padded[i]), counts[i],
                        indices.begin() + static_cast<std::ptrdiff_t>(offsets[i]));
        return;
    }
    for (std::size_t i = 0; i < L.rows; ++i) offsets[i + 1] = offsets[i] + counts[i];
    indices.resize(offsets[L.rows]);
    const std::size_t stride = std::max<std::size_t>(L.max_particles, 1);
    std::vector<std::uint32_t> slab(stride);
    std::uint32_t depth = 0;
    for (auto c : counts) depth = std::max(depth, c);
    for (std::uint32_t s = 0; s < depth; ++s) {
        L.indices.copy_to_host(std::span<std::uint32_t>(slab.data(), stride), s * stride);
        for (std::size_t i = 0; i < L.rows; ++i)
            if (s < counts[i]) indices[offsets[i] + s] = slab[i];
    }
}

}  // namespace partikel::frnn
