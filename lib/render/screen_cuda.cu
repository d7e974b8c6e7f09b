#include "core/cuda/exec_cuda.cuh"
#include "render/screen_impl.hpp"

namespace partikel::render {
PK_RENDER_SCREEN_INSTANTIATE(CudaExec)
}
