// Page-locked host memory for the columns a reader decodes (formats/frame.hpp, ColumnMemory),
// so that a program uploads them to the GPU straight from where they were decoded: one DMA
// copy at the bus's speed, instead of the driver's staging of pageable memory (docs/RENDER.md,
// "Across GPUs"). On the CPU backend the blocks are plain aligned host memory.
//
// The blocks are allocated once and reused: a column freed (its frame dropped) gives its block
// back to the pool, and the next column takes the smallest free block that holds it. A block
// grows (freed, then allocated again 1/8 larger than asked, so that a slowly growing sequence
// does not allocate at every frame) only when no free block is large enough; a new block is
// added only when every block is taken (frames in flight at once). So a sequence of frames of
// one shape allocates in its first frames and never after (allocations() counts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string_view>
#include <vector>

#include "core/backend.hpp"
#include "formats/frame.hpp"

namespace partikel::run {

class PinnedColumns final : public fmt::ColumnMemory {
public:
    // Which columns (group, column) are wanted; none: every column.
    using Wanted = std::function<bool(std::string_view group, std::string_view column)>;
    explicit PinnedColumns(const Backend& backend, Wanted wanted = {});
    ~PinnedColumns() override;
    PinnedColumns(const PinnedColumns&) = delete;
    PinnedColumns& operator=(const PinnedColumns&) = delete;

    bool wants(std::string_view group, std::string_view column) const override;
    std::byte* allocate(std::size_t bytes) override;
    void deallocate(std::byte* pointer, std::size_t bytes) noexcept override;

    std::uint64_t allocations() const;  // pinned allocations so far (new blocks and grown ones)
    std::size_t bytes() const;          // pinned bytes held
    std::size_t blocks() const;

private:
    struct Block {
        std::byte* data = nullptr;
        std::size_t capacity = 0;
        bool taken = false;
    };
    Backend backend_;
    Wanted wanted_;
    mutable std::mutex mutex_;
    std::vector<Block> blocks_;
    std::uint64_t allocations_ = 0;
};

}  // namespace partikel::run
