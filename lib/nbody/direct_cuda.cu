#include "core/cuda/exec_cuda.cuh"
#include "nbody/direct_impl.hpp"

namespace partikel::nbody {
PK_NBODY_DIRECT_INSTANTIATE(CudaExec)
}
