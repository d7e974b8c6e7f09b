#include "core/algorithms.hpp"

#include "core/algorithms_impl.hpp"
#include "core/dispatch.hpp"
#include "core/error.hpp"
#include "core/exec_cpu.hpp"

namespace partikel {

void throw_cuda_not_built() { throw DeviceError("this build of Partikel has no CUDA backend"); }

template <class K> std::size_t sort_pairs_scratch_bytes(const Backend& backend, std::size_t n) {
    if (backend.is_cuda()) { PK_CUDA_ONLY(return detail::cuda_side::sort_pairs_scratch_bytes<K>(backend, n);) }
    return CpuExec(backend).sort_pairs_scratch_bytes<K, std::uint32_t>(n);
}

template <class K>
void sort_pairs(const Backend& backend, Workspace& ws, const K* keys_in, K* keys_out, const std::uint32_t* values_in,
                std::uint32_t* values_out, std::size_t n, int begin_bit, int end_bit) {
    if (begin_bit < 0 || end_bit > int(sizeof(K) * 8) || begin_bit > end_bit)
        throw UsageError("sort_pairs: bad bit range [" + std::to_string(begin_bit) + ", " + std::to_string(end_bit) + ")");
    if (backend.is_cuda()) {
        PK_CUDA_ONLY(return detail::cuda_side::sort_pairs<K>(backend, ws, keys_in, keys_out, values_in, values_out, n,
                                                             begin_bit, end_bit);)
    }
    CpuExec(backend).sort_pairs(ws, keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit);
}

template <class T> std::size_t exclusive_sum_scratch_bytes(const Backend& backend, std::size_t n) {
    if (backend.is_cuda()) { PK_CUDA_ONLY(return detail::cuda_side::exclusive_sum_scratch_bytes<T>(backend, n);) }
    return CpuExec(backend).exclusive_sum_scratch_bytes<T>(n);
}

template <class T> void exclusive_sum(const Backend& backend, Workspace& ws, const T* in, T* out, std::size_t n) {
    if (backend.is_cuda()) { PK_CUDA_ONLY(return detail::cuda_side::exclusive_sum<T>(backend, ws, in, out, n);) }
    CpuExec(backend).exclusive_sum(ws, in, out, n);
}

template <class T, class Acc> std::size_t reduce_scratch_bytes(const Backend& backend, std::size_t n) {
    if (backend.is_cuda()) { PK_CUDA_ONLY(return detail::cuda_side::reduce_scratch_bytes<T, Acc>(backend, n);) }
    return detail::reduce_scratch_with<CpuExec, T, Acc>(CpuExec(backend), n);
}

template <class T, class Acc>
void reduce(const Backend& backend, Workspace& ws, ReduceKind kind, const T* in, std::size_t n, Acc* out) {
    if (backend.is_cuda()) { PK_CUDA_ONLY(return detail::cuda_side::reduce<T, Acc>(backend, ws, kind, in, n, out);) }
    detail::reduce_with(CpuExec(backend), ws, kind, in, n, out);
}

void histogram(const Backend& backend, const std::uint32_t* bins, std::size_t n, std::uint32_t* counts,
               std::size_t bin_count) {
    if (backend.is_cuda()) { PK_CUDA_ONLY(return detail::cuda_side::histogram(backend, bins, n, counts, bin_count);) }
    detail::histogram_with(CpuExec(backend), bins, n, counts, bin_count);
}

#define PK_INSTANTIATE_SORT(K)                                                                                  \
    template std::size_t sort_pairs_scratch_bytes<K>(const Backend&, std::size_t);                            \
    template void sort_pairs<K>(const Backend&, Workspace&, const K*, K*, const std::uint32_t*, std::uint32_t*, \
                                std::size_t, int, int);
#define PK_INSTANTIATE_SCAN(T)                                                          \
    template std::size_t exclusive_sum_scratch_bytes<T>(const Backend&, std::size_t); \
    template void exclusive_sum<T>(const Backend&, Workspace&, const T*, T*, std::size_t);
#define PK_INSTANTIATE_REDUCE(T, Acc)                                                          \
    template std::size_t reduce_scratch_bytes<T, Acc>(const Backend&, std::size_t);         \
    template void reduce<T, Acc>(const Backend&, Workspace&, ReduceKind, const T*, std::size_t, Acc*);

PK_INSTANTIATE_SORT(std::uint32_t)
PK_INSTANTIATE_SORT(std::uint64_t)
PK_INSTANTIATE_SCAN(std::uint32_t)
PK_INSTANTIATE_SCAN(std::uint64_t)
PK_INSTANTIATE_REDUCE(float, double)
PK_INSTANTIATE_REDUCE(double, double)
PK_INSTANTIATE_REDUCE(float, float)
PK_INSTANTIATE_REDUCE(std::uint32_t, std::uint64_t)
PK_INSTANTIATE_REDUCE(std::uint32_t, std::uint32_t)

}  // namespace partikel
