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

// core/key_ranges.hpp over 32- and 64-bit keys: start[k] for k = 0 .. key_count, and
// bound_start[j] for the ascending bounds.
template <class Exec>
void sorted_key_starts(const Exec& exec, const std::uint32_t* sorted, std::size_t n, std::size_t key_count,
                       std::uint32_t* start);
template <class Exec>
void sorted_bound_starts(const Exec& exec, const std::uint64_t* sorted, std::size_t n, const std::uint64_t* bounds,
                         std::size_t bound_count, std::uint32_t* start);

}  // namespace partikel::test
