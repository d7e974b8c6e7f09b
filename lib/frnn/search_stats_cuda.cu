#include "core/cuda/exec_cuda.cuh"
#include "frnn/search_stats_impl.hpp"

namespace partikel::frnn {
PK_FRNN_SEARCH_STATS_INSTANTIATE(CudaExec)
}
