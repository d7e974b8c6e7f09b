#include "core/exec_cpu.hpp"
#include "pic/track_impl.hpp"

namespace partikel::pic {
PK_PIC_TRACK_INSTANTIATE(CpuExec)
}
