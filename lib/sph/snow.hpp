// The snow models of Sandvik (2021, chapter 4; docs/SNOW.md) as evaluators and interactions for
// the pair loop of neighbor_pass.hpp: Mueller et al.'s (2003) kernels of support h, density by
// summation, the clamped linear equation of state, the Newtonian pressure and viscosity terms,
// the velocity gradient and a rheology's stress tensor, the stress divergence, XSPH and the
// leapfrog update with the half-step velocity kept. Symbols: a is the particle, b its neighbour,
// r_ab = r_a - r_b; grad W_ab is the gradient with respect to r_a.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "core/fast_math.hpp"
#include "frnn/box.hpp"
#include "sph/boundary.hpp"
#include "sph/eos.hpp"
#include "sph/integrators.hpp"
#include "sph/kernel.hpp"
#include "sph/params.hpp"
#include "sph/rates.hpp"
#include "sph/tensor.hpp"

namespace partikel::sph {

// The mass that gives a particle inside a simple cubic lattice of spacing dx the summation
// density rho0 with W_poly6 of support h (kg). For dx >= h only the particle itself counts:
// rho0 / W_poly6(0), the "heavy" particles of Sandvik's (2021) pool.
float muller_lattice_mass(float rho0, float dx_m, float h_m);

PK_DEVICE_INLINE float trace_third(const SymTensor& t) { return (t.xx + t.yy + t.zz) * (1.0f / 3.0f); }

// The kernel-gradient correction L = M^-1 of Bonet & Lok (1999, "Variational and momentum
// preservation aspects of smooth particle hydrodynamic formulations"), M = sum_b V_b (x_b - x_a)
// (x) grad W_ab (symmetric for a radial kernel): sum_b V_b (f_b - f_a) L grad W_ab is then exact
// for linear fields f whatever the neighbourhood. Mueller's spiky gradient summed over a lattice
// with h = 2 dx gives M = 0.947 I, so uncorrected gradients are 5% short there (and a column at
// rest settles 5-7% over the hydrostatic pressure). Where M is nearly singular (a particle with few
// neighbours, or none: Sandvik's pool at rest) L = I.
PK_DEVICE_INLINE SymTensor kernel_gradient_correction(const SymTensor& M) {
    const float c_xx = M.yy * M.zz - M.yz * M.yz, c_xy = M.xz * M.yz - M.xy * M.zz, c_xz = M.xy * M.yz - M.xz * M.yy;
    const float det = M.xx * c_xx + M.xy * c_xy + M.xz * c_xz;
    if (!(det > 0.05f)) return {.xx = 1.0f, .yy = 1.0f, .zz = 1.0f, .yz = 0.0f, .xz = 0.0f, .xy = 0.0f};
    const float inv = 1.0f / det;
    return {.xx = inv * c_xx,
            .yy = inv * (M.xx * M.zz - M.xz * M.xz),
            .zz = inv * (M.xx * M.yy - M.xy * M.xy),
            .yz = inv * (M.xy * M.xz - M.xx * M.yz),
            .xz = inv * c_xz,
            .xy = inv * c_xy};
}

// Mueller, Charypar & Gross (2003), "Particle-based fluid simulation for interactive
// applications", support h:
//   W_poly6 = 315/(64 pi h^9) (h^2 - r^2)^3,
//   grad W_spiky = -45/(pi h^6) (h - r)^2 r/|r|  (returned as F with grad W = F r_ab),
//   lap W_visc = 45/(pi h^6) (h - r).
// Each is zero from r = h on (clamped, no branch).
struct MullerKernels {
    float h, h2;
    float poly6_norm;  // 315/(64 pi h^9)
    float spiky_norm;  // -45/(pi h^6)
    float visc_norm;   // 45/(pi h^6)
    float r_floor;     // m: |r| below it counts as this (coincident particles stay finite)
    PK_HD explicit MullerKernels(float h_)
        : h(h_),
          h2(h_ * h_),
          poly6_norm(315.0f / (64.0f * kPi * h_ * h_ * h_ * h_ * h_ * h_ * h_ * h_ * h_)),
          spiky_norm(-45.0f / (kPi * h_ * h_ * h_ * h_ * h_ * h_)),
          visc_norm(45.0f / (kPi * h_ * h_ * h_ * h_ * h_ * h_)),
          r_floor(1e-4f * h_) {}
    PK_DEVICE_INLINE float poly6(float r2) const {
        const float s = max_of(h2 - r2, 0.0f);
        return poly6_norm * s * s * s;
    }
    // F of the spiky gradient and the viscosity Laplacian together (one square root).
    PK_DEVICE_INLINE float spiky_factor(float r, float s) const { return spiky_norm * s * s * approx_reciprocal(max_of(r, r_floor)); }
    PK_DEVICE_INLINE float visc_laplacian(float s) const { return visc_norm * s; }
    PK_DEVICE_INLINE float gap(float r) const { return max_of(h - r, 0.0f); }  // h - r, clamped
};

// The rheology's stress tau = 2 mu_eff(|D|) D, |D| = sqrt(tr(D^2)/2) (Sandvik 2021, eqs. 4.17-4.20):
//   Bingham:           2 mu_s D if 2 mu_s |D| <= tau_y, else (tau_y/|D| + 2 mu) D
//   Herschel-Bulkley:  2 mu_s D if 2 mu_s |D| <= tau_y, else (tau_y/|D| + 2 mu |D|^(n-1)) D
//   power law:         2 mu |D|^(n-1) D
// with mu |D|^(n-1) capped at mu_s (|D| -> 0 with n < 1).
//   Newtonian:         Herschel-Bulkley with tau_y = 0, n = 1.
struct StressLaw {
    Model model;
    float mu, mu_s, tau_y, n;
    // The effective viscosity mu_eff (tau = 2 mu_eff D), and whether the material yielded.
    PK_DEVICE_INLINE float effective_viscosity(float D_abs, bool& yielded) const {
        if (model == Model::power_law) {
            yielded = true;
            const float m = n == 1.0f ? mu : mu * powf(D_abs, n - 1.0f);
            return fminf(m, mu_s);
        }
        // tau_y = 0 flows at every strain rate (stress 0 at D = 0 either way), so that the
        // Newtonian limit is the same law, time step included, on every path.
        yielded = tau_y == 0.0f || 2.0f * mu_s * D_abs > tau_y;
        if (!yielded) return mu_s;
        const float flow = model == Model::herschel_bulkley && n != 1.0f ? fminf(mu * powf(D_abs, n - 1.0f), mu_s) : mu;
        return (tau_y > 0.0f ? 0.5f * tau_y / D_abs : 0.0f) + flow;
    }
};

// Density by summation including the particle itself (Sandvik 2021, eq. 4.1):
// rho_a = sum_b m_b W_poly6(r_ab), and the pressure record lambda_a p_a with the clamped linear
// equation of state. Boundary particles sum too (they bound the fluid's density). The same pass
// sums M = sum_b V_b (x_b - x_a) (x) grad W_spiky for the kernel-gradient correction, with the
// volumes V_b = m_b/rho_b of the densities the records carry (the last step's: this pass is
// computing the new ones; over one step's change of density the difference is negligible):
// lambda = tr(L)/3 renormalises the pressure term (SnowForces), L itself the stress models'
// velocity gradient and stress divergence (SnowStress).
struct MullerDensity {
    static constexpr int kMinBlocksPerSM = 1;
    MullerKernels kernel;
    ClampedLinearEos eos;
    float* density_out;
    float* pressure_out;            // lambda p, Pa
    SymTensor* correction_out;      // L; null: not wanted (the Newtonian model)
    const Vec4f* velocity_density;  // records: the last step's density in w
    struct Particle {
        Vec3f r;
        std::uint32_t index;
    };
    struct Sums {
        float rho;
        SymTensor M;
    };
    const Vec4f* position_mass;
    PK_DEVICE_INLINE Particle load(std::size_t a) const { return {position_mass[a].xyz(), static_cast<std::uint32_t>(a)}; }
    PK_DEVICE_INLINE bool interacts(const Particle&) const { return true; }
    PK_DEVICE_INLINE void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b,
                               Sums& s) const {
        const float m_b = fabsf(record_b.w);
        s.rho += m_b * kernel.poly6(r2);
        if (b == a.index) return;
        const float r = distance_of(r2);
        const Vec3f g = (m_b * approx_reciprocal(velocity_density[b].w) * kernel.spiky_factor(r, kernel.gap(r))) * r_ab;
        s.M.xx -= r_ab.x * g.x;
        s.M.yy -= r_ab.y * g.y;
        s.M.zz -= r_ab.z * g.z;
        s.M.xy -= r_ab.x * g.y;
        s.M.xz -= r_ab.x * g.z;
        s.M.yz -= r_ab.y * g.z;
    }
    PK_DEVICE_INLINE void finish(std::size_t a, const Particle&, const Sums& s) const {
        const SymTensor L = kernel_gradient_correction(s.M);
        density_out[a] = s.rho;
        pressure_out[a] = trace_third(L) * eos.pressure(s.rho);
        if (correction_out) correction_out[a] = L;
    }
};

