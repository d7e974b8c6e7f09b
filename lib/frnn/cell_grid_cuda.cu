#include "core/cuda/exec_cuda.cuh"
#include "frnn/cell_grid_impl.hpp"

namespace partikel::frnn {
PK_FRNN_CELL_GRID_INSTANTIATE(CudaExec)
}
