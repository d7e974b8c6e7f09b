// Device-wide primitives behind a runtime Backend, for host code (tools, tests, setup, bench).
// Templated code calls the same operations on its Exec directly (core/exec.hpp).
//
// All pointers are backend memory (DeviceBuffer::data()). Scratch comes from a Workspace sized
// with the matching *_scratch_bytes function before any loop; nothing here allocates.
// The CUDA backend provides (cuda/algorithms.cu): sort keys u32 and u64 with u32 values; scans
// of u32 and u64; reductions f32 -> f64, f64 -> f64, f32 -> f32 and u32 -> u64, u32 -> u32
// (sum, min, max); the histogram. Other types link only on the CPU.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "core/atomics.hpp"
#include "core/dispatch.hpp"
#include "core/reduce_ops.hpp"
#include "core/workspace.hpp"

namespace partikel {

template <class K> std::size_t sort_pairs_scratch_bytes(const Backend& backend, std::size_t n) {
    return with_exec(backend, [&](const auto& e) { return e.template sort_pairs_scratch_bytes<K, std::uint32_t>(n); });
}

// Stable sort of (key, value) pairs by key bits [begin_bit, end_bit). In and out must not overlap.
template <class K>
void sort_pairs(const Backend& backend, Workspace& ws, const K* keys_in, K* keys_out, const std::uint32_t* values_in,
                std::uint32_t* values_out, std::size_t n, int begin_bit = 0, int end_bit = int(sizeof(K) * 8)) {
    if (begin_bit < 0 || end_bit > int(sizeof(K) * 8) || begin_bit > end_bit)
        throw UsageError("sort_pairs: bad bit range [" + std::to_string(begin_bit) + ", " + std::to_string(end_bit) + ")");
    with_exec(backend, [&](const auto& e) { e.sort_pairs(ws, keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit); });
}

template <class T> std::size_t exclusive_sum_scratch_bytes(const Backend& backend, std::size_t n) {
    return with_exec(backend, [&](const auto& e) { return e.template exclusive_sum_scratch_bytes<T>(n); });
}

// out[i] = in[0] + ... + in[i-1]; out may equal in.
template <class T> void exclusive_sum(const Backend& backend, Workspace& ws, const T* in, T* out, std::size_t n) {
    with_exec(backend, [&](const auto& e) { e.exclusive_sum(ws, in, out, n); });
}

enum class ReduceKind { sum, min, max };

template <class T, class Acc> std::size_t reduce_scratch_bytes(const Backend& backend, std::size_t n) {
    return with_exec(backend, [&](const auto& e) {
        return std::max({e.template reduce_scratch_bytes<Acc, SumOp>(n), e.template reduce_scratch_bytes<Acc, MinOp>(n),
                         e.template reduce_scratch_bytes<Acc, MaxOp>(n)});
    });
}

// Reduces in[0..n) into *out (backend memory), accumulating in Acc. Empty input gives the
// identity (0, +inf/max, -inf/lowest).
template <class T, class Acc>
void reduce(const Backend& backend, Workspace& ws, ReduceKind kind, const T* in, std::size_t n, Acc* out) {
    with_exec(backend, [&](const auto& e) {
        const LoadAs<T, Acc> value{in};
        switch (kind) {
            case ReduceKind::sum: e.transform_reduce(ws, n, value, SumOp{}, SumOp::identity<Acc>(), out); break;
            case ReduceKind::min: e.transform_reduce(ws, n, value, MinOp{}, MinOp::identity<Acc>(), out); break;
            case ReduceKind::max: e.transform_reduce(ws, n, value, MaxOp{}, MaxOp::identity<Acc>(), out); break;
        }
    });
}

// counts[b] += 1 for every i with bins[i] == b < bin_count (bins >= bin_count are ignored).
struct CountIntoBins {
    const std::uint32_t* bins;
    std::uint32_t* counts;
    std::size_t bin_count;
    PK_HD void operator()(std::size_t i) const {
        const std::uint32_t b = bins[i];
        if (b < bin_count) atomic_add(&counts[b], 1u);
    }
};

// counts[b] = number of i with bins[i] == b, for b < bin_count. `counts` is overwritten.
inline void histogram(const Backend& backend, const std::uint32_t* bins, std::size_t n, std::uint32_t* counts,
                      std::size_t bin_count) {
    with_exec(backend, [&](const auto& e) {
        e.fill_zero(counts, bin_count * sizeof(std::uint32_t));
        e.for_each(n, CountIntoBins{bins, counts, bin_count}, "core.histogram");
    });
}

}  // namespace partikel
