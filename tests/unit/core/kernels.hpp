// A small kernel family used by the core tests: it exercises for_each and atomics through the
// same instantiation pattern every library family uses (kernels_impl.hpp + .cpp + .cu).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/backend.hpp"

namespace partikel::test {

// y[i] = a * x[i] + y[i]
void saxpy(const Backend& backend, std::size_t n, float a, const float* x, float* y);
// counts[values[i] % bins] += 1 and max_out = max(values) using atomic_add / atomic_max;
// min_float_out = min(floats) with atomic_min on floats (negative and positive values).
void atomic_checks(const Backend& backend, std::size_t n, const std::uint32_t* values, std::uint32_t bins,
                   std::uint32_t* counts, std::uint32_t* max_out, const float* floats, float* min_float_out,
                   float* max_float_out);

}  // namespace partikel::test
