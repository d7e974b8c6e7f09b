#include "core/cuda/exec_cuda.cuh"
#include "pic/moments_impl.hpp"

namespace partikel::pic {
PK_PIC_MOMENTS_INSTANTIATE(CudaExec)
}