// The neighbour records of the snow passes after the density pass: velocity and density (the
// position and signed mass, and the pressure, are written by the gather and the density pass).
struct SnowRecords {
    const Vec3f* velocity;
    const float* density;
    Vec4f* velocity_density;
    PK_DEVICE_INLINE void operator()(std::size_t a) const {
        const Vec3f v = velocity[a];
        velocity_density[a] = {v.x, v.y, v.z, density[a]};
    }
};

// No-slip walls of boundary particles (Adami, Hu & Adams 2012, "A generalized wall boundary
// condition for smoothed particle hydrodynamics"): a boundary particle's record carries the
// velocity 2 v_wall - v~, v~ = sum_f v_f W_poly6 / sum_f W_poly6 over its fluid neighbours, so that
// the velocity passes see the fluid's velocity continued through the wall and vanishing on it
// (boundary particles at the wall velocity alone put the no-slip plane about half a spacing
// inside the wall). Boundary particles only; each writes its own record and reads fluid ones.
struct WallVelocity {
    static constexpr int kMinBlocksPerSM = 1;
    Vec4f* velocity_density;
    const Vec3f* wall_velocity;  // the boundary particles' own (prescribed) velocity
    MullerKernels kernel;
    struct Particle {
        Vec3f r;
        float w;
        PK_DEVICE_INLINE bool fluid() const { return w > 0.0f; }
    };
    struct Sums {
        Vec3f v;
        float weight;
    };
    const Vec4f* position_mass;
    PK_DEVICE_INLINE Particle load(std::size_t a) const {
        const Vec4f rm = position_mass[a];
        return {rm.xyz(), rm.w};
    }
    PK_DEVICE_INLINE bool interacts(const Particle& a) const { return !a.fluid(); }
    PK_DEVICE_INLINE void pair(const Particle&, std::uint32_t b, Vec3f, float r2, const Vec4f& record_b, Sums& s) const {
        if (sign_bit(record_b.w)) return;
        const float W = kernel.poly6(r2);
        s.v += W * velocity_density[b].xyz();
        s.weight += W;
    }
    PK_DEVICE_INLINE void finish(std::size_t a, const Particle& self, const Sums& s) const {
        if (self.fluid() || !(s.weight > 0.0f)) return;
        const Vec3f v = 2.0f * wall_velocity[a] - (1.0f / s.weight) * s.v;
        velocity_density[a] = {v.x, v.y, v.z, velocity_density[a].w};
    }
};

