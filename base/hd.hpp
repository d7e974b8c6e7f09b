// Marking code for both backends. A function or functor member marked PK_HD is compiled for the
// host and, under nvcc, for the device too; PK_DEVICE_INLINE also forces inlining on the GPU.
// Plain C++ compilers see empty macros, so headers using them compile without CUDA.
// PK_UNROLL before a loop of a constant trip count unrolls it on both compilers.
// How kernels are written and launched: core/exec.hpp.
#pragma once

#if defined(__CUDACC__)
#define PK_HD __host__ __device__
#define PK_DEVICE_INLINE __host__ __device__ __forceinline__
#define PK_UNROLL _Pragma("unroll")
#else
#define PK_HD
#define PK_DEVICE_INLINE inline
#define PK_UNROLL _Pragma("GCC unroll 16")
#endif
