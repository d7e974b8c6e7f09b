#include "core/cuda/exec_cuda.cuh"
#include "kernels_impl.hpp"

namespace partikel::test {

void saxpy_cuda(const Backend& backend, std::size_t n, float a, const float* x, float* y) {
    saxpy_impl(CudaExec(backend), n, a, x, y);
    backend.synchronize();
}

void atomic_checks_cuda(const Backend& backend, std::size_t n, const std::uint32_t* values, std::uint32_t bins,
                        std::uint32_t* counts, std::uint32_t* max_out, const float* floats, float* min_float_out,
                        float* max_float_out) {
    atomic_checks_impl(CudaExec(backend), n, values, bins, counts, max_out, floats, min_float_out, max_float_out);
    backend.synchronize();
}

}  // namespace partikel::test
