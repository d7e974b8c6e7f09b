// Viscous pair terms of weakly compressible SPH, as evaluators the rates pass composes
// (rates.hpp). Each takes the pair quantities the pass already has, so that no term recomputes
// a distance or a reciprocal.
#pragma once

#include "base/hd.hpp"
#include "base/vec.hpp"

namespace partikel::sph {

// Monaghan's artificial viscosity (Monaghan 1992; Werner 2015, eqs. 3.26-3.27):
//   Pi_ab = -alpha c0 mu_ab / rho_bar_ab  if v_ab . r_ab < 0, else 0,
//   mu_ab = h v_ab . r_ab / (r_ab^2 + eta^2),  rho_bar_ab = (rho_a + rho_b) / 2.
struct ArtificialViscosity {
    float minus_two_alpha_c0;  // -2 alpha c0 (m/s): the 2 turns 1/rho_bar into 1/(rho_a + rho_b)
    static ArtificialViscosity make(float alpha, float c0) { return {-2.0f * alpha * c0}; }
    // vr = v_ab . r_ab, inv_rho_sum = 1 / (rho_a + rho_b).
    PK_DEVICE_INLINE float Pi(float vr, float mu_ab, float inv_rho_sum) const {
        return vr < 0.0f ? minus_two_alpha_c0 * mu_ab * inv_rho_sum : 0.0f;
    }
};

// Laminar viscosity (Lo & Shao 2002), as an acceleration of a:
//   4 m_b nu (r_ab . grad W_ab) / ((rho_a + rho_b) (r_ab^2 + eta^2)) v_ab,   r_ab . grad W = F r^2.
struct LaminarViscosity {
    float nu;  // m^2/s; 0: off
    PK_DEVICE_INLINE Vec3f acceleration(float m_b, float F, float r2, float inv_rho_sum, float inv_r2_eta2,
                                        Vec3f v_ab) const {
        return (4.0f * m_b * nu * F * r2 * inv_rho_sum * inv_r2_eta2) * v_ab;
    }
};

// XSPH velocity correction (Monaghan 1989; Werner 2015, eq. 3.23), summed as
// epsilon sum_b 2 m_b W_ab / (rho_a + rho_b) (v_b - v_a); the pass scales by epsilon at the end.
struct XsphCorrection {
    float epsilon;  // 0..1; 0: off
    PK_DEVICE_INLINE Vec3f term(float m_b, float W_ab, float inv_rho_sum, Vec3f v_ba) const {
        return (2.0f * m_b * W_ab * inv_rho_sum) * v_ba;
    }
};

}  // namespace partikel::sph
