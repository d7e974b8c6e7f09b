// The ranks of one run: the processes `mpirun -np N prog ...` starts, one per GPU or per group of
// CPU cores, each with its own backend. Everything a program says to another rank goes through
// a Communicator; MPI and NCCL appear only in lib/dist's sources, never in its headers.
//
//   dist::Communicator comm = dist::Communicator::world();  // one rank unless started by mpirun
//   Backend backend = Backend::cuda(comm.local_rank() % gpus);
//   comm.bind_device(backend);                              // device collectives on its stream
//   double dt = comm.allreduce(my_dt, dist::ReduceOp::min); // host values: every rank gets it
//   if (comm.any(interrupt_signal() != 0)) stop();          // decisions every rank takes alike
//   comm.exchange(sends, receives);                         // device bytes with neighbour ranks
//
// Implementations (transport()):
//   "single"      one rank: no MPI at all (built without MPI, started without mpirun, or by
//                 `mpirun -np 1`: the launcher's environment says so before MPI is touched);
//                 collectives return their input, exchanges with rank 0 itself are copies.
//   "mpi"         MPI, host memory: the CPU backend's device memory is host memory.
//   "mpi+staged"  MPI with CUDA device buffers staged through pinned host memory (OpenMPI on the
//                 GPU machines is not CUDA-aware); staging grows to the largest exchange and
//                 stays: reserve_staging() before a step loop keeps allocation out of it.
//   "nccl"        NCCL group send/receive and all-reduce on the GPU (when NCCL was found at
//                 configure time; PARTIKEL_NCCL=0 in the environment picks "mpi+staged").
//                 NCCL_NVLS_ENABLE=0 is set when unset: NVLink multicast stays off.
// Host collectives always use MPI (or nothing, with one rank).
//
// Rules. Every collective (allreduce, allgather, gatherv, bcast, barrier, any, agree, exchange
// with a given peer) is called by every rank concerned in the same order. Calls are blocking
// unless named start_/finish_. A Communicator is a cheap handle: copies share one state. One
// thread at a time per communicator; another thread (a frame writer) uses duplicate().
//
// Failures. A rank that throws outside a collective decision must not leave the others waiting:
// every blocking wait here also watches a failure channel. fail() (tools/common calls it for any
// error that ends a program) sends this rank's one-line error to every other rank; their next
// wait throws it, typed as the failing rank threw it (UsageError, FormatError, IoError,
// DeviceError, OutOfMemoryError, NumericalError) with the message "rank R: ...", so every rank
// ends with the same message and exit status. Failures every rank can see at a known point (a
// start frame that does not read, a capacity exceeded, a NaN) are agreed instead: agree() or
// collectively(). Waits inside the GPU (an NCCL transfer whose peer died) cannot watch the
// channel: a failed rank whose peers do not finish within PARTIKEL_FAULT_TIMEOUT_S seconds
// (default 60) ends the job with MPI_Abort, the last resort.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/backend.hpp"

namespace partikel::dist {

// Bytes received from other ranks: a vector whose new elements are left uninitialised, since the
// transport overwrites them at once (a frame's gather receives gigabytes; zero-filling them first
// is a pass over all of them for nothing).
template <class T> struct UninitializedAllocator : std::allocator<T> {
    template <class U> struct rebind {
        using other = UninitializedAllocator<U>;
    };
    UninitializedAllocator() = default;
    template <class U> UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
    template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
    template <class U, class... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using ReceivedBytes = std::vector<std::byte, UninitializedAllocator<std::byte>>;

enum class ReduceOp : std::uint8_t { sum, min, max };

// Element types of reductions.
enum class DataType : std::uint8_t { u8, i32, u32, i64, u64, f32, f64 };
template <class T> constexpr DataType data_type_of() {
    if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, bool>) return DataType::u8;
    else if constexpr (std::is_same_v<T, std::int32_t>) return DataType::i32;
    else if constexpr (std::is_same_v<T, std::uint32_t>) return DataType::u32;
    else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, long long>) return DataType::i64;
    else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long>) return DataType::u64;
    else if constexpr (std::is_same_v<T, float>) return DataType::f32;
    else if constexpr (std::is_same_v<T, double>) return DataType::f64;
    else static_assert(sizeof(T) == 0, "dist: reductions take u8, i32, u32, i64, u64, f32 or f64");
}

