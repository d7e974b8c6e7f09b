// dist::Communicator over MPI (compiled only when CMake found MPI). Every wait is a test loop
// that also watches the failure channel (communicator.hpp, "Failures"); collectives are the
// nonblocking MPI-3 ones for that reason. Messages are cut into pieces of at most 1 GiB (MPI
// counts are ints); both sides cut a message the same way from its size.
// The C API only: no C++ bindings (deprecated, and noisy under -Wextra).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "base/error.hpp"
#include "core/buffer.hpp"
#include "core/memory.hpp"
#include "core/timer.hpp"
#include "dist/communicator_impl.hpp"

namespace partikel::dist::detail {

namespace {

constexpr int kDataTag = 17;
constexpr int kFailureTag = 99;
constexpr std::size_t kFailureBytes = 4096;
constexpr std::size_t kPieceBytes = std::size_t{1} << 30;

void check(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    throw DeviceError(std::string("mpi: ") + what + ": " + std::string(text, std::size_t(length)));
}

MPI_Datatype mpi_type(DataType type) {
    switch (type) {
        case DataType::u8: return MPI_UINT8_T;
        case DataType::i32: return MPI_INT32_T;
        case DataType::u32: return MPI_UINT32_T;
        case DataType::i64: return MPI_INT64_T;
        case DataType::u64: return MPI_UINT64_T;
        case DataType::f32: return MPI_FLOAT;
        case DataType::f64: return MPI_DOUBLE;
    }
    return MPI_BYTE;
}

MPI_Op mpi_op(ReduceOp op) { return op == ReduceOp::sum ? MPI_SUM : op == ReduceOp::min ? MPI_MIN : MPI_MAX; }

// ---- The failure channel: one per process, on a communicator of its own ----

struct FailureChannel {
    std::mutex mutex;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Request receive = MPI_REQUEST_NULL;
    std::array<char, kFailureBytes> buffer{};
    std::vector<MPI_Request> sends;
    std::vector<std::vector<char>> payloads;
    int world_rank = 0, world_size = 1;
    bool finalized = false;
};
FailureChannel channel;

// NCCL communicators still open, closed before MPI_Finalize.
std::mutex nccl_mutex;
std::vector<std::weak_ptr<NcclChannel>> nccl_channels;

std::vector<char> encode(const Failure& f) {
    std::vector<char> out(5 + std::min(f.message.size(), kFailureBytes - 5));
    const std::int32_t rank = f.rank;
    std::memcpy(out.data(), &rank, 4);
    out[4] = char(f.kind);
    std::memcpy(out.data() + 5, f.message.data(), out.size() - 5);
    return out;
}

Failure decode(const char* bytes, int count) {
    Failure f;
    if (count < 5) return {0, FailureKind::other, "a rank failed"};
    std::int32_t rank = 0;
    std::memcpy(&rank, bytes, 4);
    f.rank = rank;
    f.kind = FailureKind(static_cast<unsigned char>(bytes[4]));
    f.message.assign(bytes + 5, std::size_t(count - 5));
    return f;
}

// Throws the failure that ends the run, when this process knows one or one has arrived.
void check_failures() {
    if (const auto f = known_failure()) raise(*f, channel.world_size);
    std::unique_lock lock(channel.mutex, std::try_to_lock);
    if (!lock.owns_lock() || channel.receive == MPI_REQUEST_NULL) return;  // another thread looks
    int arrived = 0;
    MPI_Status status;
    MPI_Test(&channel.receive, &arrived, &status);
    if (!arrived) return;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    const Failure f = decode(channel.buffer.data(), count);
    lock.unlock();
    set_known_failure(f);
    raise(*known_failure(), channel.world_size);
}

// Gives up the requests of a wait that a failure ended: sends and receives are cancelled; a
// collective's request may be neither cancelled nor freed (MPI-3), so it is left behind.
void cancel(std::vector<MPI_Request>& requests, bool point_to_point) {
    for (MPI_Request& r : requests) {
        if (r == MPI_REQUEST_NULL || !point_to_point) continue;
        MPI_Cancel(&r);
        MPI_Request_free(&r);
    }
    requests.clear();
}

// Test until every request completes; the time goes to `waited`. A wait that has seen nothing
// complete for kFailureGrace seconds looks at the failure channel and throws a failure that
// ends the run: a wait that is still being served (a frame gathered from ranks that are fine
// while another rank failed) finishes first. `point_to_point`: the requests are sends and
// receives (not a collective's).
constexpr double kFailureGrace = 1.0;

void wait_all(std::vector<MPI_Request>& requests, double& waited, bool point_to_point = false) {
    if (requests.empty()) return;
    Stopwatch clock, since_progress;
    std::vector<int> done(requests.size());
    for (std::uint64_t spin = 0;; ++spin) {
        int completed = 0;
        const int rc = MPI_Testsome(int(requests.size()), requests.data(), &completed, done.data(), MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) {
            cancel(requests, point_to_point);
            check(rc, "wait");
        }
        if (completed == MPI_UNDEFINED) break;  // every request is done
        if (completed > 0) {
            since_progress.reset();
            spin = 0;
        }
        if (since_progress.seconds() > kFailureGrace) {
            try {
                check_failures();
            } catch (...) {
                cancel(requests, point_to_point);
                waited += clock.seconds();
                throw;
            }
        }
        // Spin first (a balanced collective completes within microseconds), then yield the core:
        // CPU ranks share cores with each other's OpenMP threads.
        if (spin > 256) std::this_thread::sleep_for(std::chrono::microseconds(spin > 4096 ? 200 : 20));
    }
    requests.clear();
    waited += clock.seconds();
}

// Posts the pieces of one message.
void post_send(std::vector<MPI_Request>& requests, const void* data, std::size_t bytes, int peer, MPI_Comm comm) {
    const auto* p = static_cast<const char*>(data);
    for (std::size_t off = 0; off < bytes; off += kPieceBytes) {
        const int n = int(std::min(kPieceBytes, bytes - off));
        requests.emplace_back();
        check(MPI_Isend(p + off, n, MPI_BYTE, peer, kDataTag, comm, &requests.back()), "send");
    }
}

void post_receive(std::vector<MPI_Request>& requests, void* data, std::size_t bytes, int peer, MPI_Comm comm) {
    auto* p = static_cast<char*>(data);
    for (std::size_t off = 0; off < bytes; off += kPieceBytes) {
        const int n = int(std::min(kPieceBytes, bytes - off));
        requests.emplace_back();
        check(MPI_Irecv(p + off, n, MPI_BYTE, peer, kDataTag, comm, &requests.back()), "receive");
    }
}

void finalize_world() {
    {
        std::lock_guard lock(nccl_mutex);
        for (auto& weak : nccl_channels)
            if (auto c = weak.lock()) nccl_close(*c);
        nccl_channels.clear();
    }
    {
        std::lock_guard lock(channel.mutex);
        if (channel.receive != MPI_REQUEST_NULL) {
            MPI_Cancel(&channel.receive);
            MPI_Request_free(&channel.receive);
        }
        for (MPI_Request& r : channel.sends)
            if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
        channel.finalized = true;
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

// The process count the launcher announces: 1 without one, -1 when it does not say.
int launcher_size() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"}) {
        if (const char* v = std::getenv(name); v && *v) return std::atoi(v);
    }
    return std::getenv("PMIX_RANK") || std::getenv("PMI_RANK") ? -1 : 1;
}

// The windows of NodeSharedSegments: one MPI-3 shared window per gather in flight over the
// ranks of one host, each rank's segment its own (alloc_shared_noncontig: page-aligned, on the
// owner's NUMA node). Every window stays in a passive epoch (lock_all) for its whole life, so that
// MPI_Win_sync orders the plain stores and loads around the messages that synchronise them
// (the unified memory model of MPI-3, section 11.7): a writer syncs before it sends its sizes, the
// root after it has them; the ranks sync after the release barrier before they write again.
class MpiWindows final : public SharedWindows {
public:
    // nullptr on every rank when `comm`'s ranks are not all on one host or MPI could not give
    // the memory on some rank (all agree).
    static std::unique_ptr<SharedWindows> open(MPI_Comm comm, std::size_t bytes, int count, int root, double& waited) {
        int rank = 0, size = 1;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        MPI_Comm node;
        check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node), "split by host");
        int node_size = 0;
        MPI_Comm_size(node, &node_size);
        if (node_size != size) {  // the same answer on every rank: some rank is elsewhere
            MPI_Comm_free(&node);
            return nullptr;
        }
        MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
        auto out = std::unique_ptr<MpiWindows>(new MpiWindows(node, rank, size, root));
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
        std::uint8_t ok = 1;
        for (int w = 0; w < count; ++w) {
            Window window;
            void* base = nullptr;
            if (MPI_Win_allocate_shared(MPI_Aint(bytes), 1, info, node, &base, &window.win) != MPI_SUCCESS) {
                ok = 0;
                window.win = MPI_WIN_NULL;
            }
            out->windows_.push_back(std::move(window));
        }
        MPI_Info_free(&info);
        std::vector<MPI_Request> r(1);
        check(MPI_Iallreduce(MPI_IN_PLACE, &ok, 1, MPI_UINT8_T, MPI_MIN, node, &r[0]), "agree on shared memory");
        wait_all(r, waited);
        // A window that some rank could not allocate is left behind (freeing it is collective
        // over ranks that may not have it); the run gathers by messages instead.
        if (!ok) {
            out->windows_.clear();
            return nullptr;
        }
        for (Window& window : out->windows_) {
            check(MPI_Win_lock_all(MPI_MODE_NOCHECK, window.win), "lock a shared window");
            window.bases.resize(std::size_t(size));
            for (int peer = 0; peer < size; ++peer) {
                MPI_Aint peer_bytes = 0;
                int unit = 0;
                void* base = nullptr;
                check(MPI_Win_shared_query(window.win, peer, &peer_bytes, &unit, &base), "query a shared window");
                window.bases[std::size_t(peer)] = static_cast<std::byte*>(base);
            }
        }
        return out;
    }