// The velocity gradient, strain rate and stress (Sandvik 2021, eqs. 4.9, 4.10):
//   (grad v)_a = sum_b (m_b/rho_b) (v_b - v_a) (x) grad W_spiky L_a,  D = (grad v + grad v^T)/2,
// then tau by the rheology, |D| and the yielded flag, and the viscous time-step limit
// 0.1 h^2 rho_a / mu_eff. Fluid particles; boundary particles get theirs from WallStress.
struct SnowStress {
    static constexpr int kMinBlocksPerSM = 1;
    const Vec4f* position_mass;
    const Vec4f* velocity_density;
    const SymTensor* correction;  // L (MullerDensity)
    MullerKernels kernel;
    StressLaw law;
    SymTensor* stress;
    Mat3f* corrected_stress;  // tau L: the force pass's stress, with the kernel-gradient correction L
    Mat3f* velocity_gradient;  // grad v (corrected), for the force pass's zero-energy-mode control
    float* effective_viscosity;  // mu_eff, Pa s
    float* strain_rate;
    std::uint8_t* yielded;
    float* dt_limit;
    struct Particle {
        Vec3f r, v;
        float rho;
        float w;
        std::uint32_t index;
    };
    struct Sums {
        Vec3f gx, gy, gz;  // rows of grad v: g{x,y,z} = grad of v_{x,y,z}
    };
    PK_DEVICE_INLINE Particle load(std::size_t a) const {
        const Vec4f vd = velocity_density[a];
        const Vec4f rm = position_mass[a];
        return {rm.xyz(), vd.xyz(), vd.w, rm.w, static_cast<std::uint32_t>(a)};
    }
    PK_DEVICE_INLINE bool interacts(const Particle& a) const { return a.w > 0.0f; }
    PK_DEVICE_INLINE void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b,
                               Sums& s) const {
        if (b == a.index) return;
        const Vec4f vd_b = velocity_density[b];
        const float r = distance_of(r2);
        const float F = kernel.spiky_factor(r, kernel.gap(r));
        const Vec3f g = (fabsf(record_b.w) * approx_reciprocal(vd_b.w) * F) * r_ab;  // V_b grad W_ab
        const Vec3f dv = vd_b.xyz() - a.v;
        s.gx += dv.x * g;
        s.gy += dv.y * g;
        s.gz += dv.z * g;
    }
    PK_DEVICE_INLINE void finish(std::size_t a, const Particle& self, const Sums& s) const {
        // grad v = G L, exact for linear velocity fields (the uncorrected sum of Mueller's spiky
        // gradient over a lattice with h = 2 dx gives 0.95 grad v, and the stress divergence
        // another 0.95).
        const SymTensor L = correction[a];
        const Mat3f Lm{{L.xx, L.xy, L.xz}, {L.xy, L.yy, L.yz}, {L.xz, L.yz, L.zz}};
        // Rows of G L.
        const Vec3f gx = Vec3f{dot(s.gx, Lm.x), dot(s.gx, Lm.y), dot(s.gx, Lm.z)};
        const Vec3f gy = Vec3f{dot(s.gy, Lm.x), dot(s.gy, Lm.y), dot(s.gy, Lm.z)};
        const Vec3f gz = Vec3f{dot(s.gz, Lm.x), dot(s.gz, Lm.y), dot(s.gz, Lm.z)};
        const SymTensor D{.xx = gx.x, .yy = gy.y, .zz = gz.z, .yz = 0.5f * (gy.z + gz.y), .xz = 0.5f * (gx.z + gz.x),
                          .xy = 0.5f * (gx.y + gy.x)};
        velocity_gradient[a] = {gx, gy, gz};
        const float DD = D.xx * D.xx + D.yy * D.yy + D.zz * D.zz + 2.0f * (D.xy * D.xy + D.xz * D.xz + D.yz * D.yz);
        const float D_abs = sqrtf(0.5f * DD);
        bool flowing;
        const float mu_eff = law.effective_viscosity(D_abs, flowing);
        const float two_mu = 2.0f * mu_eff;
        const SymTensor tau{.xx = two_mu * D.xx, .yy = two_mu * D.yy, .zz = two_mu * D.zz,
                            .yz = two_mu * D.yz, .xz = two_mu * D.xz, .xy = two_mu * D.xy};
        stress[a] = tau;
        const Mat3f T{{tau.xx, tau.xy, tau.xz}, {tau.xy, tau.yy, tau.yz}, {tau.xz, tau.yz, tau.zz}};
        // (tau L) rows: row_i . columns of L (L symmetric: its rows).
        corrected_stress[a] = {{dot(T.x, Lm.x), dot(T.x, Lm.y), dot(T.x, Lm.z)},
                               {dot(T.y, Lm.x), dot(T.y, Lm.y), dot(T.y, Lm.z)},
                               {dot(T.z, Lm.x), dot(T.z, Lm.y), dot(T.z, Lm.z)}};
        strain_rate[a] = D_abs;
        effective_viscosity[a] = mu_eff;
        yielded[a] = flowing ? 1u : 0u;
        dt_limit[a] = mu_eff > 0.0f ? 0.1f * kernel.h2 * self.rho / mu_eff : __builtin_huge_valf();
    }
};

