// The velocity-gradient pass of the laminar+SPS viscosity (viscosity.hpp, SpsClosure): before
// each rates pass, every fluid particle sums its strain rate from its neighbours and stores its
// SPS stress tau/rho^2, which the rates pass then reads for a and for b (neighbor_pass.hpp).
#pragma once

#include <cstdint>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "sph/kernel.hpp"
#include "sph/tensor.hpp"
#include "sph/viscosity.hpp"

namespace partikel::sph {

// grad v_a = sum_b (m_b/rho_b) (v_b - v_a) (x) grad_a W_ab over fluid and boundary neighbours
// (a wall's velocity shapes the shear next to it), S = (grad v + grad v^T)/2, then the closure.
// Boundary particles store tau = 0.
struct SpsStressPass {
    static constexpr int kMinBlocksPerSM = 1;
    const Vec4f* position_mass;
    const Vec4f* velocity_density;
    SymTensor* stress_over_rho2_out;
    SmoothingKernel kernel;
    SpsClosure closure;
    struct Particle {
        Vec3f r, v;
        float rho;
        float w;  // signed mass: negative for boundary particles
        std::uint32_t index;
        PK_DEVICE_INLINE bool fluid() const { return w > 0.0f; }
    };
    using Sums = SymTensor;  // S, summed with its off-diagonal components doubled (2 S_ij, i != j)
    PK_DEVICE_INLINE Particle load(std::size_t a) const {
        const Vec4f self = position_mass[a];
        const Vec4f self_v = velocity_density[a];
        return {self.xyz(), self_v.xyz(), self_v.w, self.w, static_cast<std::uint32_t>(a)};
    }
    PK_DEVICE_INLINE bool interacts(const Particle& a) const { return a.fluid(); }
    PK_DEVICE_INLINE void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b,
                               Sums& s) const {
        if (b == a.index) return;
        const Vec4f vr_b = velocity_density[b];
        const Vec3f g = (fabsf(record_b.w) / vr_b.w * kernel.grad_factor(r2)) * r_ab;  // V_b grad W_ab
        const Vec3f dv = vr_b.xyz() - a.v;
        s.xx += dv.x * g.x;
        s.yy += dv.y * g.y;
        s.zz += dv.z * g.z;
        s.yz += dv.y * g.z + dv.z * g.y;
        s.xz += dv.x * g.z + dv.z * g.x;
        s.xy += dv.x * g.y + dv.y * g.x;
    }
    PK_DEVICE_INLINE void finish(std::size_t a, const Particle& self, const Sums& s) const {
        if (!self.fluid()) {
            stress_over_rho2_out[a] = {.xx = 0.0f, .yy = 0.0f, .zz = 0.0f, .yz = 0.0f, .xz = 0.0f, .xy = 0.0f};
            return;
        }
        const SymTensor S{.xx = s.xx, .yy = s.yy, .zz = s.zz, .yz = 0.5f * s.yz, .xz = 0.5f * s.xz, .xy = 0.5f * s.xy};
        stress_over_rho2_out[a] = closure.stress_over_rho2(S, self.rho);
    }
};

}  // namespace partikel::sph
