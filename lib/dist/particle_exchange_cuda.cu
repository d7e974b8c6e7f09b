#include "core/cuda/exec_cuda.cuh"
#include "dist/particle_exchange_impl.hpp"

namespace partikel::dist {
PK_DIST_PARTICLE_EXCHANGE_INSTANTIATE(CudaExec)
}  // namespace partikel::dist
