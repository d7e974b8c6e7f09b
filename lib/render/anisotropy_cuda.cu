#include "core/cuda/exec_cuda.cuh"
#include "render/anisotropy_impl.hpp"

namespace partikel::render {
PK_RENDER_ANISOTROPY_INSTANTIATE(CudaExec)
}
