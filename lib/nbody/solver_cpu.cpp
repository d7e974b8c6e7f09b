#include "core/exec_cpu.hpp"
#include "nbody/solver_impl.hpp"

namespace partikel::nbody {
PK_NBODY_SOLVER_INSTANTIATE(CpuExec)
}
