#include "frnn/neighbor_list.hpp"

#include <algorithm>
#include <span>
#include <string>

#include "base/error.hpp"
#include "core/dispatch.hpp"

namespace partikel::frnn {

NeighborList::NeighborList(const Backend& backend, std::size_t max_particles, std::size_t capacity, ListOptions options)
    : backend_(backend), options_(options), max_particles_(max_particles), capacity_(capacity) {
    if (options.order == ListOrder::shared_first &&
        (options.shape == SearchShape::tight || options.shape == SearchShape::ball))
        throw UsageError("frnn: the shared-first registration order needs a block search shape (full, cube, sphere)");
    if (options.group_log2 > 6) throw UsageError("frnn: registration groups of at most 2^6 cells");
    if (max_particles >= (std::size_t{1} << 32) - 1)
        throw UsageError("frnn: at most 2^32 - 2 particles, got " + std::to_string(max_particles));
    const std::size_t slots = std::max<std::size_t>(max_particles, 1);
    counts_ = DeviceBuffer<std::uint32_t>(backend, slots);
    if (options.layout == ListLayout::strided) {
        if (capacity == 0 || capacity > 0xffffffffu) throw UsageError("frnn: a strided list needs 1..2^32-1 entries per row");
        indices_ = DeviceBuffer<std::uint32_t>(backend, std::max<std::size_t>(max_particles * capacity, 1));
    } else {
        offsets_ = DeviceBuffer<std::uint64_t>(backend, max_particles + 1);
        offsets_.fill_zero();
        indices_ = DeviceBuffer<std::uint32_t>(backend, std::max<std::size_t>(capacity, 1));
    }
    largest_row_ = DeviceBuffer<std::uint32_t>(backend, 1);
    entries_ = DeviceBuffer<std::uint64_t>(backend, 1);
    const std::size_t scratch = with_exec(backend, [&](const auto& e) { return scratch_bytes(e, slots); });
    workspace_.reserve(backend, std::max<std::size_t>(scratch, 256));
}

NeighborList::Pass NeighborList::pass_for(const CellGrid& grid) const {
    if (grid.size() > max_particles_)
        throw UsageError("frnn: a grid of " + std::to_string(grid.size()) + " particles exceeds the list's capacity of " +
                         std::to_string(max_particles_) + " rows");
    if (!(grid.backend().kind() == backend_.kind() && grid.backend().device_index() == backend_.device_index()))
        throw UsageError("frnn: the neighbour list and the grid live on different backends");
    Pass pass{grid.view(), options_.indices == IndexSpace::original ? grid.sorted_to_original() : nullptr, -1};
    if (options_.order == ListOrder::shared_first)
        pass.group_log2 = options_.group_log2 >= 0 ? options_.group_log2 : grid.spec().subdivision;
    return pass;
}

std::uint64_t NeighborList::count(const CellGrid& grid) {
    return with_exec(backend_, [&](const auto& e) { return count(e, grid); });
}

void NeighborList::build(const CellGrid& grid) {
    with_exec(backend_, [&](const auto& e) { build(e, grid); });
}

NeighborListView NeighborList::view() const {
    NeighborListView v{};
    v.rows = static_cast<std::uint32_t>(rows_);
    v.indices = indices_.data();
    v.counts = counts_.data();
    if (options_.layout == ListLayout::strided) {
        v.stride = static_cast<std::uint32_t>(std::max<std::size_t>(max_particles_, 1));
    } else {
        v.offsets = offsets_.data();
        v.stride = 0;
    }
    return v;
}

std::size_t NeighborList::memory_bytes() const {
    return offsets_.bytes() + counts_.bytes() + indices_.bytes() + workspace_.size();
}

void NeighborList::copy_to_host(std::vector<std::uint64_t>& offsets, std::vector<std::uint32_t>& indices) const {
    offsets.assign(rows_ + 1, 0);
    std::vector<std::uint32_t> counts(rows_);
    if (rows_) counts_.copy_to_host(counts);
    if (options_.layout == ListLayout::csr) {
        // Compact the padded rows.
        std::vector<std::uint64_t> padded(rows_ + 1, 0);
        if (rows_) offsets_.copy_to_host(std::span<std::uint64_t>(padded.data(), rows_ + 1));
        std::vector<std::uint32_t> all(padded[rows_]);
        if (!all.empty()) indices_.copy_to_host(std::span<std::uint32_t>(all.data(), all.size()));
        for (std::size_t i = 0; i < rows_; ++i) offsets[i + 1] = offsets[i] + counts[i];
        indices.resize(offsets[rows_]);
        for (std::size_t i = 0; i < rows_; ++i)
            std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(padded[i]), counts[i],
                        indices.begin() + static_cast<std::ptrdiff_t>(offsets[i]));
        return;
    }
    for (std::size_t i = 0; i < rows_; ++i) offsets[i + 1] = offsets[i] + counts[i];
    indices.resize(offsets[rows_]);
    const std::size_t stride = std::max<std::size_t>(max_particles_, 1);
    std::vector<std::uint32_t> slab(stride);
    std::uint32_t depth = 0;
    for (auto c : counts) depth = std::max(depth, c);
    for (std::uint32_t s = 0; s < depth; ++s) {
        indices_.copy_to_host(std::span<std::uint32_t>(slab.data(), stride), s * stride);
        for (std::size_t i = 0; i < rows_; ++i)
            if (s < counts[i]) indices[offsets[i] + s] = slab[i];
    }
}

}  // namespace partikel::frnn
