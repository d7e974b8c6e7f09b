#include "run/pinned_columns.hpp"

#include <utility>

#include "core/memory.hpp"

namespace partikel::run {

PinnedColumns::PinnedColumns(const Backend& backend, Wanted wanted) : backend_(backend), wanted_(std::move(wanted)) {}

PinnedColumns::~PinnedColumns() {
    // Every column holds the pool (its allocator shares it): none is left to use a block.
    for (const Block& b : blocks_) pinned_free(backend_, b.data);
}

bool PinnedColumns::wants(std::string_view group, std::string_view column) const {
    return !wanted_ || wanted_(group, column);
}

std::byte* PinnedColumns::allocate(std::size_t bytes) {
    const std::lock_guard lock(mutex_);
    Block* best = nullptr;   // the smallest free block that holds `bytes`
    Block* spare = nullptr;  // else a free block too small, to grow
    for (Block& b : blocks_) {
        if (b.taken) continue;
        if (b.capacity >= bytes) {
            if (!best || b.capacity < best->capacity) best = &b;
        } else if (!spare || b.capacity > spare->capacity) {
            spare = &b;
        }
    }
    if (!best) {
        const std::size_t capacity = bytes + bytes / 8;
        std::byte* data = static_cast<std::byte*>(pinned_allocate(backend_, capacity));
        ++allocations_;
        if (spare) {
            pinned_free(backend_, spare->data);
            *spare = {data, capacity, false};
            best = spare;
        } else {
            blocks_.push_back({data, capacity, false});
            best = &blocks_.back();
        }
    }
    best->taken = true;
    return best->data;
}

void PinnedColumns::deallocate(std::byte* pointer, std::size_t) noexcept {
    const std::lock_guard lock(mutex_);
    for (Block& b : blocks_)
        if (b.data == pointer) b.taken = false;
}

std::uint64_t PinnedColumns::allocations() const {
    const std::lock_guard lock(mutex_);
    return allocations_;
}

std::size_t PinnedColumns::bytes() const {
    const std::lock_guard lock(mutex_);
    std::size_t total = 0;
    for (const Block& b : blocks_) total += b.capacity;
    return total;
}

std::size_t PinnedColumns::blocks() const {
    const std::lock_guard lock(mutex_);
    return blocks_.size();
}

}  // namespace partikel::run
