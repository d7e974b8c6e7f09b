// Choosing the execution policy at run time, once, where host code holds a Backend:
//
//   with_exec(backend, [&](const auto& exec) { foo(exec, args...); });
//
// calls the lambda with CpuExec or CudaExec (core/exec.hpp). Templated code that already has an
// Exec passes it on instead. In CPU-only builds no CUDA Backend can exist (Backend::cuda
// throws), so only the CpuExec branch is compiled.
#pragma once

#include <utility>

#include "core/exec.hpp"
#include "core/exec_cpu.hpp"
#include "partikel_config.hpp"

namespace partikel {

template <class F> decltype(auto) with_exec(const Backend& backend, F&& f) {
#if PARTIKEL_HAVE_CUDA
    if (backend.is_cuda()) return std::forward<F>(f)(CudaExec(backend));
#endif
    return std::forward<F>(f)(CpuExec(backend));
}

}  // namespace partikel