    ~MpiWindows() override {
        // Freeing is collective: not while a failure ends the run (the others may never come).
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (finalized || std::uncaught_exceptions() > 0 || known_failure()) return;
        try {
            for (Window& window : windows_) wait_all(window.pending, waited_);
        } catch (...) {
            return;
        }
        for (Window& window : windows_) {
            MPI_Win_unlock_all(window.win);
            MPI_Win_free(&window.win);
        }
        MPI_Comm_free(&comm_);
    }

    std::byte* segment(int window, int rank) override { return windows_[std::size_t(window)].bases[std::size_t(rank)]; }

    void acquire(int window) override {
        Window& w = windows_[std::size_t(window)];
        wait_all(w.pending, waited_);
        MPI_Win_sync(w.win);
    }

    std::vector<std::uint64_t> filled(int window, std::span<const std::uint64_t> sizes) override {
        Window& w = windows_[std::size_t(window)];
        MPI_Win_sync(w.win);
        w.sent.assign(sizes.begin(), sizes.end());
        const int n = int(sizes.size());
        std::vector<std::uint64_t> all(rank_ == root_ ? sizes.size() * std::size_t(size_) : 0);
        w.pending.emplace_back();
        check(MPI_Igather(w.sent.data(), n, MPI_UINT64_T, all.data(), n, MPI_UINT64_T, root_, comm_, &w.pending.back()),
              "gather the sizes of shared segments");
        if (rank_ != root_) return all;  // waited for before the window is written again
        wait_all(w.pending, waited_);
        MPI_Win_sync(w.win);
        return all;
    }

