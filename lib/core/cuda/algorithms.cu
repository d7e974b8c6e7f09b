// The CudaExec operations that core/algorithms.hpp's host API reaches, instantiated once here
// (the list is that header's comment).
#include "core/algorithms.hpp"
#include "core/cuda/exec_cuda.cuh"

namespace partikel {

#define PK_SORT(K) template std::size_t CudaExec::sort_pairs_scratch_bytes<K, std::uint32_t>(std::size_t) const; \
    template void CudaExec::sort_pairs<K, std::uint32_t>(Workspace&, const K*, K*, const std::uint32_t*, std::uint32_t*, \
                                                         std::size_t, int, int) const;
#define PK_SCAN(T) template std::size_t CudaExec::exclusive_sum_scratch_bytes<T>(std::size_t) const; \
    template void CudaExec::exclusive_sum<T>(Workspace&, const T*, T*, std::size_t) const;
#define PK_REDUCE_SCRATCH(Acc) template std::size_t CudaExec::reduce_scratch_bytes<Acc, SumOp>(std::size_t) const; \
    template std::size_t CudaExec::reduce_scratch_bytes<Acc, MinOp>(std::size_t) const;                            \
    template std::size_t CudaExec::reduce_scratch_bytes<Acc, MaxOp>(std::size_t) const;
#define PK_REDUCE_OP(T, Acc, Op) template void CudaExec::transform_reduce<Acc, LoadAs<T, Acc>, Op>(Workspace&, std::size_t, const LoadAs<T, Acc>&, \
                                                                      Op, Acc, Acc*) const;
#define PK_REDUCE(T, Acc) PK_REDUCE_OP(T, Acc, SumOp) PK_REDUCE_OP(T, Acc, MinOp) PK_REDUCE_OP(T, Acc, MaxOp)

PK_SORT(std::uint32_t)
PK_SORT(std::uint64_t)
PK_SCAN(std::uint32_t)
PK_SCAN(std::uint64_t)
PK_REDUCE_SCRATCH(double)
PK_REDUCE_SCRATCH(float)
PK_REDUCE_SCRATCH(std::uint64_t)
PK_REDUCE_SCRATCH(std::uint32_t)
PK_REDUCE(float, double)
PK_REDUCE(double, double)
PK_REDUCE(float, float)
PK_REDUCE(std::uint32_t, std::uint64_t)
PK_REDUCE(std::uint32_t, std::uint32_t)
template void CudaExec::for_each<CountIntoBins>(std::size_t, const CountIntoBins&, const char*) const;

}  // namespace partikel
