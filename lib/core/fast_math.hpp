// Square roots, reciprocals and maxima for the hot loops of both backends.
//
// On the GPU these are the hardware approximations (MUFU.RSQ, MUFU.RCP through PTX's
// rsqrt.approx.ftz and rcp.approx.ftz: within 2 ulp, subnormal inputs and results flushed to
// zero) and FMNMX, without the range checks and special-case branches that rsqrtf, __fdividef
// and the IEEE sequences add around them; on the CPU the plain IEEE operations (fmaxf is a
// library call there, hence the comparison). Callers keep their arguments normal and finite
// (see each function), so the two backends differ by rounding only. docs/PERFORMANCE.md
// ("SPH") gives what each saved.
#pragma once

#include <math.h>

#include <cmath>

#include "base/hd.hpp"

namespace partikel {

// 1/sqrt(x) for normal x > 0.
PK_DEVICE_INLINE float approx_rsqrt(float x) {
#if defined(__CUDA_ARCH__)
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return 1.0f / sqrtf(x);
#endif
}

// sqrt(x) for x >= 0 (x below 1e-30 counts as 1e-30 in the GPU's reciprocal square root, which
// keeps it normal: sqrt(0) = 0).
PK_DEVICE_INLINE float approx_sqrt(float x) {
#if defined(__CUDA_ARCH__)
    return x * approx_rsqrt(fmaxf(x, 1e-30f));
#else
    return sqrtf(x);
#endif
}

// 1/x for |x| in [2^-126, 2^126].
PK_DEVICE_INLINE float approx_reciprocal(float x) {
#if defined(__CUDA_ARCH__)
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return 1.0f / x;
#endif
}

// a/b for |b| in [2^-126, 2^126]: one reciprocal and a product on the GPU.
PK_DEVICE_INLINE float approx_divide(float a, float b) {
#if defined(__CUDA_ARCH__)
    return a * approx_reciprocal(b);
#else
    return a / b;
#endif
}

// The larger (smaller) of a and b. A NaN in a gives b, as fmaxf (fminf) does; a NaN in b gives
// either (NaN is caught elsewhere). On the CPU one instruction, where fmaxf is a library call.
PK_DEVICE_INLINE float max_of(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fmaxf(a, b);
#else
    return a > b ? a : b;
#endif
}
PK_DEVICE_INLINE float min_of(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fminf(a, b);
#else
    return a < b ? a : b;
#endif
}

// False for NaN and +-inf (x - x is NaN for both); this project builds without fast-math, so
// the test survives optimisation on both backends.
PK_DEVICE_INLINE bool is_finite(float x) { return x - x == 0.0f; }

// The sign bit of x (also of -0.0f): a flag carried in a float, as the neighbour records carry a
// particle's kind in the sign of its mass.
PK_DEVICE_INLINE bool sign_bit(float x) {
#if defined(__CUDA_ARCH__)
    return (__float_as_uint(x) >> 31) != 0u;
#else
    return std::signbit(x);
#endif
}

// A global load issued where it is written. The compiler otherwise sinks a load into the branch
// that uses it, right before the use, and the memory latency is no longer hidden by the
// arithmetic between (sph's rates pass: 5% of the pass on the H200).
PK_DEVICE_INLINE float load_now(const float* p) {
#if defined(__CUDA_ARCH__)
    float v;
    asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
#else
    return *p;
#endif
}

}  // namespace partikel
