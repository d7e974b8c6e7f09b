#include "core/exec_cpu.hpp"
#include "frnn/cell_grid_impl.hpp"

namespace partikel::frnn {
PK_FRNN_CELL_GRID_INSTANTIATE(CpuExec)
}
