// Choosing the backend at run time. A kernel family's public function runs
//     if (backend.is_cuda()) { PK_CUDA_ONLY(return family_cuda(backend, args);) }
//     return family_impl(CpuExec(backend), args);
// where family_cuda lives in the family's .cu file. In CPU-only builds no CUDA Backend can
// exist (Backend::cuda throws), so the CUDA branch reduces to an unreachable error.
#pragma once

#include "partikel_config.hpp"

namespace partikel {
[[noreturn]] void throw_cuda_not_built();
}

#if PARTIKEL_HAVE_CUDA
#define PK_CUDA_ONLY(...) __VA_ARGS__
#else
#define PK_CUDA_ONLY(...) ::partikel::throw_cuda_not_built();
#endif
