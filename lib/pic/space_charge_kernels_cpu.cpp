#include "core/exec_cpu.hpp"
#include "pic/space_charge_kernels_impl.hpp"

namespace partikel::pic {
PK_PIC_SPACE_CHARGE_INSTANTIATE(CpuExec)
}
