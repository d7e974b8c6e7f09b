#include "core/memory.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include <omp.h>
#include <unistd.h>

#include "base/error.hpp"
#include "core/host_waits.hpp"
#include "partikel_config.hpp"
#if PARTIKEL_HAVE_CUDA
#include "core/cuda/runtime.hpp"
#endif

namespace partikel {

namespace {
std::atomic<std::uint64_t> g_allocations{0};
constexpr std::size_t kHostAlignment = 64;  // a cache line; also enough for any SIMD load

void* host_allocate(std::size_t bytes) {
    std::size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
    void* p = std::aligned_alloc(kHostAlignment, rounded);
    if (!p) throw OutOfMemoryError("out of host memory: requested " + std::to_string(bytes >> 20) + " MiB", bytes, 0);
    return p;
}
}  // namespace

std::uint64_t device_allocation_count() { return g_allocations.load(); }

void* device_allocate(const Backend& backend, std::size_t bytes) {
    if (bytes == 0) return nullptr;
    g_allocations.fetch_add(1);
#if PARTIKEL_HAVE_CUDA
    if (backend.is_cuda()) return cuda_rt::malloc_device(backend.device_index(), bytes);
#endif
    (void)backend;
    return host_allocate(bytes);
}

void device_free(const Backend& backend, void* pointer) noexcept {
    if (!pointer) return;
#if PARTIKEL_HAVE_CUDA
    if (backend.is_cuda()) return cuda_rt::free_device(backend.device_index(), pointer);
#endif
    (void)backend;
    std::free(pointer);
}

void* pinned_allocate(const Backend& backend, std::size_t bytes) {
    if (bytes == 0) return nullptr;
#if PARTIKEL_HAVE_CUDA
    if (backend.is_cuda()) return cuda_rt::malloc_pinned(backend.device_index(), bytes);
#endif
    (void)backend;
    return host_allocate(bytes);
}

void pinned_free(const Backend& backend, void* pointer) noexcept {
    if (!pointer) return;
#if PARTIKEL_HAVE_CUDA
    if (backend.is_cuda()) return cuda_rt::free_pinned(backend.device_index(), pointer);
#endif
    (void)backend;
    std::free(pointer);
}

void copy_bytes(const Backend& backend, void* dst, const void* src, std::size_t bytes, CopyDirection direction,
                bool async) {
    if (bytes == 0) return;
    if (!async) count_host_wait();
#if PARTIKEL_HAVE_CUDA
    if (backend.is_cuda())
        return cuda_rt::copy(backend.device_index(), backend.stream(), dst, src, bytes, static_cast<int>(direction),
                             async);
#endif
    (void)direction;
    (void)async;
    // Large host copies in parallel: a single core moves ~10 GB/s, memory several times that.
    constexpr std::size_t kChunk = std::size_t{1} << 22;
    if (bytes < 4 * kChunk || backend.threads() <= 1) {
        std::memcpy(dst, src, bytes);
        return;
    }
    auto* d = static_cast<unsigned char*>(dst);
    auto* s = static_cast<const unsigned char*>(src);
    auto chunks = static_cast<std::int64_t>((bytes + kChunk - 1) / kChunk);
#pragma omp parallel for num_threads(backend.threads()) schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
        std::size_t begin = static_cast<std::size_t>(c) * kChunk;
        std::size_t n = std::min(kChunk, bytes - begin);
        std::memcpy(d + begin, s + begin, n);
    }
}

void fill_bytes(const Backend& backend, void* dst, int value, std::size_t bytes) {
    if (bytes == 0) return;
#if PARTIKEL_HAVE_CUDA
    if (backend.is_cuda()) return cuda_rt::memset(backend.device_index(), backend.stream(), dst, value, bytes);
#endif
    (void)backend;
    std::memset(dst, value, bytes);
}

}  // namespace partikel