// The stress of boundary particles: the Shepard average sum_f tau_f W / sum_f W of their fluid
// neighbours' (Adami, Hu & Adams 2012 extrapolate the wall pressure the same way), so that the
// stress divergence of a fluid particle next to a wall sees the stress continued through it.
// Boundary particles only; each writes its own stress and reads fluid ones.
struct WallStress {
    static constexpr int kMinBlocksPerSM = 1;
    const Vec4f* position_mass;
    Mat3f* stress;  // the corrected stresses of the force pass
    MullerKernels kernel;
    struct Particle {
        Vec3f r;
        float w;
    };
    struct Sums {
        Mat3f tau;
        float weight;
    };
    PK_DEVICE_INLINE Particle load(std::size_t a) const {
        const Vec4f rm = position_mass[a];
        return {rm.xyz(), rm.w};
    }
    PK_DEVICE_INLINE bool interacts(const Particle& a) const { return a.w < 0.0f; }
    PK_DEVICE_INLINE void pair(const Particle&, std::uint32_t b, Vec3f, float r2, const Vec4f& record_b, Sums& s) const {
        if (sign_bit(record_b.w)) return;
        const float W = kernel.poly6(r2);
        s.tau = s.tau + W * stress[b];
        s.weight += W;
    }
    PK_DEVICE_INLINE void finish(std::size_t a, const Particle& self, const Sums& s) const {
        if (self.w > 0.0f) return;
        const float k = s.weight > 0.0f ? 1.0f / s.weight : 0.0f;
        stress[a] = k * s.tau;
    }
};

