#include "core/exec_cpu.hpp"
#include "render/raster_impl.hpp"

namespace partikel::render {
PK_RENDER_RASTER_INSTANTIATE(CpuExec)
}
