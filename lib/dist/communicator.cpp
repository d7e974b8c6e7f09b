#include "dist/communicator.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "base/error.hpp"
#include "core/memory.hpp"
#include "dist/communicator_impl.hpp"

namespace partikel::dist {

namespace detail {

std::size_t data_type_size(DataType type) {
    switch (type) {
        case DataType::u8: return 1;
        case DataType::i32:
        case DataType::u32:
        case DataType::f32: return 4;
        case DataType::i64:
        case DataType::u64:
        case DataType::f64: return 8;
    }
    return 1;
}

namespace {
template <class T> void reduce_typed(T* into, const T* from, std::size_t count, ReduceOp op) {
    for (std::size_t i = 0; i < count; ++i) {
        const T a = into[i], b = from[i];
        into[i] = op == ReduceOp::sum ? T(a + b) : op == ReduceOp::min ? (b < a ? b : a) : (a < b ? b : a);
    }
}
}  // namespace

void reduce_into(void* into, const void* from, std::size_t count, DataType type, ReduceOp op) {
    switch (type) {
        case DataType::u8: return reduce_typed(static_cast<std::uint8_t*>(into), static_cast<const std::uint8_t*>(from), count, op);
        case DataType::i32: return reduce_typed(static_cast<std::int32_t*>(into), static_cast<const std::int32_t*>(from), count, op);
        case DataType::u32: return reduce_typed(static_cast<std::uint32_t*>(into), static_cast<const std::uint32_t*>(from), count, op);
        case DataType::i64: return reduce_typed(static_cast<std::int64_t*>(into), static_cast<const std::int64_t*>(from), count, op);
        case DataType::u64: return reduce_typed(static_cast<std::uint64_t*>(into), static_cast<const std::uint64_t*>(from), count, op);
        case DataType::f32: return reduce_typed(static_cast<float*>(into), static_cast<const float*>(from), count, op);
        case DataType::f64: return reduce_typed(static_cast<double*>(into), static_cast<const double*>(from), count, op);
    }
}

void copy_to_self(int rank, std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives,
                  const Backend* backend) {
    // The k-th receive from this rank takes the k-th send to it, as MPI orders one pair's messages.
    auto send = sends.begin();
    for (const ReceiveBytes& r : receives) {
        if (r.peer != rank || r.bytes == 0) continue;
        send = std::find_if(send, sends.end(), [&](const SendBytes& x) { return x.peer == rank && x.bytes > 0; });
        if (send == sends.end() || send->bytes != r.bytes)
            throw UsageError("dist: a receive of " + std::to_string(r.bytes) + " bytes from rank " + std::to_string(rank) +
                             " itself has no send of that size");
        if (backend)
            copy_bytes(*backend, r.data, send->data, r.bytes, CopyDirection::device_to_device, true);
        else
            std::memcpy(r.data, send->data, r.bytes);
        ++send;
    }
}

namespace {
std::mutex failure_mutex;
std::optional<Failure> failure_known, failure_agreed;
}  // namespace

std::optional<Failure> known_failure() {
    std::lock_guard lock(failure_mutex);
    return failure_known;
}

bool set_known_failure(const Failure& failure) {
    std::lock_guard lock(failure_mutex);
    if (failure_known) return false;
    failure_known = failure;
    return true;
}

std::optional<Failure> agreed_failure() {
    std::lock_guard lock(failure_mutex);
    return failure_agreed;
}

void set_agreed_failure(const Failure& failure) {
    std::lock_guard lock(failure_mutex);
    failure_agreed = failure;
}

double fault_timeout_seconds() {
    if (const char* v = std::getenv("PARTIKEL_FAULT_TIMEOUT_S"); v && *v) {
        char* end = nullptr;
        const double s = std::strtod(v, &end);
        if (end && *end == '\0' && s > 0 && s < 1e6) return s;
    }
    return 60.0;
}

// ---- One rank ----

namespace {

// One rank is the root, whose parts are never copied: no memory, nothing to wait for.
struct SingleWindows final : SharedWindows {
    std::byte* segment(int, int) override { return nullptr; }
    void acquire(int) override {}
    std::vector<std::uint64_t> filled(int, std::span<const std::uint64_t> sizes) override {
        return {sizes.begin(), sizes.end()};
    }
    void release(int) override {}
};

class SingleImpl final : public Communicator::Impl {
public:
    std::string_view transport() const override { return "single"; }
    std::shared_ptr<Impl> duplicate() override { return std::make_shared<SingleImpl>(); }
    void allreduce(void*, std::size_t, DataType, ReduceOp) override {}
    void allgather(const void* mine, std::size_t bytes, void* all) override {
        if (bytes) std::memmove(all, mine, bytes);
    }
    std::vector<ReceivedBytes> gatherv(std::span<const std::byte> mine, int root, bool) override {
        check_root(root);
        return {ReceivedBytes(mine.begin(), mine.end())};
    }
    void bcast(std::span<std::byte>, int root) override { check_root(root); }
    void barrier() override {}
    std::unique_ptr<SharedWindows> allocate_shared(std::size_t, int, int root) override {
        check_root(root);
        return std::make_unique<SingleWindows>();
    }
    void exchange_host(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives) override {
        check_peers(sends, receives);
        copy_to_self(0, sends, receives, nullptr);
    }
    void bind_device(const Backend& backend) override { backend_ = backend; }
    void reserve_staging(std::size_t, std::size_t) override {}
    void start_exchange(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives,
                        const Backend* after) override {
        check_peers(sends, receives);
        // The copies on `after` are complete for the bound backend's later work only when it is
        // the bound backend: one rank has no second queue to wait for.
        if (after && backend_ && after->stream() != backend_->stream()) after->synchronize();
        copy_to_self(0, sends, receives, backend_ ? &*backend_ : nullptr);
    }
    void finish_exchange(const Backend*) override {}
    void allreduce_device(void*, std::size_t, DataType, ReduceOp) override {}
    void send_failure(const Failure&) noexcept override {}
    double wait_seconds() const override { return 0.0; }
    void poll_failures() override {}

private:
    static void check_root(int root) {
        if (root != 0) throw UsageError("dist: root rank " + std::to_string(root) + " of a one-rank communicator");
    }
    template <class S, class R> static void check_peers(const S& sends, const R& receives) {
        for (const auto& s : sends)
            if (s.peer != 0) throw UsageError("dist: a send to rank " + std::to_string(s.peer) + " of a one-rank communicator");
        for (const auto& r : receives)
            if (r.peer != 0) throw UsageError("dist: a receive from rank " + std::to_string(r.peer) + " of a one-rank communicator");
    }
    std::optional<Backend> backend_;
};

}  // namespace

std::shared_ptr<Communicator::Impl> make_single() { return std::make_shared<SingleImpl>(); }

}  // namespace detail

// ---- Failures ----

std::string Failure::describe(int ranks) const {
    return ranks > 1 && rank >= 0 ? "rank " + std::to_string(rank) + ": " + message : message;
}

Failure failure_of(std::exception_ptr error, int rank) {
    Failure f;
    f.rank = rank;
    auto one_line = [](std::string s) {
        std::replace(s.begin(), s.end(), '\n', ' ');
        return s;
    };
    try {
        if (error) std::rethrow_exception(error);
        f.message = "unknown failure";
    } catch (const UsageError& e) {
        f.kind = FailureKind::usage;
        f.message = one_line(e.what());
    } catch (const FormatError& e) {
        f.kind = FailureKind::format;
        f.message = one_line(e.what());
    } catch (const IoError& e) {
        f.kind = FailureKind::io;
        f.message = one_line(e.what());
    } catch (const OutOfMemoryError& e) {
        f.kind = FailureKind::out_of_memory;
        f.message = one_line(e.what());
    } catch (const DeviceError& e) {
        f.kind = FailureKind::device;
        f.message = one_line(e.what());
    } catch (const NumericalError& e) {
        f.kind = FailureKind::numerical;
        f.message = one_line(e.what());
    } catch (const BrokenPipe& e) {
        f.kind = FailureKind::broken_pipe;
        f.message = one_line(e.what());
    } catch (const std::bad_alloc&) {
        f.kind = FailureKind::out_of_memory;
        f.message = "out of host memory";
    } catch (const std::exception& e) {
        f.message = "internal error: " + one_line(e.what());
    } catch (...) {
        f.message = "internal error: an unknown exception";
    }
    return f;
}

void raise(const Failure& failure, int ranks) {
    detail::set_agreed_failure(failure);
    const std::string what = failure.describe(ranks);
    switch (failure.kind) {
        case FailureKind::usage: throw UsageError(what);
        case FailureKind::format: throw FormatError(what);
        case FailureKind::io: throw IoError(what);
        case FailureKind::out_of_memory: throw OutOfMemoryError(what, 0, 0);
        case FailureKind::device: throw DeviceError(what);
        case FailureKind::numerical: throw NumericalError(what);
        case FailureKind::broken_pipe: throw BrokenPipe();
        case FailureKind::other: break;
    }
    throw Error(what);
}

// ---- Communicator ----

namespace {
std::mutex world_mutex;
std::shared_ptr<Communicator::Impl> world_impl;
}  // namespace

Communicator Communicator::world() {
    std::lock_guard lock(world_mutex);
    if (!world_impl) {
        world_impl = detail::make_mpi_world();
        if (!world_impl) world_impl = detail::make_single();
    }
    return Communicator(world_impl);
}

bool Communicator::world_started() {
    std::lock_guard lock(world_mutex);
    return world_impl != nullptr;
}

Communicator Communicator::single() { return Communicator(detail::make_single()); }

int Communicator::rank() const { return impl_->rank; }
int Communicator::size() const { return impl_->size; }
int Communicator::local_rank() const { return impl_->local_rank; }
int Communicator::local_size() const { return impl_->local_size; }
std::string_view Communicator::transport() const { return impl_->transport(); }

std::string Communicator::describe() const {
    if (size() == 1) return "1 rank";
    return std::to_string(size()) + " ranks (" + std::string(transport()) + ")";
}

Communicator Communicator::duplicate() const { return Communicator(impl_->duplicate()); }

void Communicator::allreduce_bytes(void* values, std::size_t count, DataType type, ReduceOp op) const {
    if (!count) return;
    ++impl_->calls.collectives;
    impl_->allreduce(values, count, type, op);
}

void Communicator::allgather_bytes(const void* mine, std::size_t bytes, void* all) const {
    ++impl_->calls.collectives;
    impl_->allgather(mine, bytes, all);
}

std::vector<ReceivedBytes> Communicator::allgatherv(std::span<const std::byte> mine) const {
    ++impl_->calls.collectives;
    return impl_->gatherv(mine, 0, true);
}

std::vector<ReceivedBytes> Communicator::gatherv(std::span<const std::byte> mine, int root) const {
    ++impl_->calls.collectives;
    return impl_->gatherv(mine, root, false);
}

void Communicator::bcast(std::span<std::byte> bytes, int root) const {
    if (bytes.empty() && size() == 1) return;
    ++impl_->calls.collectives;
    impl_->bcast(bytes, root);
}

std::vector<std::byte> Communicator::bcast_bytes(std::vector<std::byte> bytes, int root) const {
    std::uint64_t n = bytes.size();
    bcast_value(n, root);
    if (rank() != root) bytes.assign(n, std::byte{0});
    bcast(bytes, root);
    return bytes;
}

void Communicator::barrier() const {
    ++impl_->calls.collectives;
    impl_->barrier();
}

void Communicator::exchange_host(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives) const {
    ++impl_->calls.exchanges;
    impl_->exchange_host(sends, receives);
}

bool Communicator::any(bool mine) const { return allreduce<std::uint8_t>(mine ? 1 : 0, ReduceOp::max) != 0; }
bool Communicator::all(bool mine) const { return allreduce<std::uint8_t>(mine ? 1 : 0, ReduceOp::min) != 0; }

std::optional<Failure> Communicator::agree(std::optional<Failure> mine) const {
    if (size() == 1) return mine;
    // The lowest failing rank (a cheap all-reduce when nothing failed), then its failure.
    const int failing = allreduce<std::int32_t>(mine ? rank() : size(), ReduceOp::min);
    if (failing == size()) return std::nullopt;
    std::vector<std::byte> text;
    Failure f;
    if (rank() == failing) {
        f = *mine;
        text.resize(1 + f.message.size());
        text[0] = std::byte(f.kind);
        std::memcpy(text.data() + 1, f.message.data(), f.message.size());
    }
    text = bcast_bytes(std::move(text), failing);
    f.rank = failing;
    f.kind = text.empty() ? FailureKind::other : FailureKind(text[0]);
    f.message = text.size() > 1 ? std::string(reinterpret_cast<const char*>(text.data()) + 1, text.size() - 1) : "failed";
    return f;
}

void Communicator::settle(std::optional<Failure> mine) const {
    if (const auto f = agree(std::move(mine))) raise(*f, size());
}

Failure Communicator::fail(std::exception_ptr error) const noexcept {
    try {
        // A failure every rank knows already (another rank's, or an agreed one): reported as the
        // exception says it (a run loop may have added where the frames are), else as it was.
        auto base = detail::known_failure();
        if (!base) base = detail::agreed_failure();
        if (base) {
            Failure f = failure_of(error, -1);
            if (f.message.starts_with(base->describe(size()))) return f;
            return *base;
        }
        const Failure f = failure_of(error, rank());
        if (detail::set_known_failure(f)) impl_->send_failure(f);
        return *detail::known_failure();
    } catch (...) {
        return Failure{rank(), FailureKind::other, "internal error while reporting a failure"};
    }
}

void Communicator::bind_device(const Backend& backend) { impl_->bind_device(backend); }
void Communicator::reserve_staging(std::size_t send_bytes, std::size_t receive_bytes) {
    impl_->reserve_staging(send_bytes, receive_bytes);
}

void Communicator::exchange(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives) {
    start_exchange(sends, receives);
    impl_->finish_exchange(nullptr);
}

void Communicator::start_exchange(std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives,
                                  const Backend* after) {
    ++impl_->calls.exchanges;
    impl_->start_exchange(sends, receives, after);
}

void Communicator::finish_exchange(const Backend* before) { impl_->finish_exchange(before); }

void Communicator::allreduce_device_bytes(void* values, std::size_t count, DataType type, ReduceOp op) {
    if (!count) return;
    ++impl_->calls.collectives;
    impl_->allreduce_device(values, count, type, op);
}

double Communicator::wait_seconds() const { return impl_->wait_seconds(); }

Communicator::CallCounts Communicator::call_counts() const { return impl_->calls; }

void Communicator::throw_if_failed() const { impl_->poll_failures(); }

#if !PARTIKEL_DIST_MPI
namespace detail {
std::shared_ptr<Communicator::Impl> make_mpi_world() { return nullptr; }
}  // namespace detail
bool mpi_compiled() { return false; }
#endif

#if !PARTIKEL_DIST_NCCL
namespace detail {
struct NcclChannel {};
namespace {
[[noreturn]] void no_nccl() { throw UsageError("dist: this build has no NCCL"); }
}  // namespace
std::vector<std::byte> nccl_unique_id() { no_nccl(); }
std::shared_ptr<NcclChannel> nccl_open(std::span<const std::byte>, int, int, const Backend&) { no_nccl(); }
void nccl_close(NcclChannel&) noexcept {}
void nccl_start_exchange(NcclChannel&, std::span<const SendBytes>, std::span<const ReceiveBytes>, const Backend*) {
    no_nccl();
}
void nccl_finish_exchange(NcclChannel&, const Backend*) { no_nccl(); }
void nccl_allreduce(NcclChannel&, void*, std::size_t, DataType, ReduceOp) { no_nccl(); }
}  // namespace detail
bool nccl_compiled() { return false; }
#endif

}  // namespace partikel::dist
