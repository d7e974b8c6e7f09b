// Scratch memory for sort, scan and reduce, owned by the caller and sized before a loop
// (CUB's two phases behind one object). Algorithms never allocate: a Workspace that is too
// small is a UsageError, so "no allocation in the step loop" holds by construction.
#pragma once

#include <cstddef>
#include <string>

#include "core/buffer.hpp"

namespace partikel {

class Workspace {
public:
    Workspace() = default;
    Workspace(const Backend& backend, std::size_t bytes) : buffer_(backend, bytes) {}

    // Grow to at least `bytes` (allocates only when growing). Call before the loop.
    void reserve(const Backend& backend, std::size_t bytes) {
        if (bytes > buffer_.size()) buffer_ = DeviceBuffer<std::byte>(backend, bytes);
    }
    std::size_t size() const { return buffer_.size(); }
    std::byte* data() { return buffer_.data(); }

    // The scratch pointer for an algorithm needing `bytes`; UsageError when too small.
    void* require(std::size_t bytes, const char* algorithm) {
        if (bytes > buffer_.size())
            throw UsageError(std::string(algorithm) + ": workspace of " + std::to_string(buffer_.size()) +
                             " bytes is too small, needs " + std::to_string(bytes) + " (reserve it before the loop)");
        return buffer_.data();
    }

private:
    DeviceBuffer<std::byte> buffer_;
};

// Round up to a multiple of 256 bytes, the alignment CUB and our CPU code assume for sub-blocks.
constexpr std::size_t align_scratch(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace partikel
