// CudaExec: the CUDA execution policy, with the same members as CpuExec (core/exec_cpu.hpp).
// Only .cu files include this. Kernels run on the backend's stream; CUB gets its scratch from
// the caller's Workspace (no hidden allocation, no hidden synchronisation).
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <type_traits>

#include "core/backend.hpp"
#include "core/cuda/check.cuh"
#include "core/launch.hpp"
#include "core/reduce_ops.hpp"
#include "core/workspace.hpp"

namespace partikel {

namespace detail {
// A functor may ask for `static constexpr int kMinBlocksPerSM = m;`: the kernel is then
// compiled for at least m resident blocks of 256 threads per SM (65536 / (256 m) registers per
// thread at most), trading registers for occupancy where latency dominates (sph::kern::Rates).
template <class F, class = void> struct MinBlocksPerSM {
    static constexpr int value = 1;
};
template <class F> struct MinBlocksPerSM<F, std::void_t<decltype(F::kMinBlocksPerSM)>> {
    static constexpr int value = F::kMinBlocksPerSM;
};

template <class F> __global__ void __launch_bounds__(256, MinBlocksPerSM<F>::value) for_each_kernel(std::size_t n, F f) {
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) f(i);
}
template <class Acc> struct ZeroOf {
    __host__ __device__ Acc operator()(std::size_t) const { return Acc{}; }
};
}  // namespace detail

class CudaExec {
public:
    explicit CudaExec(const Backend& backend)
        : stream_(static_cast<cudaStream_t>(backend.stream())), device_(backend.device_index()) {
        PK_CUDA_CHECK(cudaSetDevice(device_));
    }

    static constexpr bool is_cuda = true;
    cudaStream_t stream() const { return stream_; }
    static constexpr int kBlock = 256;  // also the __launch_bounds__ of for_each_kernel

    template <class F> void for_each(std::size_t n, const F& f, const char* label = "for_each") const {
        if (n == 0) return;
        auto blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
        detail::for_each_kernel<<<blocks, kBlock, 0, stream_>>>(n, f);
        PK_CUDA_CHECK_LAUNCH(label);
    }
    // On the GPU one thread per item already balances uneven work across warps.
    template <class F> void for_each_uneven(std::size_t n, const F& f, const char* label = "for_each") const {
        for_each(n, f, label);
    }

    void synchronize() const { PK_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
    void fill_zero(void* dst, std::size_t bytes) const {
        if (bytes) PK_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, stream_));
    }
    template <class T> T read_value(const T* p) const {
        T v;
        PK_CUDA_CHECK(cudaMemcpyAsync(&v, p, sizeof(T), cudaMemcpyDeviceToHost, stream_));
        synchronize();
        return v;
    }
    template <class T> void write_value(T* p, const T& v) const {
        PK_CUDA_CHECK(cudaMemcpyAsync(p, &v, sizeof(T), cudaMemcpyHostToDevice, stream_));
        synchronize();
    }

    template <class K, class V> std::size_t sort_pairs_scratch_bytes(std::size_t n) const {
        std::size_t bytes = 0;
        PK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const K*>(nullptr),
                                                      static_cast<K*>(nullptr), static_cast<const V*>(nullptr),
                                                      static_cast<V*>(nullptr), static_cast<std::int64_t>(n), 0,
                                                      int(sizeof(K) * 8), stream_));
        return align_scratch(bytes);
    }
    template <class K, class V>
    void sort_pairs(Workspace& ws, const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::size_t n,
                    int begin_bit = 0, int end_bit = int(sizeof(K) * 8)) const {
        std::size_t bytes = sort_pairs_scratch_bytes<K, V>(n);
        void* scratch = ws.require(bytes, "sort_pairs");
        if (n == 0) return;
        PK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch, bytes, keys_in, keys_out, values_in, values_out,
                                                      static_cast<std::int64_t>(n), begin_bit, end_bit, stream_));
    }

    template <class T> std::size_t exclusive_sum_scratch_bytes(std::size_t n) const {
        std::size_t bytes = 0;
        PK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const T*>(nullptr),
                                                    static_cast<T*>(nullptr), static_cast<std::int64_t>(n), stream_));
        return align_scratch(bytes);
    }
    template <class T> void exclusive_sum(Workspace& ws, const T* in, T* out, std::size_t n) const {
        std::size_t bytes = exclusive_sum_scratch_bytes<T>(n);
        void* scratch = ws.require(bytes, "exclusive_sum");
        if (n == 0) return;
        PK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch, bytes, in, out, static_cast<std::int64_t>(n), stream_));
    }

    template <class Acc, class Op = SumOp> std::size_t reduce_scratch_bytes(std::size_t n) const {
        auto it = thrust::make_transform_iterator(thrust::make_counting_iterator<std::size_t>(0), detail::ZeroOf<Acc>{});
        std::size_t bytes = 0;
        PK_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, it, static_cast<Acc*>(nullptr),
                                                static_cast<std::int64_t>(n), Op{}, Acc{}, stream_));
        return align_scratch(bytes);
    }
    template <class Acc, class F, class Op>
    void transform_reduce(Workspace& ws, std::size_t n, const F& value, Op op, Acc init, Acc* out) const {
        auto it = thrust::make_transform_iterator(thrust::make_counting_iterator<std::size_t>(0), value);
        std::size_t bytes = 0;
        PK_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, it, out, static_cast<std::int64_t>(n), op, init,
                                                stream_));
        void* scratch = ws.require(bytes, "reduce");
        PK_CUDA_CHECK(cub::DeviceReduce::Reduce(scratch, bytes, it, out, static_cast<std::int64_t>(n), op, init,
                                                stream_));
    }

private:
    cudaStream_t stream_;
    int device_;
};

}  // namespace partikel