// Viscous terms of the force pass: Mueller's Laplacian (Newtonian) or a stress divergence.
struct LaplacianViscosity {
    static constexpr bool uses_stress = false;
    float mu;  // Pa s
};
// The stress divergence differentiates the velocity twice with first derivatives, which cannot
// see a velocity alternating from one particle to the next (on a lattice with h = 2 dx, even and
// odd layers decouple: a zero-energy mode). Sandvik (2021) damps it with XSPH; we add the
// pairwise control of Ganzenmueller (2015, "An hourglass control algorithm for Lagrangian
// smooth particle hydrodynamics"): a viscous pair force on the part of v_ab that the particles'
// velocity gradients do not explain, e_ab = v_ab - (G_a + G_b) r_ab / 2, which vanishes for
// linear and quadratic velocity fields (the Poiseuille profiles) and conserves momentum.
struct StressDivergence {
    static constexpr bool uses_stress = true;
    const Mat3f* stress;  // tau L (SnowStress)
    const Mat3f* velocity_gradient;
    const float* effective_viscosity;
    StressForm form;
    float mode_control;  // the control's strength (1: the viscous pair force of mu_eff on e_ab)
};

// The accelerations of the snow models (Sandvik 2021, eqs. 4.3-4.6 and 4.12-4.15, with the
// stress divergence in its momentum-conserving form unless StressForm::sandvik):
//   a = -(1/rho_a) sum_b m_b (lambda_a p_a + lambda_b p_b)/rho_b grad W_spiky
//       + (mu/rho_a) sum_b m_b (v_b - v_a)/rho_b lap W_visc            (Newtonian)
//       | + sum_b m_b (tau_a/rho_a^2 + tau_b/rho_b^2) . grad W_spiky    (stress tensor)
//       + g + boundary volumes,
// the XSPH sum sum_b 2 m_b (v_b - v_a) W_poly6 / (rho_a + rho_b) (scaled by phi at the end), and
// the time-step limit min(h/(2(c + |v|)), sqrt(h/(2|a|))) with the viscous limit of the stress
// pass (Newtonian: 0.1 h^2 rho_a / mu). Fluid particles only.
template <class Viscous> struct SnowForces {
    static constexpr int kMinBlocksPerSM = 2;
    const Vec4f* position_mass;
    const Vec4f* velocity_density;
    const float* pressure;  // lambda p (MullerDensity)
    Vec3f* acceleration;
    Vec3f* xsph_velocity;
    float* dt_limit;  // in: the stress pass's viscous limit (stress models); out: the particle's limit
    MullerKernels kernel;
    Viscous viscous;
    float xsph_phi;
    float sound_speed;  // m/s
    float max_acceleration;  // m/s^2; 0: off
    Vec3f gravity;
    BoundaryVolumes volumes;

    struct Particle {
        Vec3f r, v;
        float rho, p;
        float w;
        std::uint32_t index;
        Mat3f tau_over_rho2;  // tau_a/rho_a^2 (momentum) or tau_a (sandvik)
        Mat3f G;              // grad v
        float mu;             // mu_eff
        PK_DEVICE_INLINE bool fluid() const { return w > 0.0f; }
    };
    // The pressure term drops the 1/2 of Mueller et al. (2003) and Sandvik (2021, eq. 4.3):
    // over a neighbourhood sum_b V_b (p_a + p_b)/2 grad W = grad p / 2, so with it the fluid
    // settles at twice the hydrostatic pressure (docs/SNOW.md, "Errata"). The pressures carry
    // the renormalisation lambda = tr(L)/3 of the kernel gradient (MullerDensity): exact for a
    // linear pressure where the neighbourhood is isotropic (a lattice: 1/0.947 at h = 2 dx), and
    // the pair force stays central and antisymmetric, so linear and angular momentum are conserved.
    struct Sums {
        Vec3f pressure;  // sum m_b (lambda_a p_a + lambda_b p_b)/rho_b F r_ab
        Vec3f viscous;
        Vec3f xsph;
        Vec3f control;  // zero-energy-mode control (stress models)
    };
    PK_DEVICE_INLINE Particle load(std::size_t a) const {
        const Vec4f rm = position_mass[a];
        const Vec4f vd = velocity_density[a];
        Particle self{rm.xyz(), vd.xyz(), vd.w, pressure[a], rm.w, static_cast<std::uint32_t>(a), {}, {}, 0.0f};
        if constexpr (Viscous::uses_stress) {
            const float s = viscous.form == StressForm::momentum ? 1.0f / (vd.w * vd.w) : 1.0f;
            self.tau_over_rho2 = s * viscous.stress[a];
            self.G = viscous.velocity_gradient[a];
            self.mu = viscous.effective_viscosity[a];
        }
        return self;
    }
    PK_DEVICE_INLINE bool interacts(const Particle& a) const { return a.fluid(); }
    PK_DEVICE_INLINE void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b,
                               Sums& s) const {
        if (b == a.index) return;
        const float m_b = fabsf(record_b.w);
        const Vec4f vd_b = velocity_density[b];
        const float p_b = pressure[b];
        const float rho_b = vd_b.w;
        const float inv_rho_b = approx_reciprocal(rho_b);
        const float r = distance_of(r2);
        const float gap = kernel.gap(r);
        const float F = kernel.spiky_factor(r, gap);
        const Vec3f v_ba = vd_b.xyz() - a.v;
        s.pressure += (m_b * (a.p + p_b) * inv_rho_b * F) * r_ab;
        if constexpr (Viscous::uses_stress) {
            // tau_b / rho_b^2 (momentum) or tau_b / rho_b (sandvik, divided by rho_a at the end).
            const float sb = viscous.form == StressForm::momentum ? inv_rho_b * inv_rho_b : inv_rho_b;
            const float sa = viscous.form == StressForm::momentum ? 1.0f : inv_rho_b;
            const Vec3f g = (m_b * F) * r_ab;
            s.viscous += sa * a.tau_over_rho2.times(g) + sb * viscous.stress[b].times(g);
            // e_ab = v_ab - (G_a + G_b) r_ab / 2; force (Morris et al. 1997's viscous pair form)
            // m_b (mu_a + mu_b) F r^2 / (rho_a rho_b (r^2 + eta^2)) e_ab, with eta^2 = 0.01 h^2.
            // A boundary neighbour carries the fluid's velocity continued through the wall
            // (WallVelocity): its gradient is the particle's own.
            const Mat3f& G_b = sign_bit(record_b.w) ? a.G : viscous.velocity_gradient[b];
            const Vec3f e = (-1.0f) * v_ba - 0.5f * (a.G.times(r_ab) + G_b.times(r_ab));
            const float mu_sum = a.mu + viscous.effective_viscosity[b];
            s.control += (m_b * mu_sum * F * r2 * inv_rho_b * approx_reciprocal(r2 + 0.01f * kernel.h2)) * e;
        } else {
            s.viscous += (m_b * inv_rho_b * kernel.visc_laplacian(gap)) * v_ba;
        }
        s.xsph += (2.0f * m_b * kernel.poly6(r2) * approx_reciprocal(a.rho + rho_b)) * v_ba;
    }
    PK_DEVICE_INLINE void finish(std::size_t a, const Particle& self, const Sums& s) const {
        if (!self.fluid()) {
            acceleration[a] = {0.0f, 0.0f, 0.0f};
            xsph_velocity[a] = {0.0f, 0.0f, 0.0f};
            dt_limit[a] = __builtin_huge_valf();
            return;
        }
        const float inv_rho = 1.0f / self.rho;
        Vec3f acc = (-inv_rho) * s.pressure;
        float limit;
        if constexpr (Viscous::uses_stress) {
            acc += viscous.form == StressForm::momentum ? s.viscous : inv_rho * s.viscous;
            acc += (viscous.mode_control * inv_rho) * s.control;
            limit = dt_limit[a];
        } else {
            acc += (viscous.mu * inv_rho) * s.viscous;
            limit = viscous.mu > 0.0f ? 0.1f * kernel.h2 * self.rho / viscous.mu : __builtin_huge_valf();
        }
        acc += gravity;
        acc += volumes.acceleration(self.r, self.v);
        const float a_abs = norm(acc);
        if (max_acceleration > 0.0f && a_abs > max_acceleration) acc *= max_acceleration / a_abs;
        limit = fminf(limit, 0.5f * kernel.h / (sound_speed + norm(self.v)));
        if (a_abs > 0.0f) limit = fminf(limit, sqrtf(0.5f * kernel.h / a_abs));
        acceleration[a] = acc;
        xsph_velocity[a] = xsph_phi * s.xsph;
        dt_limit[a] = limit;
    }
};

