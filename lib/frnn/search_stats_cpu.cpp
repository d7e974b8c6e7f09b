#include "core/exec_cpu.hpp"
#include "frnn/search_stats_impl.hpp"

namespace partikel::frnn {
PK_FRNN_SEARCH_STATS_INSTANTIATE(CpuExec)
}
