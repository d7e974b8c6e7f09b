#include "core/exec_cpu.hpp"
#include "pic/moments_impl.hpp"

namespace partikel::pic {
PK_PIC_MOMENTS_INSTANTIATE(CpuExec)
}
