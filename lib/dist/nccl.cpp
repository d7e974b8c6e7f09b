// NCCL for dist::Communicator's device collectives (compiled only when CMake found NCCL and the
// CUDA backend is built). Exchanges run on a stream of their own, ordered after the backend's
// work by an event and before the backend's later work by another, so that work queued between
// start and finish overlaps the transfer.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "core/event.hpp"
#include "dist/communicator_impl.hpp"

namespace partikel::dist::detail {

namespace {

void check(ncclResult_t rc, const char* what) {
    if (rc == ncclSuccess || rc == ncclInProgress) return;
    throw DeviceError(std::string("nccl: ") + what + ": " + ncclGetErrorString(rc));
}

ncclDataType_t nccl_type(DataType type) {
    switch (type) {
        case DataType::u8: return ncclUint8;
        case DataType::i32: return ncclInt32;
        case DataType::u32: return ncclUint32;
        case DataType::i64: return ncclInt64;
        case DataType::u64: return ncclUint64;
        case DataType::f32: return ncclFloat32;
        case DataType::f64: return ncclFloat64;
    }
    return ncclUint8;
}

ncclRedOp_t nccl_op(ReduceOp op) { return op == ReduceOp::sum ? ncclSum : op == ReduceOp::min ? ncclMin : ncclMax; }

}  // namespace

struct NcclChannel {
    // The exchanges' stream has the device's highest priority: its kernels start while a long
    // kernel of the backend's still has blocks to schedule (the interior rows while a halo
    // travels), not after them.
    NcclChannel(const Backend& b)
        : backend(b), side(b.with_own_stream(Backend::StreamPriority::high)), ready(b), done(b) {}
    ~NcclChannel() { close(); }
    void close() noexcept {
        if (!comm) return;
        // A rank that failed may leave peers' operations pending: abort rather than wait.
        if (known_failure()) ncclCommAbort(comm);
        else ncclCommDestroy(comm);
        comm = nullptr;
    }
    Backend backend;
    Backend side;  // the exchanges' stream
    Event ready, done;
    ncclComm_t comm = nullptr;
};

std::vector<std::byte> nccl_unique_id() {
    ncclUniqueId id;
    check(ncclGetUniqueId(&id), "unique id");
    std::vector<std::byte> out(sizeof id);
    static_assert(sizeof(ncclUniqueId) <= 128);
    std::memcpy(out.data(), &id, sizeof id);
    return out;
}

std::shared_ptr<NcclChannel> nccl_open(std::span<const std::byte> id, int rank, int size, const Backend& backend) {
    // NVLink SHARP (multicast) stays off on the GPU machines.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    if (cudaSetDevice(backend.device_index()) != cudaSuccess)
        throw DeviceError("nccl: cannot select CUDA device " + std::to_string(backend.device_index()));
    auto channel = std::make_shared<NcclChannel>(backend);
    ncclUniqueId unique;
    std::memcpy(&unique, id.data(), sizeof unique);
    check(ncclCommInitRank(&channel->comm, size, unique, rank), "init");
    return channel;
}

void nccl_close(NcclChannel& channel) noexcept { channel.close(); }

void nccl_start_exchange(NcclChannel& c, std::span<const SendBytes> sends, std::span<const ReceiveBytes> receives,
                         const Backend* after) {
    c.ready.record(after ? *after : c.backend);
    c.ready.enqueue_wait(c.side);
    auto stream = static_cast<cudaStream_t>(c.side.stream());
    check(ncclGroupStart(), "group start");
    for (const auto& r : receives) check(ncclRecv(r.data, r.bytes, ncclUint8, r.peer, c.comm, stream), "receive");
    for (const auto& s : sends) check(ncclSend(s.data, s.bytes, ncclUint8, s.peer, c.comm, stream), "send");
    check(ncclGroupEnd(), "group end");
}

void nccl_finish_exchange(NcclChannel& c, const Backend* before) {
    c.done.record(c.side);
    c.done.enqueue_wait(before ? *before : c.backend);
}

void nccl_allreduce(NcclChannel& c, void* values, std::size_t count, DataType type, ReduceOp op) {
    check(ncclAllReduce(values, values, count, nccl_type(type), nccl_op(op), c.comm,
                        static_cast<cudaStream_t>(c.backend.stream())),
          "all-reduce");
}

}  // namespace partikel::dist::detail

namespace partikel::dist {
bool nccl_compiled() { return true; }
}  // namespace partikel::dist
