#include "core/exec_cpu.hpp"
#include "nbody/direct_impl.hpp"

namespace partikel::nbody {
PK_NBODY_DIRECT_INSTANTIATE(CpuExec)
}
