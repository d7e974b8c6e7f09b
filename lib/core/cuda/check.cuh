// Every CUDA call and kernel launch is checked; failures become DeviceError with file:line,
// the CUDA error name and its message.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "base/error.hpp"

namespace partikel::cuda_rt {

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* what, const char* file, int line);

inline void check(cudaError_t code, const char* what, const char* file, int line) {
    if (code != cudaSuccess) throw_cuda_error(code, what, file, line);
}

}  // namespace partikel::cuda_rt

#define PK_CUDA_CHECK(call) ::partikel::cuda_rt::check((call), #call, __FILE__, __LINE__)
// After a launch: catches configuration errors at once (no synchronisation).
#define PK_CUDA_CHECK_LAUNCH(label) ::partikel::cuda_rt::check(cudaGetLastError(), label, __FILE__, __LINE__)
