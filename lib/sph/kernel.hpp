// Smoothing kernels (support 2h), written once for both backends.
//
// The gradient is returned as a scalar F with grad_a W_ab = F(r_ab) * r_ab (r_ab = r_a - r_b),
// so no 1/|r| appears and the self pair (r = 0) is well defined (F finite, gradient zero).
#pragma once

#include <cmath>

#include "core/launch.hpp"

namespace partikel::sph {

enum class KernelKind { wendland_c2, cubic_spline };

inline constexpr float kPi = 3.14159265358979f;

// The pair terms' square root and divisions. On the GPU they use the hardware approximations
// (MUFU.RSQ, MUFU.RCP: within 2 ulp) instead of the correctly rounded sequences with their
// special-case branches: 10% of a rates pass on an H100 (docs/PERFORMANCE.md). CPU and GPU
// results differ by rounding anyway (the gpu tests compare within tolerances); GPU runs stay
// repeatable.

// q = |r| / h from r^2 (r2 = 0 gives q = 0).
PK_DEVICE_INLINE float q_of(float r2, float inv_h) {
#if defined(__CUDA_ARCH__)
    return r2 * rsqrtf(fmaxf(r2, 1e-30f)) * inv_h;
#else
    return sqrtf(r2) * inv_h;
#endif
}

// a / b for |b| in [2^-126, 2^126] (the pair terms' denominators are).
PK_DEVICE_INLINE float divide(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fdividef(a, b);
#else
    return a / b;
#endif
}

// Wendland C2 ("quintic", Wendland 1995), q = r/h < 2:
//   W = 21/(16 pi h^3) (1 - q/2)^4 (2q + 1)
//   grad W = -105/(16 pi h^5) (1 - q/2)^3 r      [= -(210/(256 pi h^5)) (2 - q)^3 r]
// Seed 000 eq. 3.11 prints 12 for the 21 (typo; BRIEF 5.1). The normalisation is checked by
// tests/unit/sph/test_kernel.cpp (integral of W over R^3 = 1).
struct WendlandC2 {
    float h;
    float inv_h;      // 1/h
    float w_norm;     // 21/(16 pi h^3)
    float grad_norm;  // -105/(16 pi h^5)
    PK_HD explicit WendlandC2(float h_)
        : h(h_),
          inv_h(1.0f / h_),
          w_norm(21.0f / (16.0f * kPi * h_ * h_ * h_)),
          grad_norm(-105.0f / (16.0f * kPi * h_ * h_ * h_ * h_ * h_)) {}
    PK_DEVICE_INLINE float W(float r2) const {
        const float q = q_of(r2, inv_h);
        if (q >= 2.0f) return 0.0f;
        const float s = 1.0f - 0.5f * q;
        const float s2 = s * s;
        return w_norm * s2 * s2 * (2.0f * q + 1.0f);
    }
    PK_DEVICE_INLINE float grad_factor(float r2) const {
        const float q = q_of(r2, inv_h);
        if (q >= 2.0f) return 0.0f;
        const float s = 1.0f - 0.5f * q;
        return grad_norm * s * s * s;
    }
};

// Cubic spline (M4, Monaghan & Lattanzio 1985), sigma = 1/(pi h^3):
//   W = sigma (1 - 3/2 q^2 + 3/4 q^3) for q < 1,  sigma/4 (2 - q)^3 for 1 <= q < 2
//   dW/dq = sigma (-3q + 9/4 q^2),  -3/4 sigma (2 - q)^2;  F = (dW/dq) / (q h^2)
struct CubicSpline {
    float h;
    float inv_h;          // 1/h
    float sigma;          // 1/(pi h^3)
    float sigma_over_h2;  // 1/(pi h^5)
    PK_HD explicit CubicSpline(float h_)
        : h(h_),
          inv_h(1.0f / h_),
          sigma(1.0f / (kPi * h_ * h_ * h_)),
          sigma_over_h2(1.0f / (kPi * h_ * h_ * h_ * h_ * h_)) {}
    PK_DEVICE_INLINE float W(float r2) const {
        const float q = q_of(r2, inv_h);
        if (q < 1.0f) return sigma * (1.0f - 1.5f * q * q + 0.75f * q * q * q);
        if (q < 2.0f) {
            const float s = 2.0f - q;
            return 0.25f * sigma * s * s * s;
        }
        return 0.0f;
    }
    PK_DEVICE_INLINE float grad_factor(float r2) const {
        const float q = q_of(r2, inv_h);
        if (q < 1.0f) return sigma_over_h2 * (-3.0f + 2.25f * q);
        if (q < 2.0f) {
            const float s = 2.0f - q;
            return divide(-0.75f * sigma_over_h2 * s * s, q);
        }
        return 0.0f;
    }
};

// The kernel chosen at run time, constants precomputed once; the branch is uniform across a
// launch.
struct SmoothingKernel {
    KernelKind kind;
    WendlandC2 wendland;
    CubicSpline cubic;
    PK_HD SmoothingKernel(KernelKind kind_, float h) : kind(kind_), wendland(h), cubic(h) {}
    PK_DEVICE_INLINE float W(float r2) const { return kind == KernelKind::wendland_c2 ? wendland.W(r2) : cubic.W(r2); }
    PK_DEVICE_INLINE float grad_factor(float r2) const {
        return kind == KernelKind::wendland_c2 ? wendland.grad_factor(r2) : cubic.grad_factor(r2);
    }
};

}  // namespace partikel::sph
