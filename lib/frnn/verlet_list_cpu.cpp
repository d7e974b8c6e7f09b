#include "core/exec_cpu.hpp"
#include "frnn/verlet_list_impl.hpp"

namespace partikel::frnn {
PK_FRNN_VERLET_LIST_INSTANTIATE(CpuExec)
}