// What failed on which rank: the error type travels with the message so that every rank throws
// the same type (and exits with the same status).
enum class FailureKind : std::uint8_t { usage, format, io, device, out_of_memory, numerical, broken_pipe, other };
struct Failure {
    int rank = 0;  // -1: a failure of the whole run that no rank owns (a time step too small)
    FailureKind kind = FailureKind::other;
    std::string message;  // the failing rank's one-line message, without "rank R: "
    // "rank R: message" when the run has several ranks (and rank >= 0), else the message.
    std::string describe(int ranks) const;
};
// The Failure of an exception (std::current_exception() inside a catch block) on `rank`.
Failure failure_of(std::exception_ptr error, int rank);
// Throws the typed error of `failure` (UsageError for usage, ...), with describe(ranks).
[[noreturn]] void raise(const Failure& failure, int ranks);

// One range of bytes to send to, or receive from, rank `peer` (a rank may name itself: a copy).
struct SendBytes {
    int peer;
    const void* data;
    std::size_t bytes;
};
struct ReceiveBytes {
    int peer;
    void* data;
    std::size_t bytes;
};

class Communicator {
public:
    // This process's ranks: MPI's world when the launcher started more than one process (MPI is
    // initialised on the first call, with MPI_THREAD_MULTIPLE, and finalised at exit), else
    // one rank. The same communicator on every call.
    static Communicator world();
    // A communicator of one rank (tests; programs that never go parallel).
    static Communicator single();
    // Whether world() has been called in this process (tools/common asks before fail()).
    static bool world_started();

    int rank() const;
    int size() const;
    bool root() const { return rank() == 0; }  // rank 0: reads inputs, writes outputs, logs
    int local_rank() const;  // rank among the processes of this host (picks the GPU)
    int local_size() const;
    // "single", "mpi", "mpi+staged" or "nccl" (the device path after bind_device; see above).
    std::string_view transport() const;
    // "4 ranks (nccl)", "1 rank".
    std::string describe() const;
    // A communicator over the same ranks whose messages never meet this one's: for a second
    // thread (the frame writer's gather). Collective: every rank calls it.
    Communicator duplicate() const;

    // ---- Host collectives (blocking; values in host memory) ----
    template <class T> void allreduce(std::span<T> values, ReduceOp op) const {
        allreduce_bytes(values.data(), values.size(), data_type_of<T>(), op);
    }
    template <class T> T allreduce(T value, ReduceOp op) const {
        allreduce(std::span<T>(&value, 1), op);
        return value;
    }
    // T::combine(a, b) over every rank's value, folded in rank order: the same bits on every
    // rank (core/reduce_ops.hpp's CombineOp structs: sums, minima and maxima in one call).
    template <class T> T allreduce_combine(const T& value) const {
        static_assert(std::is_trivially_copyable_v<T>);
        const std::vector<T> all = allgather(value);
        T out = all[0];
        for (std::size_t r = 1; r < all.size(); ++r) out = T::combine(out, all[r]);
        return out;
    }
    // Every rank's value, in rank order.
    template <class T> std::vector<T> allgather(const T& value) const {
        static_assert(std::is_trivially_copyable_v<T>);
        std::vector<T> out(static_cast<std::size_t>(size()));
        allgather_bytes(&value, sizeof(T), out.data());
        return out;
    }
    // Every rank's values (the same number on every rank), rank after rank.
    template <class T> std::vector<T> allgather(std::span<const T> mine) const {
        static_assert(std::is_trivially_copyable_v<T>);
        std::vector<T> out(mine.size() * static_cast<std::size_t>(size()));
        allgather_bytes(mine.data(), mine.size_bytes(), out.data());
        return out;
    }
    // Every rank's bytes (any length), in rank order.
    std::vector<ReceivedBytes> allgatherv(std::span<const std::byte> mine) const;
    // Every rank's values (any count), one after the other in rank order.
    template <class T> std::vector<T> allgather_concat(std::span<const T> mine) const {
        static_assert(std::is_trivially_copyable_v<T>);
        std::vector<T> out;
        for (const ReceivedBytes& part : allgatherv(std::as_bytes(mine))) {
            const std::size_t before = out.size();
            out.resize(before + part.size() / sizeof(T));
            if (!part.empty()) std::memcpy(out.data() + before, part.data(), part.size());
        }
        return out;
    }
    // Every rank's bytes in rank order on `root`; an empty vector elsewhere.
    std::vector<ReceivedBytes> gatherv(std::span<const std::byte> mine, int root = 0) const;
    // `bytes` (the same length on every rank) from `root` to every rank.
    void bcast(std::span<std::byte> bytes, int root = 0) const;
    template <class T> void bcast_value(T& value, int root = 0) const {
        static_assert(std::is_trivially_copyable_v<T>);
        bcast(std::as_writable_bytes(std::span<T>(&value, 1)), root);
    }
    // Bytes of any length from `root` (the others' argument is ignored).
    std::vector<std::byte> bcast_bytes(std::vector<std::byte> bytes, int root = 0) const;
    void barrier() const;
    // Host memory to and from neighbour ranks (each receive's size known beforehand).
    void exchange_host(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives) const;

