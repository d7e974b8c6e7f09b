// Density diffusion of delta-SPH, as evaluators the rates pass composes (rates.hpp).
//
// Molteni & Colagrossi (2009): drho_a/dt += delta h c0 sum_b psi_ab . grad W_ab m_b / rho_b,
// psi_ab = 2 (rho_b - rho_a) r_ba / r^2. Fourtakas et al. (2019) subtract the hydrostatic part
// rho_b^H - rho_a^H, linearised in the pressure difference: -rho0 g . r_ab / c0^2.
#pragma once

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "core/fast_math.hpp"

namespace partikel::sph {

struct NoDensityDiffusion {
    static constexpr bool enabled = false;
    PK_DEVICE_INLINE float rate(float, float, Vec3f, float, float, float) const { return 0.0f; }
};

struct DensityDiffusionTerm {
    static constexpr bool enabled = true;
    float coefficient;           // 2 delta h c0 (m^2/s): the 2 of psi_ab folded in
    Vec3f hydrostatic_gradient;  // kg/m^4: -rho0 g / c0^2 (Fourtakas), zero (Molteni & Colagrossi)
    // F: grad W_ab = F r_ab; r2_over_r2_eta2 = r^2 / (r^2 + eta^2) (1/r^2 kept finite at r -> 0).
    PK_DEVICE_INLINE float rate(float rho_a, float rho_b, Vec3f r_ab, float F, float r2_over_r2_eta2, float m_b) const {
        const float rho_ba = rho_b - rho_a - dot(hydrostatic_gradient, r_ab);
        return coefficient * rho_ba * (-F) * r2_over_r2_eta2 * approx_divide(m_b, rho_b);
    }
};

}  // namespace partikel::sph
