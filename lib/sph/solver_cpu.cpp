#include "core/exec_cpu.hpp"
#include "sph/solver_impl.hpp"

namespace partikel::sph {
PK_SPH_SOLVER_INSTANTIATE(CpuExec)
}
