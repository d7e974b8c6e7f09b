#include "core/exec_cpu.hpp"
#include "render/anisotropy_impl.hpp"

namespace partikel::render {
PK_RENDER_ANISOTROPY_INSTANTIATE(CpuExec)
}
