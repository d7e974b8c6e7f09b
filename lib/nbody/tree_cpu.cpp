#include "core/exec_cpu.hpp"
#include "nbody/tree_impl.hpp"

namespace partikel::nbody {
PK_NBODY_TREE_INSTANTIATE(CpuExec)
}
