// The kernels of CudaExec (core/exec.hpp): launches on the backend's stream and CUB with
// scratch from the caller's Workspace (no hidden allocation, no hidden synchronisation).
// Only .cu files include this.
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <type_traits>

#include "base/hd.hpp"
#include "core/cuda/check.cuh"
#include "core/exec.hpp"
#include "core/reduce_ops.hpp"

namespace partikel {

// One block of a block-level kernel on the GPU: this thread's part of it (core/exec.hpp).
template <int Threads> class CudaBlock {
public:
    static constexpr int kThreads = Threads;
    PK_HD explicit CudaBlock(std::byte* shared) : shared_(shared) {}
    PK_HD std::size_t index() const {
#if defined(__CUDA_ARCH__)
        return blockIdx.x;
#else
        return 0;  // device code only: blocks run on the GPU
#endif
    }
    template <class F> PK_HD void threads(F&& f) const {
#if defined(__CUDA_ARCH__)
        f(static_cast<int>(threadIdx.x));
#endif
    }
    PK_HD void sync() const {
#if defined(__CUDA_ARCH__)
        __syncthreads();
#endif
    }
    template <class T> PK_HD T* shared(std::size_t offset_bytes = 0) const {
        return reinterpret_cast<T*>(shared_ + offset_bytes);
    }
    // This thread's value; the index is the thread's own t (what b.threads passes).
    template <class T> struct Local {
        PK_HD explicit Local(const CudaBlock&) {}
        PK_HD T& operator[](int) { return value; }
        PK_HD const T& operator[](int) const { return value; }
        T value;
    };

private:
    std::byte* shared_;
};

namespace detail {
// A functor may ask for `static constexpr int kMinBlocksPerSM = m;`: the kernel is then
// compiled for at least m resident blocks of 256 threads per SM (65536 / (256 m) registers per
// thread at most), trading registers for occupancy where latency dominates (sph's rates pass).
template <class F, class = void> struct MinBlocksPerSM {
    static constexpr int value = 1;
};
template <class F> struct MinBlocksPerSM<F, std::void_t<decltype(F::kMinBlocksPerSM)>> {
    static constexpr int value = F::kMinBlocksPerSM;
};

template <class F>
__global__ void __launch_bounds__(CudaExec::kBlock, MinBlocksPerSM<F>::value) for_each_kernel(std::size_t n, F f) {
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) f(i);
}

template <class Body> __global__ void __launch_bounds__(Body::kThreads) block_kernel(Body body) {
    extern __shared__ __align__(16) std::byte block_shared[];
    CudaBlock<Body::kThreads> block(block_shared);
    body(block);
}

template <class Acc> struct ZeroOf {
    __host__ __device__ Acc operator()(std::size_t) const { return Acc{}; }
};
}  // namespace detail

template <class F> void CudaExec::for_each(std::size_t n, const F& f, const char* label) const {
    if (n == 0) return;
    auto blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
    detail::for_each_kernel<<<blocks, kBlock, 0, static_cast<cudaStream_t>(stream_)>>>(n, f);
    PK_CUDA_CHECK_LAUNCH(label);
}

// On the GPU one thread per item already balances uneven work across warps.
template <class F> void CudaExec::for_each_uneven(std::size_t n, const F& f, const char* label) const {
    for_each(n, f, label);
}

template <class Body>
void CudaExec::for_each_block(std::size_t blocks, std::size_t shared_bytes, const Body& body, const char* label) const {
    if (blocks == 0) return;
    if (blocks > 0x7fffffffu) throw UsageError(std::string(label) + ": too many blocks (" + std::to_string(blocks) + ")");
    // Above 48 KiB a kernel must opt in to more dynamic shared memory (up to 227 KiB on Hopper).
    if (shared_bytes > 48 * 1024)
        PK_CUDA_CHECK(cudaFuncSetAttribute(detail::block_kernel<Body>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(shared_bytes)));
    detail::block_kernel<<<static_cast<unsigned>(blocks), Body::kThreads, shared_bytes,
                           static_cast<cudaStream_t>(stream_)>>>(body);
    PK_CUDA_CHECK_LAUNCH(label);
}

template <class K, class V> std::size_t CudaExec::sort_pairs_scratch_bytes(std::size_t n) const {
    std::size_t bytes = 0;
    PK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                                  static_cast<const V*>(nullptr), static_cast<V*>(nullptr),
                                                  static_cast<std::int64_t>(n), 0, int(sizeof(K) * 8),
                                                  static_cast<cudaStream_t>(stream_)));
    return align_scratch(bytes);
}

template <class K, class V>
void CudaExec::sort_pairs(Workspace& ws, const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::size_t n,
                          int begin_bit, int end_bit) const {
    std::size_t bytes = sort_pairs_scratch_bytes<K, V>(n);
    void* scratch = ws.require(bytes, "sort_pairs");
    if (n == 0) return;
    PK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch, bytes, keys_in, keys_out, values_in, values_out,
                                                  static_cast<std::int64_t>(n), begin_bit, end_bit,
                                                  static_cast<cudaStream_t>(stream_)));
}

template <class T> std::size_t CudaExec::exclusive_sum_scratch_bytes(std::size_t n) const {
    std::size_t bytes = 0;
    PK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                                static_cast<std::int64_t>(n), static_cast<cudaStream_t>(stream_)));
    return align_scratch(bytes);
}

template <class T> void CudaExec::exclusive_sum(Workspace& ws, const T* in, T* out, std::size_t n) const {
    std::size_t bytes = exclusive_sum_scratch_bytes<T>(n);
    void* scratch = ws.require(bytes, "exclusive_sum");
    if (n == 0) return;
    PK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch, bytes, in, out, static_cast<std::int64_t>(n),
                                                static_cast<cudaStream_t>(stream_)));
}

// CUB's requirement depends on the value functor too (its kernel's occupancy sets the grid of
// the reduction's first pass), which this query cannot see: twice the requirement of a plain
// Acc input plus 64 KiB covers every functor (a functor needing 17% more was seen).
template <class Acc, class Op> std::size_t CudaExec::reduce_scratch_bytes(std::size_t n) const {
    auto it = thrust::make_transform_iterator(thrust::make_counting_iterator<std::size_t>(0), detail::ZeroOf<Acc>{});
    std::size_t bytes = 0;
    PK_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, it, static_cast<Acc*>(nullptr), static_cast<std::int64_t>(n),
                                            Op{}, Acc{}, static_cast<cudaStream_t>(stream_)));
    return align_scratch(2 * bytes + (std::size_t{64} << 10));
}

template <class Acc, class F, class Op>
void CudaExec::transform_reduce(Workspace& ws, std::size_t n, const F& value, Op op, Acc init, Acc* out) const {
    auto it = thrust::make_transform_iterator(thrust::make_counting_iterator<std::size_t>(0), value);
    std::size_t bytes = 0;
    PK_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, it, out, static_cast<std::int64_t>(n), op, init,
                                            static_cast<cudaStream_t>(stream_)));
    void* scratch = ws.require(bytes, "reduce");
    PK_CUDA_CHECK(cub::DeviceReduce::Reduce(scratch, bytes, it, out, static_cast<std::int64_t>(n), op, init,
                                            static_cast<cudaStream_t>(stream_)));
}

}  // namespace partikel
