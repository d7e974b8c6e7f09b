// The implementations behind dist::Communicator (communicator.hpp): the one-rank communicator
// here and in communicator.cpp, MPI in mpi.cpp (compiled with MPI only), NCCL in nccl.cpp
// (compiled with NCCL only). Internal to lib/dist; no MPI or NCCL types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/backend.hpp"
#include "dist/communicator.hpp"

namespace partikel::dist {

namespace detail {

// The shared windows behind NodeSharedSegments (node_shared_segments.hpp): the transport's half
// (memory and the handshakes); the layout, checks and copies are node_shared_segments.cpp's.
struct SharedWindows {
    virtual ~SharedWindows() = default;
    // Where `rank`'s segment of `window` starts (this rank's: to write; others': the root reads).
    virtual std::byte* segment(int window, int rank) = 0;
    // Waits until every rank released `window`'s previous gather (at once before its first).
    virtual void acquire(int window) = 0;
    // After this rank wrote its segment of `window`: its part sizes to the root. The root waits
    // for every rank's and returns them, rank after rank; the others return nothing at once.
    virtual std::vector<std::uint64_t> filled(int window, std::span<const std::uint64_t> sizes) = 0;
    // This rank is done with `window` (the root: has read it); never waits.
    virtual void release(int window) = 0;
};

}  // namespace detail

struct Communicator::Impl {
    virtual ~Impl() = default;
    int rank = 0, size = 1, local_rank = 0, local_size = 1;
    Communicator::CallCounts calls;  // one thread at a time per communicator (communicator.hpp)

    virtual std::string_view transport() const = 0;
    virtual std::shared_ptr<Impl> duplicate() = 0;

    virtual void allreduce(void* values, std::size_t count, DataType type, ReduceOp op) = 0;
    virtual void allgather(const void* mine, std::size_t bytes, void* all) = 0;
    virtual std::vector<ReceivedBytes> gatherv(std::span<const std::byte> mine, int root, bool everyone) = 0;
    virtual void bcast(std::span<std::byte> bytes, int root) = 0;
    virtual void barrier() = 0;
    // `windows` shared windows in which this rank owns `bytes` bytes, over every rank when they
    // all run on one host (collective); nullptr on every rank when they do not.
    virtual std::unique_ptr<detail::SharedWindows> allocate_shared(std::size_t bytes, int windows, int root) = 0;
    virtual void exchange_host(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives) = 0;

    virtual void bind_device(const Backend& backend) = 0;
    virtual void reserve_staging(std::size_t send_bytes, std::size_t receive_bytes) = 0;
    // `after`: the queue whose work the sends wait for (nullptr: the bound backend).
    virtual void start_exchange(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives,
                                const Backend* after) = 0;
    // `before`: the queue whose later work waits for the receives (nullptr: the bound backend).
    virtual void finish_exchange(const Backend* before) = 0;
    virtual void allreduce_device(void* values, std::size_t count, DataType type, ReduceOp op) = 0;

    virtual void send_failure(const Failure& failure) noexcept = 0;
    virtual double wait_seconds() const = 0;
    // Throws a failure that has arrived from another rank (or that this process knows).
    virtual void poll_failures() = 0;
};

namespace detail {

std::size_t data_type_size(DataType type);
// op over `count` values: into[i] = op(into[i], from[i]).
void reduce_into(void* into, const void* from, std::size_t count, DataType type, ReduceOp op);
// The exchanges with this rank itself: copies (backend memory when `backend`, else host).
void copy_to_self(int rank, std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives,
                  const Backend* backend);

// The failure this process knows ends the run, sent by this rank or received from another: set
// once, read from any thread; every wait throws it from then on.
std::optional<Failure> known_failure();
// Records `failure` unless one is known already; true when it was recorded.
bool set_known_failure(const Failure& failure);
// The last failure every rank agreed on (raise()): Communicator::fail() does not send it again.
std::optional<Failure> agreed_failure();
void set_agreed_failure(const Failure& failure);
// Seconds a failed rank waits for the others to end before MPI_Abort (PARTIKEL_FAULT_TIMEOUT_S).
double fault_timeout_seconds();

// One rank (communicator.cpp).
std::shared_ptr<Communicator::Impl> make_single();
// MPI's world, or nullptr when this build has no MPI (mpi.cpp / communicator.cpp).
std::shared_ptr<Communicator::Impl> make_mpi_world();

// NCCL (nccl.cpp; stubs that throw when this build has no NCCL).
struct NcclChannel;
std::vector<std::byte> nccl_unique_id();
// Collective over the `size` ranks that pass the same id.
std::shared_ptr<NcclChannel> nccl_open(std::span<const std::byte> id, int rank, int size, const Backend& backend);
// Destroys the NCCL communicator (before MPI_Finalize; aborts it after a failure).
void nccl_close(NcclChannel& channel) noexcept;
// The sends wait for the work queued on `after` (the channel's backend when nullptr).
void nccl_start_exchange(NcclChannel& channel, std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives,
                         const Backend* after);
// The work queued on `before` (the channel's backend when nullptr) after this waits for the receives.
void nccl_finish_exchange(NcclChannel& channel, const Backend* before);
void nccl_allreduce(NcclChannel& channel, void* values, std::size_t count, DataType type, ReduceOp op);

}  // namespace detail
}  // namespace partikel::dist
