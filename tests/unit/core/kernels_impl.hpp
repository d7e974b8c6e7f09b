#pragma once

#include "core/atomics.hpp"
#include "core/launch.hpp"
#include "kernels.hpp"

namespace partikel::test {

struct Saxpy {
    float a;
    const float* x;
    float* y;
    PK_HD void operator()(std::size_t i) const { y[i] = a * x[i] + y[i]; }
};

struct AtomicChecks {
    const std::uint32_t* values;
    std::uint32_t bins;
    std::uint32_t* counts;
    std::uint32_t* max_out;
    const float* floats;
    float* min_float_out;
    float* max_float_out;
    PK_HD void operator()(std::size_t i) const {
        atomic_add(&counts[values[i] % bins], 1u);
        atomic_max(max_out, values[i]);
        atomic_min(min_float_out, floats[i]);
        atomic_max(max_float_out, floats[i]);
    }
};

template <class Exec> void saxpy_impl(const Exec& exec, std::size_t n, float a, const float* x, float* y) {
    exec.for_each(n, Saxpy{a, x, y}, "test.saxpy");
}

template <class Exec>
void atomic_checks_impl(const Exec& exec, std::size_t n, const std::uint32_t* values, std::uint32_t bins,
                        std::uint32_t* counts, std::uint32_t* max_out, const float* floats, float* min_float_out,
                        float* max_float_out) {
    exec.for_each(n, AtomicChecks{values, bins, counts, max_out, floats, min_float_out, max_float_out},
                  "test.atomics");
}

void saxpy_cuda(const Backend& backend, std::size_t n, float a, const float* x, float* y);
void atomic_checks_cuda(const Backend& backend, std::size_t n, const std::uint32_t* values, std::uint32_t bins,
                        std::uint32_t* counts, std::uint32_t* max_out, const float* floats, float* min_float_out,
                        float* max_float_out);

}  // namespace partikel::test
