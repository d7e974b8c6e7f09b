#include "core/cuda/exec_cuda.cuh"
#include "kernels_impl.hpp"

namespace partikel::test {
PK_TEST_KERNELS_INSTANTIATE(CudaExec)
}
