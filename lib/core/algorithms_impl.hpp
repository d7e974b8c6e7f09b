// The bodies of core/algorithms.hpp, written once against an Exec policy and instantiated by
// algorithms.cpp (CpuExec) and cuda/algorithms.cu (CudaExec).
#pragma once

#include <algorithm>

#include "core/algorithms.hpp"
#include "core/atomics.hpp"
#include "core/reduce_ops.hpp"

namespace partikel::detail {


template <class Exec, class T, class Acc>
void reduce_with(const Exec& exec, Workspace& ws, ReduceKind kind, const T* in, std::size_t n, Acc* out) {
    LoadAs<T, Acc> value{in};
    switch (kind) {
        case ReduceKind::sum: exec.transform_reduce(ws, n, value, SumOp{}, SumOp::identity<Acc>(), out); break;
        case ReduceKind::min: exec.transform_reduce(ws, n, value, MinOp{}, MinOp::identity<Acc>(), out); break;
        case ReduceKind::max: exec.transform_reduce(ws, n, value, MaxOp{}, MaxOp::identity<Acc>(), out); break;
    }
}

template <class Exec, class T, class Acc> std::size_t reduce_scratch_with(const Exec& exec, std::size_t n) {
    return std::max({exec.template reduce_scratch_bytes<Acc, SumOp>(n), exec.template reduce_scratch_bytes<Acc, MinOp>(n),
                     exec.template reduce_scratch_bytes<Acc, MaxOp>(n)});
}

struct CountIntoBins {
    const std::uint32_t* bins;
    std::uint32_t* counts;
    std::size_t bin_count;
    PK_HD void operator()(std::size_t i) const {
        std::uint32_t b = bins[i];
        if (b < bin_count) atomic_add(&counts[b], 1u);
    }
};

template <class Exec>
void histogram_with(const Exec& exec, const std::uint32_t* bins, std::size_t n, std::uint32_t* counts,
                    std::size_t bin_count) {
    exec.fill_zero(counts, bin_count * sizeof(std::uint32_t));
    exec.for_each(n, CountIntoBins{bins, counts, bin_count}, "core.histogram");
}

}  // namespace partikel::detail


// The CUDA side of core/algorithms.hpp, defined in cuda/algorithms.cu (CUDA builds only).
namespace partikel::detail::cuda_side {
template <class K> std::size_t sort_pairs_scratch_bytes(const Backend& backend, std::size_t n);
template <class K>
void sort_pairs(const Backend& backend, Workspace& ws, const K* keys_in, K* keys_out, const std::uint32_t* values_in,
                std::uint32_t* values_out, std::size_t n, int begin_bit, int end_bit);
template <class T> std::size_t exclusive_sum_scratch_bytes(const Backend& backend, std::size_t n);
template <class T> void exclusive_sum(const Backend& backend, Workspace& ws, const T* in, T* out, std::size_t n);
template <class T, class Acc> std::size_t reduce_scratch_bytes(const Backend& backend, std::size_t n);
template <class T, class Acc>
void reduce(const Backend& backend, Workspace& ws, ReduceKind kind, const T* in, std::size_t n, Acc* out);
void histogram(const Backend& backend, const std::uint32_t* bins, std::size_t n, std::uint32_t* counts,
               std::size_t bin_count);
}  // namespace partikel::detail::cuda_side
