// CUDA instantiation of the CellGrid build (cell_grid_impl.hpp); the CPU one is in cell_grid.cpp.
#include "core/cuda/exec_cuda.cuh"
#include "frnn/cell_grid_impl.hpp"

namespace partikel::frnn::cuda_side {

std::size_t cell_grid_scratch_bytes(const Backend& backend, std::size_t cells, std::size_t n) {
    return frnn::cell_grid_scratch_bytes(CudaExec(backend), cells, n);
}

void cell_grid_build_phase(CellGrid::Impl& g, const Vec3f* positions, std::size_t n, int phase) {
    frnn::cell_grid_build_phase(CudaExec(g.backend), g, positions, n, phase);
}

}  // namespace partikel::frnn::cuda_side
