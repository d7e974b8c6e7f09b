#include "core/dispatch.hpp"
#include "core/exec_cpu.hpp"
#include "kernels_impl.hpp"

namespace partikel::test {

void saxpy(const Backend& backend, std::size_t n, float a, const float* x, float* y) {
    if (backend.is_cuda()) { PK_CUDA_ONLY(return saxpy_cuda(backend, n, a, x, y);) }
    saxpy_impl(CpuExec(backend), n, a, x, y);
}

void atomic_checks(const Backend& backend, std::size_t n, const std::uint32_t* values, std::uint32_t bins,
                   std::uint32_t* counts, std::uint32_t* max_out, const float* floats, float* min_float_out,
                   float* max_float_out) {
    if (backend.is_cuda()) {
        PK_CUDA_ONLY(return atomic_checks_cuda(backend, n, values, bins, counts, max_out, floats, min_float_out,
                                               max_float_out);)
    }
    atomic_checks_impl(CpuExec(backend), n, values, bins, counts, max_out, floats, min_float_out, max_float_out);
}

}  // namespace partikel::test
