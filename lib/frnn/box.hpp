// The periodic box and the minimum-image displacement that the cell grid, the neighbour lists
// and the brute-force oracle all use, so that every one of them computes r_ij and |r_ij|^2 with
// the same float operations on the CPU and on the GPU.
#pragma once

#include <math.h>

#include <cstdint>

#include "base/hd.hpp"
#include "base/vec.hpp"

namespace partikel::frnn {

namespace detail {
// Float products and sums that the compiler may not fuse into FMAs, so that r2 and the minimum
// image are bit-identical on both backends (the neighbour test at exactly r depends on it).
PK_DEVICE_INLINE float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
PK_DEVICE_INLINE float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
}  // namespace detail

struct Box {
    Vec3f length{};                  // m, box edge per axis (used on periodic axes)
    Vec3f inv_length{};              // 1/m
    std::uint8_t periodic_mask = 0;  // bit a set: axis a is periodic

    // r_ij = a - b, wrapped to the nearest image on periodic axes: d -= L * rint(d / L).
    PK_DEVICE_INLINE Vec3f displacement(Vec3f a, Vec3f b) const {
        Vec3f d = a - b;
        if (periodic_mask) {
            if (periodic_mask & 1u) d.x -= detail::mul_rn(length.x, rintf(detail::mul_rn(d.x, inv_length.x)));
            if (periodic_mask & 2u) d.y -= detail::mul_rn(length.y, rintf(detail::mul_rn(d.y, inv_length.y)));
            if (periodic_mask & 4u) d.z -= detail::mul_rn(length.z, rintf(detail::mul_rn(d.z, inv_length.z)));
        }
        return d;
    }
};

// |d|^2 without FMA contraction.
PK_DEVICE_INLINE float distance2(Vec3f d) {
    return detail::add_rn(detail::add_rn(detail::mul_rn(d.x, d.x), detail::mul_rn(d.y, d.y)),
                          detail::mul_rn(d.z, d.z));
}

// Wraps positions on periodic axes into [lo, lo + length): what keeps moving particles inside a
// periodic box (the minimum image of Box::displacement then finds their neighbours across it).
struct PeriodicWrap {
    std::uint8_t mask = 0;  // bit a set: axis a is periodic
    Vec3f lo{}, length{};   // m
    PK_DEVICE_INLINE Vec3f operator()(Vec3f x) const {
        for (int k = 0; k < 3; ++k)
            if ((mask >> k) & 1u) x[k] -= length[k] * floorf((x[k] - lo[k]) / length[k]);
        return x;
    }
};

}  // namespace partikel::frnn