// What follows a particle's new position: its neighbour record (position and signed mass, so
// that the next density pass needs no repacking of the records: the velocity records still carry
// the densities it reads, and are rewritten after it), and whether it has moved half the
// neighbour lists' skin since their search (minimum image on periodic axes): the Leapfrog then
// raises the flag, and the next step searches afresh.
struct MovedPosition {
    Vec4f* position_mass;          // the neighbour records
    const Vec3f* listed_position;  // null: no lists kept
    std::uint32_t* relist;
    frnn::Box box;
    float half_skin2;  // m^2
    PK_DEVICE_INLINE void operator()(std::size_t a, Vec3f r) const {
        position_mass[a] = {r.x, r.y, r.z, position_mass[a].w};
        if (!listed_position) return;
        const Vec3f d = box.displacement(r, listed_position[a]);
        if (dot(d, d) > half_skin2) *relist = 1u;  // every writer stores the same value
    }
};

// The positions at a neighbour search (MovedPosition's reference).
struct CopyPositions {
    const Vec3f* position;
    Vec3f* listed_position;
    PK_DEVICE_INLINE void operator()(std::size_t a) const { listed_position[a] = position[a]; }
};

// Leapfrog (Sandvik 2021, eqs. 4.21-4.23) with the XSPH-corrected velocity as the base:
//   v_{n+1/2} = v_{n-1/2} + phi xsph_n + a_n dt,  x_{n+1} = x_n + v_{n+1/2} dt,
//   v (the state's velocity, used by the next passes and written) = (v_{n-1/2} + v_{n+1/2}) / 2.
// The half-step velocity v_{n+1/2} is kept (field velocity_half, written to frames, so that a
// restart continues bit-identically). Without one (the first step of a run from a scene) the
// step starts from v_{-1/2} = v_0 - a_0 dt/2. The speed cap scales v_{n+1/2}.
struct Leapfrog {
    Vec3f* position;
    Vec3f* velocity;
    Vec3f* velocity_half;
    const Vec3f* acceleration;
    const Vec3f* xsph_velocity;
    const std::uint8_t* kind;
    float dt;
    bool half_valid;
    float max_speed;  // m/s; 0: off
    BoundaryStage moving;
    frnn::PeriodicWrap wrap;
    MovedPosition moved;
    PK_DEVICE_INLINE void operator()(std::size_t a) const {
        if (kind[a] != kFluidKind) {
            float rho_unused = 0.0f;
            Vec3f r = position[a], v;
            place_boundary_particle(r, v, rho_unused, r, kind[a] == kMovingBoundaryKind, 0.0f, 0.0f, moving, wrap);
            position[a] = r;
            velocity[a] = v;
            velocity_half[a] = v;
            moved(a, r);
            return;
        }
        const Vec3f acc = acceleration[a];
        const Vec3f v_old = half_valid ? velocity_half[a] : velocity[a] - (0.5f * dt) * acc;
        Vec3f v_new = v_old + xsph_velocity[a] + dt * acc;
        if (max_speed > 0.0f) {
            const float speed = norm(v_new);
            if (speed > max_speed) v_new *= max_speed / speed;
        }
        const Vec3f r = wrap(position[a] + dt * v_new);
        position[a] = r;
        moved(a, r);
        velocity_half[a] = v_new;
        velocity[a] = 0.5f * (v_old + v_new);
    }
};

}  // namespace partikel::sph
