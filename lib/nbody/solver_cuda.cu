#include "core/cuda/exec_cuda.cuh"
#include "nbody/solver_impl.hpp"

namespace partikel::nbody {
PK_NBODY_SOLVER_INSTANTIATE(CudaExec)
}
