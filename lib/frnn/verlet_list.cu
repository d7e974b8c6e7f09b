// CUDA instantiation of the Verlet displacement reduction (verlet_list_impl.hpp).
#include "core/cuda/exec_cuda.cuh"
#include "frnn/verlet_list_impl.hpp"

namespace partikel::frnn::cuda_side {

std::size_t max_displacement2_scratch(const Backend& backend, std::size_t n) {
    return frnn::max_displacement2_scratch(CudaExec(backend), n);
}

void max_displacement2(const Backend& backend, Workspace& ws, const Vec3f* positions, const Vec3f* reference,
                       const Box& box, std::size_t n, float* out) {
    max_displacement2_with(CudaExec(backend), ws, positions, reference, box, n, out);
}

void count_neighbors(const Backend& backend, const VerletView& view, const Vec3f* positions, std::size_t n,
                     std::uint32_t* counts) {
    count_verlet_neighbors_with(CudaExec(backend), view, positions, n, counts);
}

}  // namespace partikel::frnn::cuda_side
