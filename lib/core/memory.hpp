// Raw memory on a backend: device memory (cudaMalloc on CUDA, 64-byte aligned host memory on
// the CPU) and pinned host memory for overlapped transfers. Typed owners are in buffer.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/backend.hpp"

namespace partikel {

// Allocate `bytes` of memory the backend's kernels can use. Throws OutOfMemoryError saying how
// much was requested and how much is free. Zero bytes gives nullptr.
void* device_allocate(const Backend& backend, std::size_t bytes);
void device_free(const Backend& backend, void* pointer) noexcept;

// Page-locked host memory on CUDA (plain aligned memory on the CPU backend).
void* pinned_allocate(const Backend& backend, std::size_t bytes);
void pinned_free(const Backend& backend, void* pointer) noexcept;

enum class CopyDirection { host_to_device, device_to_host, device_to_device };

// Copy on the backend's stream. Synchronous unless `async`; async host copies need pinned
// host memory to overlap with kernels.
void copy_bytes(const Backend& backend, void* dst, const void* src, std::size_t bytes,
                CopyDirection direction, bool async = false);
void fill_bytes(const Backend& backend, void* dst, int value, std::size_t bytes);

// Number of device_allocate calls so far in this process. Tests assert that a step loop
// adds none ("no allocation inside the step loop").
std::uint64_t device_allocation_count();

}  // namespace partikel
