// Marking code for both backends. A function or functor member marked PK_HD is compiled for the
// host and, under nvcc, for the device too; PK_DEVICE_INLINE also forces inlining on the GPU.
// Plain C++ compilers see empty macros, so headers using them compile without CUDA.
// PK_UNROLL before a loop of a constant trip count unrolls it on both compilers.
// PK_CPU_SIMD_CLONES on a host function (a CPU kernel body whose loops vectorise) compiles it
// twice, for baseline x86-64 (SSE2) and for AVX2, and the loader picks the clone the CPU runs
// (GCC's function multiversioning, an ifunc); elsewhere, and under nvcc, it is empty. Both
// clones round alike, operation for operation: ISO C++ mode contracts no multiply-add, and the
// clones differ only in vector width.
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

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define PK_CPU_SIMD_CLONES __attribute__((target_clones("default", "avx2")))
#else
#define PK_CPU_SIMD_CLONES
#endif
