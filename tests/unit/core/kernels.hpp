// A small kernel family used by the core tests, written exactly as every library family is
// (core/exec.hpp): entry points templated on Exec, bodies in kernels_impl.hpp, one
// instantiation macro invoked by kernels.cpp (CpuExec) and kernels.cu (CudaExec).
#pragma once

#include <cstddef>
#include <cstdint>

namespace partikel::test {

// y[i] = a * x[i] + y[i]
template <class Exec> void saxpy(const Exec& exec, std::size_t n, float a, const float* x, float* y);

// counts[values[i] % bins] += 1 and max_out = max(values) using atomic_add / atomic_max;
// min_float_out = min(floats) with atomic_min on floats (negative and positive values).
template <class Exec>
void atomic_checks(const Exec& exec, std::size_t n, const std::uint32_t* values, std::uint32_t bins,
                   std::uint32_t* counts, std::uint32_t* max_out, const float* floats, float* min_float_out,
                   float* max_float_out);

// Block-level kernels. block_tile_sums: block b sums its `tiles` tiles of 256 values through
// shared memory, and each of its 256 threads writes the total to out[b * 256 + t].
// block_histogram: counts into a shared-memory copy per block (block_atomic_add), then adds
// that copy to the global counts with atomics.
template <class Exec>
void block_tile_sums(const Exec& exec, std::size_t blocks, std::size_t tiles, const float* in, float* out);
template <class Exec>
void block_histogram(const Exec& exec, std::size_t n, const std::uint32_t* bins, std::uint32_t bin_count,
                     std::uint32_t* counts);

}  // namespace partikel::test
