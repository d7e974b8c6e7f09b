// Smoothing kernels (support 2h), written once for both backends.
//
// The gradient is returned as a scalar F with grad_a W_ab = F(r_ab) * r_ab (r_ab = r_a - r_b),
// so no 1/|r| appears and the self pair (r = 0) is well defined (F finite, gradient zero).
#pragma once

#include <cmath>
#include <numbers>

#include "base/hd.hpp"
#include "core/fast_math.hpp"

namespace partikel::sph {

enum class KernelKind { wendland_c2, cubic_spline };

inline constexpr float kPi = std::numbers::pi_v<float>;

// The pair terms' square root and divisions (here and in rates.hpp) use
// core/fast_math.hpp: the hardware approximations on the GPU (within 2 ulp; the CPU keeps IEEE).
// CPU and GPU results differ by rounding anyway (the gpu tests compare within tolerances); GPU
// runs stay repeatable.

// |r| from r^2.
PK_DEVICE_INLINE float distance_of(float r2) { return approx_sqrt(r2); }

// Wendland C2 ("quintic", Wendland 1995), q = r/h < 2:
//   W = 21/(16 pi h^3) (1 - q/2)^4 (2q + 1)
//   grad W = -105/(16 pi h^5) (1 - q/2)^3 r      [= -(210/(256 pi h^5)) (2 - q)^3 r]
// Werner (2015), eq. 3.11, prints 12 for the 21: a typo. The normalisation is checked by
// tests/unit/sph/test_kernel.cpp (integral of W over R^3 = 1).
struct WendlandC2 {
    float h;
    float half_inv_h;  // 1/(2h)
    float w_norm;      // 21/(16 pi h^3)
    float grad_norm;   // -105/(16 pi h^5)
    PK_HD explicit WendlandC2(float h_)
        : h(h_),
          half_inv_h(0.5f / h_),
          w_norm(21.0f / (16.0f * kPi * h_ * h_ * h_)),
          grad_norm(-105.0f / (16.0f * kPi * h_ * h_ * h_ * h_ * h_)) {}
    PK_DEVICE_INLINE float support() const { return 2.0f * h; }  // m: W = 0 beyond
    // s = 1 - q/2 = 1 - r/(2h), clamped at zero from q = 2 on: no branch in the pair body.
    PK_DEVICE_INLINE float W(float r2) const {
        const float q_half = distance_of(r2) * half_inv_h;
        const float s = max_of(1.0f - q_half, 0.0f);
        const float s2 = s * s;
        return w_norm * s2 * s2 * (4.0f * q_half + 1.0f);
    }
    PK_DEVICE_INLINE float grad_factor(float r2) const {
        const float s = max_of(1.0f - distance_of(r2) * half_inv_h, 0.0f);
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
    PK_DEVICE_INLINE float support() const { return 2.0f * h; }  // m: W = 0 beyond
    PK_DEVICE_INLINE float W(float r2) const {
        const float q = distance_of(r2) * inv_h;
        if (q < 1.0f) return sigma * (1.0f - 1.5f * q * q + 0.75f * q * q * q);
        if (q < 2.0f) {
            const float s = 2.0f - q;
            return 0.25f * sigma * s * s * s;
        }
        return 0.0f;
    }
    PK_DEVICE_INLINE float grad_factor(float r2) const {
        const float q = distance_of(r2) * inv_h;
        if (q < 1.0f) return sigma_over_h2 * (-3.0f + 2.25f * q);
        if (q < 2.0f) {
            const float s = 2.0f - q;
            return approx_divide(-0.75f * sigma_over_h2 * s * s, q);
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
    PK_DEVICE_INLINE float support() const { return kind == KernelKind::wendland_c2 ? wendland.support() : cubic.support(); }
    PK_DEVICE_INLINE float W(float r2) const { return kind == KernelKind::wendland_c2 ? wendland.W(r2) : cubic.W(r2); }
    PK_DEVICE_INLINE float grad_factor(float r2) const {
        return kind == KernelKind::wendland_c2 ? wendland.grad_factor(r2) : cubic.grad_factor(r2);
    }
};

}  // namespace partikel::sph
