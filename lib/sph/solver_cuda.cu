#include "core/cuda/exec_cuda.cuh"
#include "sph/solver_impl.hpp"

namespace partikel::sph {
PK_SPH_SOLVER_INSTANTIATE(CudaExec)
}
