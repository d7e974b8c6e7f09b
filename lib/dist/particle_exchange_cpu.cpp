#include "core/exec_cpu.hpp"
#include "dist/particle_exchange_impl.hpp"

namespace partikel::dist {
PK_DIST_PARTICLE_EXCHANGE_INSTANTIATE(CpuExec)
}  // namespace partikel::dist
