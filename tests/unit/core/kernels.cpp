#include "core/exec_cpu.hpp"
#include "kernels_impl.hpp"

namespace partikel::test {
PK_TEST_KERNELS_INSTANTIATE(CpuExec)
}