    // ---- Decisions every rank takes alike ----
    bool any(bool mine) const;  // true everywhere when true on some rank
    bool all(bool mine) const;
    // Every rank passes its failure or none; every rank returns the failure of the lowest
    // failing rank, or none.
    std::optional<Failure> agree(std::optional<Failure> mine) const;
    // Runs `body` on every rank, then agrees on the outcome: an exception on any rank is thrown
    // on every rank (raise()), so that an error at a known point (reading the start frame,
    // opening the output, a capacity check) ends every rank alike. Returns body's result.
    template <class F> auto collectively(F&& body) const -> std::invoke_result_t<F> {
        using R = std::invoke_result_t<F>;
        std::optional<Failure> failure;
        if constexpr (std::is_void_v<R>) {
            try {
                body();
            } catch (...) {
                failure = failure_of(std::current_exception(), rank());
            }
            settle(failure);
        } else {
            std::optional<R> result;
            try {
                result.emplace(body());
            } catch (...) {
                failure = failure_of(std::current_exception(), rank());
            }
            settle(failure);
            return std::move(*result);
        }
    }
    // Throws raise(f) on every rank when some rank passes a failure (agree()).
    void settle(std::optional<Failure> mine) const;

    // This rank's error ends the run (call inside a catch block for the current exception): the
    // failure every rank reports. Unless the other ranks already know a failure (an agreed one,
    // or one another rank sent), this one is sent to every other rank, whose next wait throws
    // it. Never throws.
    Failure fail(std::exception_ptr error) const noexcept;

    // ---- Device collectives (backend memory, on the bound backend's stream) ----
    // The backend whose memory and stream the device calls use; call once, outside step loops
    // (creates NCCL's communicator, a second stream and events). Collective.
    void bind_device(const Backend& backend);
    // Pinned staging for "mpi+staged": at least these many bytes of sends and of receives.
    void reserve_staging(std::size_t send_bytes, std::size_t receive_bytes);
    // Sends and receives of backend memory, ordered after the work queued on the backend so far
    // and before the work queued after it (NCCL: on the GPU, the host does not wait;
    // mpi+staged: the host waits for the transfers). A zero-byte entry is skipped.
    void exchange(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives);
    // The same in two halves, so that work independent of the transfer is queued between them
    // (the interior of a slab while its halo travels): start_ takes the sends' data as it is
    // once the work queued before it has run; the receives are complete for the work queued
    // after finish_. At most one exchange in flight per communicator; the spans must stay
    // valid until finish_. `after`: a backend on the bound one's device whose queued work the
    // sends' data waits for instead (a second stream that packed them, while the bound one
    // computes). `before` in finish_: a backend on that device whose work queued after the call
    // waits for the receives instead of the bound one's (the second stream, that unpacks them).
    void start_exchange(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives,
                        const Backend* after = nullptr);
    void finish_exchange(const Backend* before = nullptr);
    // In-place all-reduce of `count` values in backend memory.
    template <class T> void allreduce_device(T* values, std::size_t count, ReduceOp op) {
        allreduce_device_bytes(values, count, data_type_of<T>(), op);
    }

    // Throws the failure another rank has sent, if one has arrived; never waits. For a rank that
    // works on its own for long (splat-render's frames, one rank's each) and should not go on
    // after another rank failed.
    void throw_if_failed() const;

    // Seconds this rank has spent blocked waiting for other ranks (host waits in collectives and
    // exchanges) since it started: what a slow peer costs the others.
    double wait_seconds() const;

    // The calls that talk to other ranks since the communicator was made (copies share them):
    // collectives (allreduce, allgather, allgatherv, gatherv, bcast, barrier, any, all, agree's,
    // device all-reduces) and exchanges (device or host) with neighbour ranks. Counted on one
    // rank too, where they are copies or nothing. For benchmarks (bench_dist: per step).
    struct CallCounts {
        std::uint64_t collectives = 0, exchanges = 0;
    };
    CallCounts call_counts() const;

    struct Impl;
    friend class NodeSharedSegments;  // allocates its windows through impl_
    explicit Communicator(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

private:
    void allreduce_bytes(void* values, std::size_t count, DataType type, ReduceOp op) const;
    void allgather_bytes(const void* mine, std::size_t bytes, void* all) const;
    void allreduce_device_bytes(void* values, std::size_t count, DataType type, ReduceOp op);

    std::shared_ptr<Impl> impl_;
};

// Whether this build has MPI and NCCL (partikel --version, the log of a run).
bool mpi_compiled();
bool nccl_compiled();

}  // namespace partikel::dist
