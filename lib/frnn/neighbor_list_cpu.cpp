#include "core/exec_cpu.hpp"
#include "frnn/neighbor_list_impl.hpp"

namespace partikel::frnn {
PK_FRNN_NEIGHBOR_LIST_INSTANTIATE(CpuExec)
}
