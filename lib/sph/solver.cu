// CUDA instantiation of the solver's kernels (solver_impl.hpp); solver.cpp dispatches here.
#include "core/cuda/exec_cuda.cuh"
#include "sph/solver_impl.hpp"

namespace partikel::sph {

std::size_t workspace_bytes_cuda(const Backend& backend, std::size_t capacity) {
    return workspace_bytes_impl(CudaExec(backend), capacity);
}
void sort_by_cell_cuda(SolverState& s, bool with_step_start) {
    sort_by_cell_impl(CudaExec(s.backend), s, with_step_start);
}
void advance_cuda(SolverState& s) { advance_impl(CudaExec(s.backend), s); }
Diagnostics compute_diagnostics_cuda(SolverState& s) { return compute_diagnostics_impl(CudaExec(s.backend), s); }

}  // namespace partikel::sph
