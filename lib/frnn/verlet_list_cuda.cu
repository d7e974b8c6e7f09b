#include "core/cuda/exec_cuda.cuh"
#include "frnn/verlet_list_impl.hpp"

namespace partikel::frnn {
PK_FRNN_VERLET_LIST_INSTANTIATE(CudaExec)
}
