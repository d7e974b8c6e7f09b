#include "core/cuda/runtime.hpp"

#include <cuda_runtime.h>

#include "core/cuda/check.cuh"
#include "core/exec.hpp"
#include "base/error.hpp"
#include "core/host_waits.hpp"

namespace partikel::cuda_rt {

void throw_cuda_error(cudaError_t code, const char* what, const char* file, int line) {
    cudaGetLastError();  // clear a sticky non-fatal error so later calls report their own
    std::string message = std::string(file) + ":" + std::to_string(line) + ": " + cudaGetErrorName(code) +
                          ": " + cudaGetErrorString(code) + " (" + what + ")";
    throw DeviceError(message);
}

std::vector<CudaDeviceInfo> devices(std::string* reason) {
    std::vector<CudaDeviceInfo> result;
    int count = 0;
    cudaError_t code = cudaGetDeviceCount(&count);
    if (code != cudaSuccess) {
        cudaGetLastError();
        if (reason) {
            if (code == cudaErrorInsufficientDriver) *reason = "no usable CUDA driver";
            else if (code == cudaErrorNoDevice) *reason = "no CUDA device";
            else *reason = std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code);
        }
        return result;
    }
    if (count == 0 && reason) *reason = "no CUDA device";
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        CudaDeviceInfo info;
        info.index = i;
        info.name = prop.name;
        info.compute_major = prop.major;
        info.compute_minor = prop.minor;
        info.multiprocessors = prop.multiProcessorCount;
        info.total_memory_bytes = prop.totalGlobalMem;
        std::size_t free_b = 0, total_b = 0;
        if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
            info.free_memory_bytes = free_b;
        else
            cudaGetLastError();
        result.push_back(info);
    }
    return result;
}

void* stream_create(int device, bool high_priority) {
    PK_CUDA_CHECK(cudaSetDevice(device));
    cudaStream_t stream = nullptr;
    int least = 0, greatest = 0;
    PK_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    PK_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, high_priority ? greatest : least));
    return stream;
}

void stream_destroy(int device, void* stream) noexcept {
    if (cudaSetDevice(device) == cudaSuccess) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
    cudaGetLastError();
}

void stream_synchronize(int device, void* stream) {
    PK_CUDA_CHECK(cudaSetDevice(device));
    PK_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

static std::string mib(std::size_t bytes) {
    return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

void* malloc_device(int device, std::size_t bytes) {
    PK_CUDA_CHECK(cudaSetDevice(device));
    void* pointer = nullptr;
    cudaError_t code = cudaMalloc(&pointer, bytes);
    if (code == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        std::size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        throw OutOfMemoryError("out of device memory on cuda:" + std::to_string(device) + ": requested " +
                                   mib(bytes) + ", " + mib(free_b) + " free of " + mib(total_b),
                               bytes, free_b);
    }
    PK_CUDA_CHECK(code);
    return pointer;
}

void free_device(int device, void* pointer) noexcept {
    if (cudaSetDevice(device) == cudaSuccess) cudaFree(pointer);
    cudaGetLastError();
}

void* malloc_pinned(int device, std::size_t bytes) {
    PK_CUDA_CHECK(cudaSetDevice(device));
    void* pointer = nullptr;
    cudaError_t code = cudaMallocHost(&pointer, bytes);
    if (code == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        throw OutOfMemoryError("out of pinned host memory: requested " + mib(bytes), bytes, 0);
    }
    PK_CUDA_CHECK(code);
    return pointer;
}

void free_pinned(int device, void* pointer) noexcept {
    if (cudaSetDevice(device) == cudaSuccess) cudaFreeHost(pointer);
    cudaGetLastError();
}

void copy(int device, void* stream, void* dst, const void* src, std::size_t bytes, int direction, bool async) {
    if (bytes == 0) return;
    static constexpr cudaMemcpyKind kinds[] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                               cudaMemcpyDeviceToDevice};
    PK_CUDA_CHECK(cudaSetDevice(device));
    auto s = static_cast<cudaStream_t>(stream);
    PK_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kinds[direction], s));
    if (!async) PK_CUDA_CHECK(cudaStreamSynchronize(s));
}

void memset(int device, void* stream, void* dst, int value, std::size_t bytes) {
    if (bytes == 0) return;
    PK_CUDA_CHECK(cudaSetDevice(device));
    PK_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, static_cast<cudaStream_t>(stream)));
}

std::string runtime_version() {
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
    cudaGetLastError();
    auto text = [](int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); };
    return "runtime " + text(runtime) + (driver ? ", driver " + text(driver) : ", no driver");
}

}  // namespace partikel::cuda_rt

namespace partikel::cuda_rt {

void* event_create(int device, bool timing) {
    PK_CUDA_CHECK(cudaSetDevice(device));
    cudaEvent_t event = nullptr;
    PK_CUDA_CHECK(cudaEventCreateWithFlags(&event, timing ? cudaEventDefault : cudaEventDisableTiming));
    return event;
}

void event_destroy(int device, void* event) noexcept {
    if (cudaSetDevice(device) == cudaSuccess) cudaEventDestroy(static_cast<cudaEvent_t>(event));
    cudaGetLastError();
}

void event_record(int device, void* event, void* stream) {
    PK_CUDA_CHECK(cudaSetDevice(device));
    PK_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)));
}

float event_elapsed_ms(int device, void* start, void* stop) {
    PK_CUDA_CHECK(cudaSetDevice(device));
    PK_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(stop)));
    float ms = 0.0f;
    PK_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(stop)));
    return ms;
}

bool event_query(int device, void* event) {
    PK_CUDA_CHECK(cudaSetDevice(device));
    const cudaError_t code = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (code == cudaErrorNotReady) {
        cudaGetLastError();
        return false;
    }
    PK_CUDA_CHECK(code);
    return true;
}

void event_synchronize(int device, void* event) {
    PK_CUDA_CHECK(cudaSetDevice(device));
    PK_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
}

void stream_wait_event(int device, void* stream, void* event) {
    PK_CUDA_CHECK(cudaSetDevice(device));
    PK_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(event), 0));
}

}  // namespace partikel::cuda_rt

// ---- CudaExec's host-side members (core/exec.hpp) --------------------------------------------

namespace partikel {

CudaExec::CudaExec(const Backend& backend)
    : backend_(backend), stream_(backend.stream()), device_(backend.device_index()) {
    if (!backend.is_cuda()) throw UsageError("CudaExec: not a CUDA backend (" + backend.describe() + ")");
    PK_CUDA_CHECK(cudaSetDevice(device_));
}

void CudaExec::synchronize() const {
    count_host_wait();
    PK_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)));
}

void CudaExec::fill_zero(void* dst, std::size_t bytes) const {
    if (bytes) PK_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, static_cast<cudaStream_t>(stream_)));
}

void CudaExec::copy_to_host(void* dst, const void* src, std::size_t bytes) const {
    if (!bytes) return;
    PK_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, static_cast<cudaStream_t>(stream_)));
    synchronize();
}

void CudaExec::copy_from_host(void* dst, const void* src, std::size_t bytes) const {
    if (!bytes) return;
    PK_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, static_cast<cudaStream_t>(stream_)));
    synchronize();
}

}  // namespace partikel
