#include "core/cuda/exec_cuda.cuh"
#include "pic/track_impl.hpp"

namespace partikel::pic {
PK_PIC_TRACK_INSTANTIATE(CudaExec)
}
