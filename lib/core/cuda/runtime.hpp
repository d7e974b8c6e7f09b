// Thin wrappers over the CUDA runtime, callable from plain C++ files (no CUDA headers here).
// Implemented in runtime.cu; present only in CUDA builds (PARTIKEL_HAVE_CUDA).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/backend.hpp"

namespace partikel::cuda_rt {

// Never throws. `reason` says why the list is empty.
std::vector<CudaDeviceInfo> devices(std::string* reason);
// `high_priority`: the device's greatest stream priority (its blocks are scheduled first).
void* stream_create(int device, bool high_priority = false);
void stream_destroy(int device, void* stream) noexcept;
void stream_synchronize(int device, void* stream);
void* malloc_device(int device, std::size_t bytes);
void free_device(int device, void* pointer) noexcept;
void* malloc_pinned(int device, std::size_t bytes);
void free_pinned(int device, void* pointer) noexcept;
void copy(int device, void* stream, void* dst, const void* src, std::size_t bytes, int direction, bool async);
void memset(int device, void* stream, void* dst, int value, std::size_t bytes);
std::string runtime_version();   // "13.0 (driver 13.0)"

}  // namespace partikel::cuda_rt

namespace partikel::cuda_rt {
void* event_create(int device, bool timing = true);  // timing false: cheaper, for ordering only
void event_destroy(int device, void* event) noexcept;
void event_record(int device, void* event, void* stream);
// Milliseconds between two recorded events; waits for `stop`.
float event_elapsed_ms(int device, void* start, void* stop);
bool event_query(int device, void* event);  // true when the recorded work has finished
void event_synchronize(int device, void* event);
void stream_wait_event(int device, void* stream, void* event);
}  // namespace partikel::cuda_rt
