// Viscous pair terms of weakly compressible SPH, as evaluators the rates pass composes
// (rates.hpp). Each takes the pair quantities the pass already has, so that no term recomputes
// a distance or a reciprocal.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "sph/tensor.hpp"

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

// The sub-particle-scale (SPS) turbulence closure of Dalrymple & Rogers (2006, "Numerical
// modeling of water waves with the SPH method", Coastal Engineering 53, 141-147), in the form
// DualSPHysics calls laminar+SPS: from the strain rate S = (grad v + grad v^T)/2 of a particle,
// |S| = sqrt(2 S:S), a Smagorinsky eddy viscosity nu_t = (Cs dx)^2 |S| and the isotropic part of
// Yoshizawa's closure (Blin constant CI),
//   tau/rho = 2 nu_t (S - tr(S)/3 I) - (2/3) CI dx^2 |S|^2 I,
// stored divided by rho once more, tau/rho^2 (m^5/(kg s^2)), for the momentum term
//   dv_a/dt += sum_b m_b (tau_a/rho_a^2 + tau_b/rho_b^2) grad_a W_ab.
struct SpsClosure {
    float smagorinsky_l2;  // (Cs dx)^2, m^2
    float blin_l2;         // (2/3) CI dx^2, m^2
    static SpsClosure make(float cs, float ci, float dx) { return {cs * cs * dx * dx, (2.0f / 3.0f) * ci * dx * dx}; }
    // S: the strain-rate tensor (1/s); rho: the particle's density.
    PK_DEVICE_INLINE SymTensor stress_over_rho2(const SymTensor& S, float rho) const {
        const float S2 = 2.0f * (S.xx * S.xx + S.yy * S.yy + S.zz * S.zz) +
                         4.0f * (S.xy * S.xy + S.xz * S.xz + S.yz * S.yz);  // |S|^2
        const float nu_t = smagorinsky_l2 * sqrtf(S2);
        const float iso = -(2.0f / 3.0f) * nu_t * (S.xx + S.yy + S.zz) - blin_l2 * S2;
        // tau/rho^2 = (tau/rho)/rho
        const float inv_rho = 1.0f / rho;
        const float two_nu_t_rho = 2.0f * nu_t * inv_rho, iso_rho = iso * inv_rho;
        return {.xx = two_nu_t_rho * S.xx + iso_rho,
                .yy = two_nu_t_rho * S.yy + iso_rho,
                .zz = two_nu_t_rho * S.zz + iso_rho,
                .yz = two_nu_t_rho * S.yz,
                .xz = two_nu_t_rho * S.xz,
                .xy = two_nu_t_rho * S.xy};
    }
};

// The SPS stress's momentum term for the pair (a, b), as an acceleration of a:
// m_b (tau_a/rho_a^2 + tau_b/rho_b^2) grad W_ab, grad W_ab = F r_ab. Boundary particles carry
// tau = 0 (as in DualSPHysics): their velocities enter the fluid's strain rate instead.
struct SpsStressTerm {
    const SymTensor* stress_over_rho2;  // per particle (own rows and ghosts); null: off
    PK_DEVICE_INLINE Vec3f acceleration(std::uint32_t a, std::uint32_t b, float m_b, float F, Vec3f r_ab) const {
        return (m_b * F) * ((stress_over_rho2[a] + stress_over_rho2[b]) * r_ab);
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
