// Writing a kernel once for both backends.
//
// A kernel body is a functor (or lambda) whose operator()(std::size_t i) is marked PK_HD.
// Kernel families are templates on an execution policy, `Exec`, defined in
//   core/exec_cpu.hpp   (CpuExec: OpenMP loops, plain C++)
//   core/cuda/exec_cuda.cuh (CudaExec: CUDA launches and CUB; included only by .cu files)
// and instantiated once per backend: `foo.cpp` with CpuExec, `foo.cu` with CudaExec.
// Both policies offer the same members (for_each, sort_pairs, exclusive_sum, reduce_*), so the
// body of a family is written once. See docs/ARCHITECTURE.md, "One kernel, two backends".
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define PK_HD __host__ __device__
#define PK_DEVICE_INLINE __host__ __device__ __forceinline__
#else
#define PK_HD
#define PK_DEVICE_INLINE inline
#endif

namespace partikel {

// The sizes CUB and our CPU sort use for their scratch space; see Workspace.
struct ScratchRequest {
    std::size_t bytes = 0;
};

}  // namespace partikel
