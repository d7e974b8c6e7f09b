#include "core/cuda/exec_cuda.cuh"
#include "render/raster_impl.hpp"

namespace partikel::render {
PK_RENDER_RASTER_INSTANTIATE(CudaExec)
}
