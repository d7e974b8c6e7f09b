// Gathering large host buffers on one rank through shared memory, when every rank runs on the
// same host: the frame output's gather (run/frame_output.hpp).
//
// A message-passing gather copies every byte twice through the MPI library's own segments
// (OpenMPI 4.1's shared-memory transport without CMA or xpmem: 0.5-1 GB/s, 2 s for a frame of
// 64M particles on 4 ranks, docs/PERFORMANCE.md). Here every rank but the root owns a segment of
// memory that every rank of the host maps (MPI-3 shared windows, MPI_Win_allocate_shared): it
// copies its buffers into its segment once (with its OpenMP threads), a small collective tells
// the root the sizes, and the root reads the bytes where they lie.
//
//   auto shared = dist::NodeSharedSegments::allocate(comm, part_capacity_bytes, 2);  // collective
//   if (shared) {                                       // every rank on one host
//       auto all = shared->gather(window, my_parts);    // root: [rank][part]; others: empty
//       ... root reads all ...
//       shared->release(window);                        // every rank, after gather(window)
//   }
//
// Windows. A window holds one gather; with several windows the ranks fill the next one while
// the root still reads an earlier one. gather(w) first waits until every rank (the root last,
// once it has read it) released w's previous gather: the only wait of a rank other than the
// root, and only when the root is `windows` gathers behind. Every rank calls gather(w) and
// release(w) for the same windows in the same order, from one thread at a time.
//
// The root's own parts are never copied: gather() returns the root's spans as it passed them
// (they must stay valid until release), and the root's segments are empty.
//
// Sizes. A segment holds each part at most its capacity (the `part_capacity_bytes` that rank
// passed to allocate); a larger part is a UsageError on that rank before anything is written or
// sent (the others see it as a failure of that rank: communicator.hpp, "Failures").
//
// With one rank (no MPI) there is nothing to share: gather() returns the parts themselves.
// When the ranks span several hosts, allocate() returns nothing and callers gather by messages
// (Communicator::gatherv).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "dist/communicator.hpp"

namespace partikel::dist {

namespace detail {
struct SharedWindows;
}

class NodeSharedSegments {
public:
    // Collective over `comm` (every rank passes the same number of parts and windows; each its
    // own capacities). Nothing when the ranks are not all on one host or the host could not give
    // the memory (every rank returns the same). The segments are allocated and touched here:
    // gather() allocates nothing.
    static std::optional<NodeSharedSegments> allocate(const Communicator& comm,
                                                      std::span<const std::size_t> part_capacity_bytes,
                                                      int windows, int root = 0);
    NodeSharedSegments(NodeSharedSegments&&) noexcept;
    NodeSharedSegments& operator=(NodeSharedSegments&&) noexcept;
    // Frees the windows (collective) unless an exception is in flight or a failure of the run is
    // known: a failing run ends without waiting for ranks that will not come.
    ~NodeSharedSegments();

    int windows() const { return windows_; }
    bool root() const { return rank_ == root_; }
    // Shared memory this rank owns (every window).
    std::size_t segment_bytes() const;

    // Every rank: waits until `window` is free, copies `parts` (as many as the capacities, each
    // within its capacity) into this rank's segment of it and tells the root their sizes. The
    // root waits for every rank and returns every rank's parts, [rank][part], as spans into the
    // window (its own: `parts`), valid until release(window); the others return nothing at once.
    std::vector<std::vector<std::span<const std::byte>>> gather(int window,
                                                                std::span<const std::span<const std::byte>> parts);
    // Every rank, after gather(window), once it is done with it (the root: after reading every
    // rank's parts). Never waits.
    void release(int window);

private:
    NodeSharedSegments() = default;

    std::unique_ptr<detail::SharedWindows> windows_impl_;
    int windows_ = 0, rank_ = 0, size_ = 1, root_ = 0;
    std::size_t my_bytes_ = 0;  // this rank's segment of each window
    std::vector<std::vector<std::size_t>> offsets_;   // [rank][part]: where each part starts in a segment
    std::vector<std::vector<std::size_t>> capacity_;  // [rank][part]
};

}  // namespace partikel::dist
