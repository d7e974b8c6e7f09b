// CUDA instantiation of the NeighborList passes (neighbor_list_impl.hpp).
#include "core/cuda/exec_cuda.cuh"
#include "frnn/neighbor_list_impl.hpp"

namespace partikel::frnn::cuda_side {

std::size_t neighbor_list_scratch_bytes(const Backend& backend, std::size_t rows) {
    return frnn::neighbor_list_scratch_bytes(CudaExec(backend), rows);
}

void neighbor_list_phase(NeighborList::Impl& L, const CellGridView& grid, const std::uint32_t* s2o, int group_log2,
                         int phase) {
    frnn::neighbor_list_phase(CudaExec(L.backend), L, grid, s2o, group_log2, phase);
}

}  // namespace partikel::frnn::cuda_side
