// CUDA instantiation of core/algorithms_impl.hpp (the CPU one is core/algorithms.cpp).
#include "core/algorithms_impl.hpp"
#include "core/cuda/exec_cuda.cuh"

namespace partikel::detail::cuda_side {

template <class K> std::size_t sort_pairs_scratch_bytes(const Backend& backend, std::size_t n) {
    return CudaExec(backend).sort_pairs_scratch_bytes<K, std::uint32_t>(n);
}
template <class K>
void sort_pairs(const Backend& backend, Workspace& ws, const K* keys_in, K* keys_out, const std::uint32_t* values_in,
                std::uint32_t* values_out, std::size_t n, int begin_bit, int end_bit) {
    CudaExec(backend).sort_pairs(ws, keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit);
}
template <class T> std::size_t exclusive_sum_scratch_bytes(const Backend& backend, std::size_t n) {
    return CudaExec(backend).exclusive_sum_scratch_bytes<T>(n);
}
template <class T> void exclusive_sum(const Backend& backend, Workspace& ws, const T* in, T* out, std::size_t n) {
    CudaExec(backend).exclusive_sum(ws, in, out, n);
}
template <class T, class Acc> std::size_t reduce_scratch_bytes(const Backend& backend, std::size_t n) {
    return reduce_scratch_with<CudaExec, T, Acc>(CudaExec(backend), n);
}
template <class T, class Acc>
void reduce(const Backend& backend, Workspace& ws, ReduceKind kind, const T* in, std::size_t n, Acc* out) {
    reduce_with(CudaExec(backend), ws, kind, in, n, out);
}
void histogram(const Backend& backend, const std::uint32_t* bins, std::size_t n, std::uint32_t* counts,
               std::size_t bin_count) {
    histogram_with(CudaExec(backend), bins, n, counts, bin_count);
}

template std::size_t sort_pairs_scratch_bytes<std::uint32_t>(const Backend&, std::size_t);
template std::size_t sort_pairs_scratch_bytes<std::uint64_t>(const Backend&, std::size_t);
template void sort_pairs<std::uint32_t>(const Backend&, Workspace&, const std::uint32_t*, std::uint32_t*,
                                        const std::uint32_t*, std::uint32_t*, std::size_t, int, int);
template void sort_pairs<std::uint64_t>(const Backend&, Workspace&, const std::uint64_t*, std::uint64_t*,
                                        const std::uint32_t*, std::uint32_t*, std::size_t, int, int);
template std::size_t exclusive_sum_scratch_bytes<std::uint32_t>(const Backend&, std::size_t);
template std::size_t exclusive_sum_scratch_bytes<std::uint64_t>(const Backend&, std::size_t);
template void exclusive_sum<std::uint32_t>(const Backend&, Workspace&, const std::uint32_t*, std::uint32_t*, std::size_t);
template void exclusive_sum<std::uint64_t>(const Backend&, Workspace&, const std::uint64_t*, std::uint64_t*, std::size_t);
#define PK_INSTANTIATE_REDUCE(T, Acc)                                                   \
    template std::size_t reduce_scratch_bytes<T, Acc>(const Backend&, std::size_t); \
    template void reduce<T, Acc>(const Backend&, Workspace&, ReduceKind, const T*, std::size_t, Acc*);
PK_INSTANTIATE_REDUCE(float, double)
PK_INSTANTIATE_REDUCE(double, double)
PK_INSTANTIATE_REDUCE(float, float)
PK_INSTANTIATE_REDUCE(std::uint32_t, std::uint64_t)
PK_INSTANTIATE_REDUCE(std::uint32_t, std::uint32_t)

}  // namespace partikel::detail::cuda_side