    void release(int window) override {
        Window& w = windows_[std::size_t(window)];
        MPI_Win_sync(w.win);
        w.pending.emplace_back();
        check(MPI_Ibarrier(comm_, &w.pending.back()), "release a shared window");
    }

private:
    struct Window {
        MPI_Win win = MPI_WIN_NULL;
        std::vector<std::byte*> bases;      // every rank's segment
        std::vector<MPI_Request> pending;   // this rank's size gather and release of the last use
        std::vector<std::uint64_t> sent;    // the sizes a pending gather sends
    };
    MpiWindows(MPI_Comm comm, int rank, int size, int root) : comm_(comm), rank_(rank), size_(size), root_(root) {}

    MPI_Comm comm_;
    int rank_, size_, root_;
    std::vector<Window> windows_;
    double waited_ = 0.0;
};

class MpiImpl final : public Communicator::Impl {
public:
    explicit MpiImpl(MPI_Comm comm) : comm_(comm) {
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
        MPI_Comm_rank(comm_, &rank);
        MPI_Comm_size(comm_, &size);
        MPI_Comm local;
        check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local), "split by host");
        MPI_Comm_rank(local, &local_rank);
        MPI_Comm_size(local, &local_size);
        MPI_Comm_free(&local);
    }

    std::string_view transport() const override {
        if (nccl_) return "nccl";
        if (backend_ && backend_->is_cuda()) return "mpi+staged";
        return "mpi";
    }

    std::shared_ptr<Impl> duplicate() override {
        MPI_Comm dup;
        std::vector<MPI_Request> r(1);
        check(MPI_Comm_idup(comm_, &dup, &r[0]), "duplicate");
        wait_all(r, waited_);
        return std::make_shared<MpiImpl>(dup);
    }

    void allreduce(void* values, std::size_t count, DataType type, ReduceOp op) override {
        std::vector<MPI_Request> r(1);
        check(MPI_Iallreduce(MPI_IN_PLACE, values, int(count), mpi_type(type), mpi_op(op), comm_, &r[0]), "all-reduce");
        wait_all(r, waited_);
    }

    void allgather(const void* mine, std::size_t bytes, void* all) override {
        if (bytes > kPieceBytes) throw UsageError("dist: all-gather of more than 1 GiB per rank");
        std::vector<MPI_Request> r(1);
        check(MPI_Iallgather(mine, int(bytes), MPI_BYTE, all, int(bytes), MPI_BYTE, comm_, &r[0]), "all-gather");
        wait_all(r, waited_);
    }

    std::vector<ReceivedBytes> gatherv(std::span<const std::byte> mine, int root, bool everyone) override {
        check_rank(root);
        std::vector<std::uint64_t> sizes(static_cast<std::size_t>(size));
        const std::uint64_t my_size = mine.size();
        allgather(&my_size, sizeof my_size, sizes.data());
        std::vector<ReceivedBytes> out;
        std::vector<MPI_Request> requests;
        const bool receiving = everyone || rank == root;
        if (receiving) {
            out.resize(std::size_t(size));
            for (int r = 0; r < size; ++r) {
                out[std::size_t(r)].resize(sizes[std::size_t(r)]);
                if (r == rank)
                    std::copy(mine.begin(), mine.end(), out[std::size_t(r)].begin());
                else
                    post_receive(requests, out[std::size_t(r)].data(), sizes[std::size_t(r)], r, comm_);
            }
        }
        for (int r = 0; r < size; ++r)
            if (r != rank && (everyone || r == root)) post_send(requests, mine.data(), mine.size(), r, comm_);
        wait_all(requests, waited_, true);
        return out;
    }

    void bcast(std::span<std::byte> bytes, int root) override {
        check_rank(root);
        std::vector<MPI_Request> requests;
        for (std::size_t off = 0; off < bytes.size() || off == 0; off += kPieceBytes) {
            const int n = int(std::min(kPieceBytes, bytes.size() - off));
            requests.emplace_back();
            check(MPI_Ibcast(bytes.data() + off, n, MPI_BYTE, root, comm_, &requests.back()), "broadcast");
            if (bytes.empty()) break;
        }
        wait_all(requests, waited_);
    }

    void barrier() override {
        std::vector<MPI_Request> r(1);
        check(MPI_Ibarrier(comm_, &r[0]), "barrier");
        wait_all(r, waited_);
    }

    std::unique_ptr<SharedWindows> allocate_shared(std::size_t bytes, int windows, int root) override {
        check_rank(root);
        return MpiWindows::open(comm_, bytes, windows, root, waited_);
    }

    void exchange_host(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives) override {
        copy_to_self(rank, sends, receives, nullptr);
        std::vector<MPI_Request> requests;
        post(requests, sends, receives);
        wait_all(requests, waited_, true);
    }

    void bind_device(const Backend& backend) override {
        backend_ = backend;
        nccl_.reset();
        const char* off = std::getenv("PARTIKEL_NCCL");
        const bool want_nccl = backend.is_cuda() && nccl_compiled() && !(off && std::string(off) == "0");
        // Every rank must take the same path: agree on it.
        std::uint8_t use = want_nccl ? 1 : 0;
        allreduce(&use, 1, DataType::u8, ReduceOp::min);
        if (!use) return;
        std::vector<std::byte> id(128);
        if (rank == 0) id = nccl_unique_id();
        id.resize(128);
        bcast(id, 0);
        nccl_ = nccl_open(id, rank, size, backend);
        std::lock_guard lock(nccl_mutex);
        nccl_channels.push_back(nccl_);
    }

    void reserve_staging(std::size_t send_bytes, std::size_t receive_bytes) override {
        if (!backend_ || !backend_->is_cuda() || nccl_) return;
        if (send_staging_.size() < send_bytes) send_staging_ = PinnedBuffer<std::byte>(*backend_, send_bytes);
        if (receive_staging_.size() < receive_bytes) receive_staging_ = PinnedBuffer<std::byte>(*backend_, receive_bytes);
    }

    void start_exchange(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives,
                        const Backend* after) override {
        if (in_flight_) throw UsageError("dist: an exchange is already in flight");
        const bool device = backend_.has_value();
        // The queue that holds the sends' data: the copies to this rank itself and the staging
        // copies wait for its work.
        const Backend* queue = after ? after : device ? &*backend_ : nullptr;
        copy_to_self(rank, sends, receives, device ? queue : nullptr);
        in_flight_ = true;
        if (nccl_) {
            others_send_.clear();
            others_receive_.clear();
            for (const auto& s : sends)
                if (s.peer != rank && s.bytes) others_send_.push_back(s);
            for (const auto& r : receives)
                if (r.peer != rank && r.bytes) others_receive_.push_back(r);
            nccl_start_exchange(*nccl_, others_send_, others_receive_, queue);
            return;
        }
        if (!device || !backend_->is_cuda()) {
            post(pending_, sends, receives);
            return;
        }
        // Staged: device -> pinned (the host waits for it and the work before), MPI on the
        // pinned buffers, then pinned -> device in finish_exchange.
        std::size_t send_total = 0, receive_total = 0;
        for (const auto& s : sends)
            if (s.peer != rank) send_total += round_up(s.bytes);
        for (const auto& r : receives)
            if (r.peer != rank) receive_total += round_up(r.bytes);
        reserve_staging(send_total, receive_total);
        staged_sends_.clear();
        staged_receives_.clear();
        std::size_t off = 0;
        for (const auto& s : sends) {
            if (s.peer == rank || s.bytes == 0) continue;
            copy_bytes(*queue, send_staging_.data() + off, s.data, s.bytes, CopyDirection::device_to_host, true);
            staged_sends_.push_back({s.peer, send_staging_.data() + off, s.bytes});
            off += round_up(s.bytes);
        }
        off = 0;
        for (const auto& r : receives) {
            if (r.peer == rank || r.bytes == 0) continue;
            staged_receives_.push_back({r.peer, receive_staging_.data() + off, r.bytes});
            destinations_.push_back(r.data);
            off += round_up(r.bytes);
        }
        queue->synchronize();
        post(pending_, staged_sends_, staged_receives_);
    }

    void finish_exchange(const Backend* before) override {
        if (!in_flight_) return;
        in_flight_ = false;
        if (nccl_) {
            nccl_finish_exchange(*nccl_, before);
            return;
        }
        try {
            wait_all(pending_, waited_, true);
        } catch (...) {
            destinations_.clear();
            throw;
        }
        for (std::size_t i = 0; i < destinations_.size(); ++i)
            copy_bytes(before ? *before : *backend_, destinations_[i], staged_receives_[i].data,
                       staged_receives_[i].bytes, CopyDirection::host_to_device, true);
        destinations_.clear();
        // The next exchange's receives reuse the staging: a queue of the caller's is not one the
        // next start waits for.
        if (before) before->synchronize();
    }

    void allreduce_device(void* values, std::size_t count, DataType type, ReduceOp op) override {
        if (!backend_) throw UsageError("dist: a device all-reduce before bind_device");
        if (nccl_) return nccl_allreduce(*nccl_, values, count, type, op);
        if (!backend_->is_cuda()) return allreduce(values, count, type, op);
        const std::size_t bytes = count * data_type_size(type);
        reserve_staging(bytes, 0);
        copy_bytes(*backend_, send_staging_.data(), values, bytes, CopyDirection::device_to_host);
        allreduce(send_staging_.data(), count, type, op);
        copy_bytes(*backend_, values, send_staging_.data(), bytes, CopyDirection::host_to_device);
    }

    void send_failure(const Failure& failure) noexcept override {
        {
            std::lock_guard lock(channel.mutex);
            channel.payloads.push_back(encode(failure));
            const auto& payload = channel.payloads.back();
            for (int r = 0; r < channel.world_size; ++r) {
                if (r == channel.world_rank) continue;
                channel.sends.emplace_back();
                MPI_Isend(payload.data(), int(payload.size()), MPI_BYTE, r, kFailureTag, channel.comm, &channel.sends.back());
            }
        }
        // The last resort: ranks that never reach a wait (stuck in the GPU) end with the job.
        const double timeout = fault_timeout_seconds();
        const int world_rank = channel.world_rank;
        std::thread([timeout, world_rank] {
            std::this_thread::sleep_for(std::chrono::duration<double>(timeout));
            std::lock_guard lock(channel.mutex);
            if (channel.finalized) return;
            std::fprintf(stderr, "rank %d: the other ranks did not end %g s after this rank failed; aborting the job\n",
                         world_rank, timeout);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }).detach();
    }

    double wait_seconds() const override { return waited_; }
    void poll_failures() override { check_failures(); }

