#include "dist/node_shared_segments.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "base/error.hpp"
#include "dist/communicator_impl.hpp"

namespace partikel::dist {
namespace {

// Parts start on cache lines: columns keep the alignment a frame builder reads them with.
constexpr std::size_t kPartAlignment = 64;
// Copies are cut into pieces of this size for the OpenMP threads (gigabytes per frame).
constexpr std::size_t kCopyPieceBytes = std::size_t{4} << 20;

std::size_t align_up(std::size_t bytes) { return (bytes + kPartAlignment - 1) / kPartAlignment * kPartAlignment; }

// Where a segment's parts start: its base rounded up to a cache line (MPI gives no alignment;
// the base is at the same offset from a page in every process that maps it, so every rank
// rounds it to the same byte).
std::byte* first_part(std::byte* base) {
    return reinterpret_cast<std::byte*>(align_up(reinterpret_cast<std::uintptr_t>(base)));
}

// memcpy (or, with `from` null, zero-fill: first touch of new memory) with this thread's OpenMP
// threads.
void parallel_copy(std::byte* to, const std::byte* from, std::size_t bytes) {
    const auto pieces = static_cast<std::int64_t>((bytes + kCopyPieceBytes - 1) / kCopyPieceBytes);
#pragma omp parallel for schedule(static)
    for (std::int64_t p = 0; p < pieces; ++p) {
        const std::size_t off = std::size_t(p) * kCopyPieceBytes;
        const std::size_t n = std::min(kCopyPieceBytes, bytes - off);
        if (from)
            std::memcpy(to + off, from + off, n);
        else
            std::memset(to + off, 0, n);
    }
}

}  // namespace

std::optional<NodeSharedSegments> NodeSharedSegments::allocate(const Communicator& comm,
                                                               std::span<const std::size_t> part_capacity_bytes,
                                                               int windows, int root) {
    if (windows < 1) throw UsageError("dist: shared segments need at least one window, not " + std::to_string(windows));
    NodeSharedSegments s;
    s.windows_ = windows;
    s.rank_ = comm.rank();
    s.size_ = comm.size();
    s.root_ = root;
    // Every rank's layout: the root reads each segment as its owner wrote it.
    const auto counts = comm.allgather<std::uint64_t>(part_capacity_bytes.size());
    for (const std::uint64_t c : counts)
        if (c != counts[0]) throw UsageError("dist: shared segments: the ranks pass different numbers of parts");
    const std::vector<std::uint64_t> mine(part_capacity_bytes.begin(), part_capacity_bytes.end());
    const auto all = comm.allgather(std::span<const std::uint64_t>(mine));
    const std::size_t parts = mine.size();
    std::size_t my_bytes = 0;
    for (int r = 0; r < s.size_; ++r) {
        std::vector<std::size_t> offsets(parts), capacity(parts);
        std::size_t end = 0;
        for (std::size_t i = 0; i < parts; ++i) {
            capacity[i] = all[std::size_t(r) * parts + i];
            offsets[i] = align_up(end);
            end = offsets[i] + capacity[i];
        }
        if (r == s.rank_ && r != root) my_bytes = end + kPartAlignment;  // the root's parts stay where they are
        s.offsets_.push_back(std::move(offsets));
        s.capacity_.push_back(std::move(capacity));
    }
    s.windows_impl_ = comm.impl_->allocate_shared(my_bytes, windows, root);
    if (!s.windows_impl_) return std::nullopt;
    s.my_bytes_ = my_bytes;
    // Fault the pages in now rather than in the first gathers.
    for (int w = 0; w < windows; ++w) parallel_copy(s.windows_impl_->segment(w, s.rank_), nullptr, my_bytes);
    return s;
}

NodeSharedSegments::NodeSharedSegments(NodeSharedSegments&&) noexcept = default;
NodeSharedSegments& NodeSharedSegments::operator=(NodeSharedSegments&&) noexcept = default;
NodeSharedSegments::~NodeSharedSegments() = default;

std::size_t NodeSharedSegments::segment_bytes() const { return my_bytes_ * std::size_t(windows_); }

std::vector<std::vector<std::span<const std::byte>>> NodeSharedSegments::gather(
    int window, std::span<const std::span<const std::byte>> parts) {
    if (window < 0 || window >= windows_)
        throw UsageError("dist: shared segments: no window " + std::to_string(window) + " of " + std::to_string(windows_));
    const auto& capacity = capacity_[std::size_t(rank_)];
    if (parts.size() != capacity.size())
        throw UsageError("dist: shared segments: " + std::to_string(parts.size()) + " parts for a layout of " +
                         std::to_string(capacity.size()));
    for (std::size_t i = 0; i < parts.size(); ++i)
        if (parts[i].size() > capacity[i])
            throw UsageError("dist: shared segments: part " + std::to_string(i) + " of rank " + std::to_string(rank_) +
                             " holds " + std::to_string(parts[i].size()) + " bytes, more than the " +
                             std::to_string(capacity[i]) + " its segment has room for");
    windows_impl_->acquire(window);
    std::vector<std::uint64_t> sizes(parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i) {
        sizes[i] = parts[i].size();
        if (!root() && !parts[i].empty())
            parallel_copy(first_part(windows_impl_->segment(window, rank_)) + offsets_[std::size_t(rank_)][i], parts[i].data(),
                          parts[i].size());
    }
    const std::vector<std::uint64_t> all = windows_impl_->filled(window, sizes);
    if (!root()) return {};
    std::vector<std::vector<std::span<const std::byte>>> out(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) {
        auto& spans = out[std::size_t(r)];
        if (r == rank_) {
            spans.assign(parts.begin(), parts.end());
            continue;
        }
        const std::byte* base = first_part(windows_impl_->segment(window, r));
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const std::uint64_t bytes = all[std::size_t(r) * parts.size() + i];
            // Each rank checked its own sizes; a layout that disagrees is a bug, not a frame.
            if (bytes > capacity_[std::size_t(r)][i])
                throw DeviceError("dist: shared segments: rank " + std::to_string(r) + " reports more bytes than its segment holds");
            spans.emplace_back(bytes ? base + offsets_[std::size_t(r)][i] : nullptr, bytes);
        }
    }
    return out;
}

void NodeSharedSegments::release(int window) {
    if (window < 0 || window >= windows_)
        throw UsageError("dist: shared segments: no window " + std::to_string(window) + " of " + std::to_string(windows_));
    windows_impl_->release(window);
}

}  // namespace partikel::dist
