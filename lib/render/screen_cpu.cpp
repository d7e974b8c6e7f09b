#include "core/exec_cpu.hpp"
#include "render/screen_impl.hpp"

namespace partikel::render {
PK_RENDER_SCREEN_INSTANTIATE(CpuExec)
}
