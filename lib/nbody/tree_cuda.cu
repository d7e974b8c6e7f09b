#include "core/cuda/exec_cuda.cuh"
#include "nbody/tree_impl.hpp"

namespace partikel::nbody {
PK_NBODY_TREE_INSTANTIATE(CudaExec)
}