private:
    static std::size_t round_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }
    void check_rank(int r) const {
        if (r < 0 || r >= size) throw UsageError("dist: no rank " + std::to_string(r) + " of " + std::to_string(size));
    }
    void post(std::vector<MPI_Request>& requests, std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives) {
        for (const auto& r : receives) {
            if (r.peer == rank || r.bytes == 0) continue;
            check_rank(r.peer);
            post_receive(requests, r.data, r.bytes, r.peer, comm_);
        }
        for (const auto& s : sends) {
            if (s.peer == rank || s.bytes == 0) continue;
            check_rank(s.peer);
            post_send(requests, s.data, s.bytes, s.peer, comm_);
        }
    }

    MPI_Comm comm_;
    double waited_ = 0.0;
    std::optional<Backend> backend_;
    std::shared_ptr<NcclChannel> nccl_;
    PinnedBuffer<std::byte> send_staging_, receive_staging_;
    bool in_flight_ = false;
    std::vector<MPI_Request> pending_;
    std::vector<SendBytes> others_send_, staged_sends_;
    std::vector<ReceiveBytes> others_receive_, staged_receives_;
    std::vector<void*> destinations_;
};

}  // namespace

std::shared_ptr<Communicator::Impl> make_mpi_world() {
    if (launcher_size() == 1) return nullptr;
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
        int provided = 0;
        check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "init");
        std::atexit(finalize_world);
        // Errors come back as codes (then exceptions), never as an abort of the job.
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        // The frame writer's thread gathers while the stepping thread exchanges.
        if (provided < MPI_THREAD_MULTIPLE)
            throw DeviceError("mpi: this MPI library does not support MPI_THREAD_MULTIPLE, which the frame output needs");
    }
    MPI_Comm world, failures;
    check(MPI_Comm_dup(MPI_COMM_WORLD, &world), "duplicate the world");
    check(MPI_Comm_dup(MPI_COMM_WORLD, &failures), "duplicate the world");
    auto impl = std::make_shared<MpiImpl>(world);
    if (impl->size == 1) return nullptr;
    {
        std::lock_guard lock(channel.mutex);
        channel.comm = failures;
        channel.world_rank = impl->rank;
        channel.world_size = impl->size;
        check(MPI_Irecv(channel.buffer.data(), int(channel.buffer.size()), MPI_BYTE, MPI_ANY_SOURCE, kFailureTag,
                        channel.comm, &channel.receive),
              "listen for failures");
    }
    return impl;
}

}  // namespace partikel::dist::detail

namespace partikel::dist {
bool mpi_compiled() { return true; }
}  // namespace partikel::dist
