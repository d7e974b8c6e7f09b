// Device-wide primitives behind a runtime Backend, for code that is not itself a kernel family
// (tools, tests, setup). Kernel families call the same operations on their Exec directly.
//
// All pointers are backend memory (DeviceBuffer::data()). Scratch comes from a Workspace sized
// with the matching *_scratch_bytes function before any loop; nothing here allocates.
// Instantiated for: sort keys u32, u64 with u32 values; scans of u32, u64; reductions of
// f32 -> f64, f64 -> f64, u32 -> u64 (sum) and f32, f64, u32 (min, max).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/backend.hpp"
#include "core/workspace.hpp"

namespace partikel {

template <class K> std::size_t sort_pairs_scratch_bytes(const Backend& backend, std::size_t n);
// Stable sort of (key, value) pairs by key bits [begin_bit, end_bit). In and out must not overlap.
template <class K>
void sort_pairs(const Backend& backend, Workspace& ws, const K* keys_in, K* keys_out, const std::uint32_t* values_in,
                std::uint32_t* values_out, std::size_t n, int begin_bit = 0, int end_bit = int(sizeof(K) * 8));

template <class T> std::size_t exclusive_sum_scratch_bytes(const Backend& backend, std::size_t n);
// out[i] = in[0] + ... + in[i-1]; out may equal in.
template <class T> void exclusive_sum(const Backend& backend, Workspace& ws, const T* in, T* out, std::size_t n);

enum class ReduceKind { sum, min, max };
template <class T, class Acc> std::size_t reduce_scratch_bytes(const Backend& backend, std::size_t n);
// Reduces in[0..n) into *out (backend memory), accumulating in Acc. Empty input gives the
// identity (0, +inf/max, -inf/lowest).
template <class T, class Acc>
void reduce(const Backend& backend, Workspace& ws, ReduceKind kind, const T* in, std::size_t n, Acc* out);

// counts[b] = number of i with bins[i] == b, for b < bin_count (bins >= bin_count are ignored).
// `counts` is overwritten. Atomics on both backends.
void histogram(const Backend& backend, const std::uint32_t* bins, std::size_t n, std::uint32_t* counts,
               std::size_t bin_count);

}  // namespace partikel
