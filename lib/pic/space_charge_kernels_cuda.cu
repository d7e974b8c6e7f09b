#include "core/cuda/exec_cuda.cuh"
#include "pic/space_charge_kernels_impl.hpp"

namespace partikel::pic {
PK_PIC_SPACE_CHARGE_INSTANTIATE(CudaExec)
}
