// The solver's kernels, written once for both backends: functors with PK_HD operator() and the
// step driver templated on the execution policy (CpuExec in solver.cpp, CudaExec in solver.cu).
// Indices a, b are positions in the cell-ordered arrays; symbols follow seed 000 chapter 3.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "base/error.hpp"
#include "core/reduce_ops.hpp"
#include "sph/eos.hpp"
#include "sph/forces.hpp"
#include "sph/kernel.hpp"
#include "sph/solver_state.hpp"

namespace partikel::sph {

namespace kern {

constexpr std::uint8_t kFluid = static_cast<std::uint8_t>(ParticleKind::fluid);
constexpr std::uint8_t kMovingBoundary = static_cast<std::uint8_t>(ParticleKind::moving_boundary);

// Neighbour-loop bodies must be inlined into the search loop: without this GCC keeps the
// large Rates body as a call per candidate (half of the CPU time). nvcc inlines them anyway.
#if defined(__CUDACC__)
#define PK_NEIGHBOR_BODY
#else
#define PK_NEIGHBOR_BODY __attribute__((always_inline))
#endif

// False for NaN and +-inf (x - x is NaN for both); no fast-math in this project.
PK_DEVICE_INLINE bool is_finite(float x) { return x - x == 0.0f; }

// Wrap coordinates on periodic axes into [lo, lo + L).
struct PeriodicWrap {
    std::uint8_t mask;
    Vec3f lo, length;
    PK_DEVICE_INLINE Vec3f operator()(Vec3f x) const {
        for (int k = 0; k < 3; ++k)
            if ((mask >> k) & 1u) x[k] -= length[k] * floorf((x[k] - lo[k]) / length[k]);
        return x;
    }
};

// dst[k] = src[order[k]]: brings one per-particle array into the grid's cell order.
template <class T> struct Gather {
    const T* src;
    T* dst;
    const std::uint32_t* order;
    PK_DEVICE_INLINE void operator()(std::size_t k) const { dst[k] = src[order[k]]; }
};

// dst[offset[i]] = src[i] where keep[i]: drops particles that left the domain.
template <class T> struct Compact {
    const T* src;
    T* dst;
    const std::uint32_t* keep;
    const std::uint32_t* offset;
    PK_DEVICE_INLINE void operator()(std::size_t i) const {
        if (keep[i]) dst[offset[i]] = src[i];
    }
};

// The sign bit of x (also of -0.0f): the kind of a neighbour record.
PK_DEVICE_INLINE bool sign_bit(float x) {
#if defined(__CUDA_ARCH__)
    return (__float_as_uint(x) >> 31) != 0u;
#else
    return std::signbit(x);
#endif
}

// Neighbour records for the next neighbour pass: a candidate's position and its mass and kind
// come with one 16-byte load (the kind as the sign of the mass: negative for boundary
// particles), its velocity and density with a second, and the equation of state is evaluated
// once per particle (P/rho^2) instead of once per pair.
struct NeighborRecords {
    TaitEos eos;
    Vec4f* pos_mass;
    Vec4f* vel_rho;
    float* p_over_rho2;
    PK_DEVICE_INLINE void write(std::size_t a, Vec3f r, Vec3f v, float rho, float mass, std::uint8_t kind) const {
        pos_mass[a] = {r.x, r.y, r.z, kind == kFluid ? mass : -mass};
        vel_rho[a] = {v.x, v.y, v.z, rho};
        p_over_rho2[a] = eos.pressure(rho) / (rho * rho);
    }
};

// The records from the state arrays as they stand (after a Shepard pass changed densities).
struct PackNeighborRecords {
    const Vec3f* pos;
    const Vec3f* vel;
    const float* rho;
    const float* mass;
    const std::uint8_t* kind;
    NeighborRecords records;
    PK_DEVICE_INLINE void operator()(std::size_t a) const { records.write(a, pos[a], vel[a], rho[a], mass[a], kind[a]); }
};

// The per-particle state brought into the grid's cell order in one pass (dst[k] =
// src[order[k]] for position, velocity, density, mass, id and kind), with the neighbour
// records written from the gathered values on the way: one read of `order`, one launch, and
// no second pass over the gathered arrays.
struct GatherState {
    const std::uint32_t* order;
    const Vec3f* pos;
    const Vec3f* vel;
    const float* rho;
    const float* mass;
    const std::uint64_t* id;
    const std::uint8_t* kind;
    Vec3f* pos_out;
    Vec3f* vel_out;
    float* rho_out;
    float* mass_out;
    std::uint64_t* id_out;
    std::uint8_t* kind_out;
    NeighborRecords records;
    PK_DEVICE_INLINE void operator()(std::size_t k) const {
        const std::uint32_t src = order[k];
        const Vec3f r = pos[src], v = vel[src];
        const float d = rho[src], m = mass[src];
        const std::uint8_t kd = kind[src];
        pos_out[k] = r;
        vel_out[k] = v;
        rho_out[k] = d;
        mass_out[k] = m;
        id_out[k] = id[src];
        kind_out[k] = kd;
        records.write(k, r, v, d, m, kd);
    }
};

// Shepard filter (seed 000 eq. 3.31) on fluid particles:
// rho_a <- sum_b m_b W_ab / sum_b (m_b / rho_b) W_ab.
// It is also the density of the summation scheme: the summation sum_b m_b W_ab (eq. 3.32)
// normalised with the current densities rho_b. Normalising with summation densities instead
// (summation pass, then Shepard) leaves the free surface under-dense, and Tait turns that into
// a tension of order B that collapses the surface layer (docs/SPH.md).
struct ShepardFilter {
    frnn::CellGridView grid;
    const Vec4f* pos_mass;
    const Vec4f* vel_rho;
    float* rho_out;
    SmoothingKernel kernel;
    PK_HD void operator()(std::size_t a) const {
        const Vec4f self = pos_mass[a];
        if (sign_bit(self.w)) {
            rho_out[a] = vel_rho[a].w;
            return;
        }
        float num = 0.0f, den = 0.0f;
        frnn::for_each_neighbor_record(grid, pos_mass, self.xyz(), [&](std::uint32_t b, Vec3f, float r2, const Vec4f& rec_b) PK_NEIGHBOR_BODY {
            const float mW = fabsf(rec_b.w) * kernel.W(r2);
            num += mW;
            den += mW / vel_rho[b].w;
        });
        rho_out[a] = num / den;
    }
};

// The rates pass: dv/dt (eq. 3.28 + laminar term + boundary volumes), drho/dt (eq. 3.29 +
// density diffusion), the XSPH correction (eq. 3.23) and each particle's time-step limit
// (eqs. 3.33, 3.34). Neighbours come from the records of PackNeighborRecords.

// Which optional pair terms a Rates instantiation carries: none (the default scheme), density
// diffusion alone (DualSPHysics's setup), or any combination of diffusion, laminar viscosity and
// XSPH chosen at run time. With the smoothing kernel (WendlandC2, CubicSpline) that makes 6
// instantiations; the first two have no run-time check of a term in the pair body (5% of a pass,
// docs/PERFORMANCE.md).
enum class OptionalTerms { none, diffusion, any };


template <class Kernel, OptionalTerms Terms> struct Rates {
    // 5 blocks of 256 per SM (at most 48 registers) measured 10% faster than 4 (64 registers)
    // and 4 7% faster than the 80 the compiler picks (docs/PERFORMANCE.md): the pass is
    // issue- and latency-bound, and more warps hide the neighbour loads. 6 (40 registers) spills.
    static constexpr int kMinBlocksPerSM = 5;
    frnn::CellGridView grid;
    const Vec4f* pos_mass;
    const Vec4f* vel_rho;
    const float* p_over_rho2;
    Vec3f* acc;
    float* drho;
    Vec3f* xsph;
    float* dt_limit;
    Kernel kernel;
    float h, c0, alpha;
    float laminar_nu;  // m^2/s, 0: off
    float eta2;        // 0.01 h^2, keeps mu_ab finite at r -> 0
    float diffusion_coeff;  // 2 delta h c0; 0: off
    // Fourtakas et al. (2019): the hydrostatic density difference rho_b^H - rho_a^H, linearised
    // in the pressure difference: -rho0 g . r_ab / c0^2 = dot(hydrostatic_gradient, r_ab);
    // zero for Molteni & Colagrossi.
    Vec3f hydrostatic_gradient;  // kg/m^4, -rho0 g / c0^2
    Vec3f gravity;
    float xsph_epsilon;
    BoundaryVolumes volumes;
    // Boundary particles also sum the pressure and viscosity terms of their fluid neighbours
    // into acc (never integrated): -m_a acc_a is then their push on the fluid.
    bool boundary_momentum;

    PK_HD void operator()(std::size_t a) const {
        constexpr bool maybe_diffusion = Terms != OptionalTerms::none;
        constexpr bool maybe_other_terms = Terms == OptionalTerms::any;
        const bool diffusion = Terms == OptionalTerms::diffusion || (maybe_diffusion && diffusion_coeff != 0.0f);
        const auto self_index = static_cast<std::uint32_t>(a);
        const Vec4f self = pos_mass[a];
        const Vec4f self_v = vel_rho[a];
        const Vec3f r_a = self.xyz();
        const Vec3f v_a = self_v.xyz();
        const float rho_a = self_v.w;
        const bool fluid_a = !sign_bit(self.w);
        const float P_over_rho2_a = p_over_rho2[a];
        Vec3f acc_a{0.0f, 0.0f, 0.0f};
        Vec3f xsph_a{0.0f, 0.0f, 0.0f};
        float drho_a = 0.0f;
        float max_mu = 0.0f;
        frnn::for_each_neighbor_record(grid, pos_mass, r_a, [&](std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& rec_b) PK_NEIGHBOR_BODY {
            if (b == self_index) return;
            const bool fluid_b = !sign_bit(rec_b.w);
            if (!fluid_a && !fluid_b) return;  // boundary-boundary pairs do nothing
            const float m_b = fabsf(rec_b.w);
            const Vec4f vr_b = vel_rho[b];
            const Vec3f v_b = vr_b.xyz();
            const float rho_b = vr_b.w;
            const float F = kernel.grad_factor(r2);
            const Vec3f v_ab = v_a - v_b;
            // One reciprocal for 1/(r^2 + eta^2) and 1/(rho_a + rho_b).
            const float r2_eta2 = r2 + eta2;
            const float rho_sum = rho_a + rho_b;
            const float inv_product = approx_reciprocal(r2_eta2 * rho_sum);
            const float inv_r2_eta2 = rho_sum * inv_product;
            const float vr = dot(v_ab, r_ab);
            // Continuity (eq. 3.29): m_b v_ab . grad W_ab, grad W_ab = F r_ab.
            drho_a += m_b * F * vr;
            if (maybe_diffusion && diffusion && fluid_a && fluid_b) {
                // Molteni & Colagrossi (2009): psi_ab = 2 (rho_b - rho_a) r_ba / r^2; Fourtakas et
                // al. (2019) subtract the hydrostatic part rho_b^H - rho_a^H.
                const float rho_ba = rho_b - rho_a - dot(hydrostatic_gradient, r_ab);
                drho_a += diffusion_coeff * rho_ba * (-F) * (r2 * inv_r2_eta2) * approx_divide(m_b, rho_b);
            }
            const float mu_ab = h * vr * inv_r2_eta2;
            max_mu = max_of(max_mu, fabsf(mu_ab));
            if (!fluid_a && !boundary_momentum) return;
            // Pressure and Monaghan viscosity (eqs. 3.26-3.28); rho_bar_ab = (rho_a + rho_b)/2.
            const float inv_rho_sum = r2_eta2 * inv_product;
            const float Pi_ab = vr < 0.0f ? -2.0f * alpha * c0 * mu_ab * inv_rho_sum : 0.0f;
            acc_a -= (m_b * F * (P_over_rho2_a + p_over_rho2[b] + Pi_ab)) * r_ab;
            if (!maybe_other_terms) return;
            // Laminar viscosity (Lo & Shao 2002): 4 m_b nu (r_ab . grad W) / ((rho_a + rho_b) r^2) v_ab.
            if (laminar_nu > 0.0f) acc_a += (4.0f * m_b * laminar_nu * F * r2 * inv_rho_sum * inv_r2_eta2) * v_ab;
            if (xsph_epsilon > 0.0f) xsph_a += (2.0f * m_b * kernel.W(r2) * inv_rho_sum) * (v_b - v_a);
        });
        float limit = h / (c0 + max_mu);  // eq. 3.33
        if (fluid_a) {
            acc_a += gravity;
            acc_a += volumes.acceleration(r_a, v_a);
            const float a_abs = norm(acc_a);
            if (a_abs > 0.0f) limit = fminf(limit, sqrtf(h / a_abs));  // eq. 3.34
            xsph_a *= xsph_epsilon;
        } else {
            xsph_a = {0.0f, 0.0f, 0.0f};
        }
        acc[a] = acc_a;
        drho[a] = drho_a;
        xsph[a] = xsph_a;
        dt_limit[a] = limit;
    }
};

// What boundary particles do during one stage: displacement and velocity of the prescribed
// motion (zero for fixed boundaries), computed on the host in double precision.
struct BoundaryStage {
    Vec3f displacement;
    Vec3f velocity;
};

// Boundary particles are not integrated: fixed ones stay, moving ones follow this stage's
// prescribed motion; their density evolves but never falls below rho0, so that a wall never
// pulls fluid in (dynamic boundary conditions; DualSPHysics does the same).
PK_DEVICE_INLINE void place_boundary_particle(Vec3f& pos, Vec3f& vel, float& rho, Vec3f from, bool moves, float d_new,
                                              float rho0, const BoundaryStage& moving, const PeriodicWrap& wrap) {
    pos = moves ? wrap(from + moving.displacement) : from;
    vel = moves ? moving.velocity : Vec3f{0.0f, 0.0f, 0.0f};
    rho = fmaxf(d_new, rho0);
}

// Midpoint predictor (eqs. 3.37-3.39): saves the state at t into *_t and moves the state to
// t + dt/2 with the rates at t.
struct Predict {
    Vec3f* pos;
    Vec3f* vel;
    float* rho;
    Vec3f* pos_t;
    Vec3f* vel_t;
    float* rho_t;
    const Vec3f* acc;
    const Vec3f* xsph;
    const float* drho;
    const std::uint8_t* kind;
    float half_dt;
    float rho0;
    BoundaryStage moving;
    PeriodicWrap wrap;
    PK_DEVICE_INLINE void operator()(std::size_t a) const {
        const Vec3f r = pos[a], v = vel[a];
        const float d = rho[a];
        pos_t[a] = r;
        vel_t[a] = v;
        rho_t[a] = d;
        const float d_new = d + half_dt * drho[a];
        if (kind[a] == kFluid) {
            pos[a] = wrap(r + half_dt * (v + xsph[a]));
            vel[a] = v + half_dt * acc[a];
            rho[a] = d_new;
        } else {
            place_boundary_particle(pos[a], vel[a], rho[a], r, kind[a] == kMovingBoundary, d_new, rho0, moving, wrap);
        }
    }
};

enum class CorrectorKind { midpoint, symplectic };

// Corrector from t to t + dt with the rates at t + dt/2: midpoint (eqs. 3.40-3.42) or the
// symplectic position Verlet of DualSPHysics (v by the half-step rate, r by the mean of v_t
// and v_{t+dt}, rho by rho_t (2 - eps)/(2 + eps), eps = -(drho/rho) dt).
struct Correct {
    Vec3f* pos;
    Vec3f* vel;
    float* rho;
    const Vec3f* pos_t;
    const Vec3f* vel_t;
    const float* rho_t;
    const Vec3f* acc;
    const Vec3f* xsph;
    const float* drho;
    const std::uint8_t* kind;
    float dt;
    float rho0;
    CorrectorKind scheme;
    BoundaryStage moving;
    PeriodicWrap wrap;
    PK_DEVICE_INLINE void operator()(std::size_t a) const {
        float d_new;
        if (scheme == CorrectorKind::midpoint) {
            d_new = rho_t[a] + dt * drho[a];
        } else {
            const float eps = -(drho[a] / rho[a]) * dt;
            d_new = rho_t[a] * (2.0f - eps) / (2.0f + eps);
        }
        if (kind[a] == kFluid) {
            const Vec3f v_new = vel_t[a] + dt * acc[a];
            const Vec3f drift = scheme == CorrectorKind::midpoint ? vel[a] : 0.5f * (vel_t[a] + v_new);
            pos[a] = wrap(pos_t[a] + dt * (drift + xsph[a]));
            vel[a] = v_new;
            rho[a] = d_new;
        } else {
            place_boundary_particle(pos[a], vel[a], rho[a], pos_t[a], kind[a] == kMovingBoundary, d_new, rho0, moving, wrap);
        }
    }
};

// Verlet (Verlet 1967, as in DualSPHysics): v_{n+1} = v_{n-1} + 2 dt a_n,
// r_{n+1} = r_n + dt v_n + dt^2/2 a_n, rho_{n+1} = rho_{n-1} + 2 dt drho_n; an Euler step
// (v_n + dt a_n, rho_n + dt drho_n) every N steps and whenever no previous state exists.
// *_t hold the previous step's v and rho.
struct VerletStep {
    Vec3f* pos;
    Vec3f* vel;
    float* rho;
    Vec3f* vel_prev;
    float* rho_prev;
    const Vec3f* acc;
    const Vec3f* xsph;
    const float* drho;
    const std::uint8_t* kind;
    float dt;
    float rho0;
    bool euler;
    BoundaryStage moving;
    PeriodicWrap wrap;
    PK_DEVICE_INLINE void operator()(std::size_t a) const {
        const Vec3f v = vel[a];
        const float d = rho[a];
        const Vec3f v_prev = vel_prev[a];
        const float d_new = euler ? d + dt * drho[a] : rho_prev[a] + 2.0f * dt * drho[a];
        vel_prev[a] = v;
        rho_prev[a] = d;
        if (kind[a] == kFluid) {
            pos[a] = wrap(pos[a] + dt * (v + xsph[a]) + (0.5f * dt * dt) * acc[a]);
            vel[a] = (euler ? v : v_prev) + (euler ? dt : 2.0f * dt) * acc[a];
            rho[a] = d_new;
        } else {
            place_boundary_particle(pos[a], vel[a], rho[a], pos[a], kind[a] == kMovingBoundary, d_new, rho0, moving, wrap);
        }
    }
};

// The status of a particle after a step, as a reduction value: bit 32 and up counts particles
// with a non-finite state or a runaway speed (the run must stop), the low bits count fluid
// particles outside the domain plus margin on non-periodic axes (removed).
struct ParticleStatus {
    const Vec3f* pos;
    const Vec3f* vel;
    const float* rho;
    const std::uint8_t* kind;
    Vec3f lo, hi;  // m, domain widened by the margin; periodic axes: -inf/+inf
    float runaway_speed2;
    float density_lo, density_hi;  // kg/m^3, SphParams::density_min/max; off: 0 and +inf
    // 1 << 32 stops the run (NaN, runaway); 1 removes the particle (a fluid particle outside the
    // domain or, before its speed runs away, outside the density limits).
    PK_DEVICE_INLINE std::uint64_t operator()(std::size_t a) const {
        const Vec3f r = pos[a], v = vel[a];
        const float d = rho[a];
        const float v2 = norm2(v);
        const bool finite = is_finite(r.x) && is_finite(r.y) && is_finite(r.z) && is_finite(v2) && is_finite(d) && d > 0.0f;
        if (!finite) return std::uint64_t{1} << 32;
        const bool fluid = kind[a] == kFluid;
        if (fluid && !(d >= density_lo && d <= density_hi)) return 1u;
        if (v2 > runaway_speed2) return std::uint64_t{1} << 32;
        const bool inside = r.x >= lo.x && r.x <= hi.x && r.y >= lo.y && r.y <= hi.y && r.z >= lo.z && r.z <= hi.z;
        return (inside || !fluid) ? 0u : 1u;
    }
};

struct KeepFlag {
    ParticleStatus status;
    std::uint32_t* keep;
    PK_DEVICE_INLINE void operator()(std::size_t a) const { keep[a] = status(a) == 0 ? 1u : 0u; }
};

// Diagnostics: per-particle values for the reductions (fluid only).
struct KineticEnergy {
    const Vec3f* vel;
    const float* mass;
    const std::uint8_t* kind;
    PK_DEVICE_INLINE double operator()(std::size_t a) const {
        return kind[a] == kFluid ? 0.5 * double(mass[a]) * double(norm2(vel[a])) : 0.0;
    }
};
struct PotentialEnergy {
    const Vec3f* pos;
    const float* mass;
    const std::uint8_t* kind;
    Vec3f gravity;
    PK_DEVICE_INLINE double operator()(std::size_t a) const {
        return kind[a] == kFluid ? -double(mass[a]) * double(dot(gravity, pos[a])) : 0.0;
    }
};
struct Speed {
    const Vec3f* vel;
    const std::uint8_t* kind;
    PK_DEVICE_INLINE float operator()(std::size_t a) const { return kind[a] == kFluid ? norm(vel[a]) : 0.0f; }
};
struct FluidDensity {
    const float* rho;
    const std::uint8_t* kind;
    float otherwise;  // identity of the reduction for boundary particles
    PK_DEVICE_INLINE float operator()(std::size_t a) const { return kind[a] == kFluid ? rho[a] : otherwise; }
};
struct FluidCoordinate {
    const Vec3f* pos;
    const std::uint8_t* kind;
    int axis;
    PK_DEVICE_INLINE float operator()(std::size_t a) const { return kind[a] == kFluid ? pos[a][axis] : -INFINITY; }
};

// One component of the force of the walls on the fluid at the state of the last rates pass:
// the reaction of the boundary particles' momentum sums (Rates::boundary_momentum) and the
// repulsive volumes' force on fluid particles.
struct WallForce {
    const Vec3f* pos;
    const Vec3f* vel;
    const Vec3f* acc;
    const float* mass;
    const std::uint8_t* kind;
    BoundaryVolumes volumes;
    int axis;
    PK_DEVICE_INLINE double operator()(std::size_t a) const {
        if (kind[a] == kFluid) return double(mass[a]) * double(volumes.acceleration(pos[a], vel[a])[axis]);
        return -double(mass[a]) * double(acc[a][axis]);
    }
};
struct FluidMomentum {
    const Vec3f* vel;
    const float* mass;
    const std::uint8_t* kind;
    int axis;
    PK_DEVICE_INLINE double operator()(std::size_t a) const {
        return kind[a] == kFluid ? double(mass[a]) * double(vel[a][axis]) : 0.0;
    }
};
struct IsFluid {
    const std::uint8_t* kind;
    PK_DEVICE_INLINE std::uint64_t operator()(std::size_t a) const { return kind[a] == kFluid ? 1u : 0u; }
};

}  // namespace kern

// ---- the step driver, written once against Exec --------------------------------------------

template <class Exec> std::size_t workspace_bytes(const Exec& exec, std::size_t capacity) {
    std::size_t bytes = exec.template reduce_scratch_bytes<float, MinOp>(capacity);
    bytes = std::max(bytes, exec.template reduce_scratch_bytes<float, MaxOp>(capacity));
    bytes = std::max(bytes, exec.template reduce_scratch_bytes<double, SumOp>(capacity));
    bytes = std::max(bytes, exec.template reduce_scratch_bytes<std::uint64_t, SumOp>(capacity));
    bytes = std::max(bytes, exec.template exclusive_sum_scratch_bytes<std::uint32_t>(capacity));
    return 2 * bytes + 4096;  // CUB's needs may vary slightly with the value functor
}

namespace detail {

inline std::string format_g(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return text;
}

inline SmoothingKernel smoothing_kernel(const SphParams& p) { return {p.kernel, p.h_m}; }

inline kern::PeriodicWrap periodic_wrap(const SphParams& p) {
    kern::PeriodicWrap w{0, p.domain_min, p.domain_max - p.domain_min};
    for (int k = 0; k < 3; ++k)
        if (p.faces[2 * k] == Face::periodic) w.mask |= std::uint8_t(1u << k);
    return w;
}

// Displacement over [t0, t1] and velocity at t1 of moving boundary particles.
inline kern::BoundaryStage boundary_stage(const SphParams& p, double t0, double t1) {
    const double omega = 2.0 * 3.14159265358979323846 / p.boundary_motion.period_s;
    const double ds = std::sin(omega * t1) - std::sin(omega * t0);
    const double vc = omega * std::cos(omega * t1);
    const Vec3f A = p.boundary_motion.amplitude_m;
    return {{float(A.x * ds), float(A.y * ds), float(A.z * ds)}, {float(A.x * vc), float(A.y * vc), float(A.z * vc)}};
}

inline BoundaryVolumes boundary_volumes(const SolverState& s, double t) {
    const SphParams& p = s.params;
    BoundaryVolumes v;
    v.lo = p.domain_min;
    v.hi = p.domain_max;
    for (int f = 0; f < 6; ++f)
        if (p.faces[f] == Face::wall) v.wall_mask |= std::uint8_t(1u << f);
    v.K = p.wall_stiffness * (p.c0 / p.h_m) * (p.c0 / p.h_m);
    v.D = p.wall_damping * 2.0f * std::sqrt(v.K);
    if (p.wave_maker.face >= 0) {
        const double omega = 2.0 * 3.14159265358979323846 / p.wave_maker.period_s;
        const float inward = p.wave_maker.face % 2 == 0 ? 1.0f : -1.0f;
        v.wave_face = p.wave_maker.face;
        v.wave_offset = inward * float(p.wave_maker.amplitude_m * std::sin(omega * t));
        v.wave_velocity = inward * float(p.wave_maker.amplitude_m * omega * std::cos(omega * t));
    }
    if (!p.terrain.empty()) {
        v.terrain = s.terrain_height.data();
        v.terrain_nx = p.terrain.nx;
        v.terrain_nz = p.terrain.nz;
        v.terrain_x0 = p.terrain.x0_m;
        v.terrain_z0 = p.terrain.z0_m;
        v.terrain_inv_cell = 1.0f / p.terrain.cell_m;
    }
    return v;
}

template <class Exec, class T> void gather_one(const Exec& exec, DeviceBuffer<T>& array, DeviceBuffer<T>& spare,
                                               const std::uint32_t* order, std::size_t n) {
    exec.for_each(n, kern::Gather<T>{array.data(), spare.data(), order}, "sph.gather");
    std::swap(array, spare);
}

template <class Exec, class T> void compact_one(const Exec& exec, DeviceBuffer<T>& array, DeviceBuffer<T>& spare,
                                                const SolverState& s, std::size_t n) {
    exec.for_each(n, kern::Compact<T>{array.data(), spare.data(), s.keep.data(), s.keep_offset.data()}, "sph.compact");
    std::swap(array, spare);
}

inline kern::NeighborRecords neighbor_records(SolverState& s) {
    const SphParams& p = s.params;
    return {TaitEos::from_sound_speed(p.rho0, p.c0, p.gamma), s.pos_mass.data(), s.vel_rho.data(), s.p_over_rho2.data()};
}

// Refresh the neighbour records from the state arrays before a neighbour pass, unless they
// are current (written by the last grid build's gather, nothing changed since).
template <class Exec> void pack_neighbor_records(const Exec& exec, SolverState& s) {
    if (s.records_current) return;
    s.records_current = true;
    auto scope = s.profile.phase("pack");
    exec.for_each(s.n,
                  kern::PackNeighborRecords{s.pos.data(), s.vel.data(), s.rho.data(), s.mass.data(), s.kind.data(),
                                            neighbor_records(s)},
                  "sph.pack");
}

template <class Exec> void shepard(const Exec& exec, SolverState& s) {
    pack_neighbor_records(exec, s);
    auto scope = s.profile.phase("shepard");
    exec.for_each_uneven(
        s.n,
        kern::ShepardFilter{s.grid.view(), s.pos_mass.data(), s.vel_rho.data(), s.spare_float.data(),
                            smoothing_kernel(s.params)},
        "sph.shepard");
    std::swap(s.rho, s.spare_float);
    s.records_current = false;
}

template <class Exec> void rates(const Exec& exec, SolverState& s, double t) {
    pack_neighbor_records(exec, s);
    auto scope = s.profile.phase("rates");
    const SphParams& p = s.params;
    const bool fourtakas = p.diffusion == DensityDiffusion::fourtakas;
    const bool diffusion = p.diffusion != DensityDiffusion::none;
    auto launch = [&](auto kernel, auto terms) {
        const kern::Rates<decltype(kernel), decltype(terms)::value> r{
            .grid = s.grid.view(),
            .pos_mass = s.pos_mass.data(),
            .vel_rho = s.vel_rho.data(),
            .p_over_rho2 = s.p_over_rho2.data(),
            .acc = s.acc.data(),
            .drho = s.drho.data(),
            .xsph = s.xsph.data(),
            .dt_limit = s.dt_candidate.data(),
            .kernel = kernel,
            .h = p.h_m,
            .c0 = p.c0,
            .alpha = p.alpha,
            .laminar_nu = p.laminar_nu,
            .eta2 = 0.01f * p.h_m * p.h_m,
            .diffusion_coeff = diffusion ? 2.0f * p.diffusion_delta * p.h_m * p.c0 : 0.0f,
            .hydrostatic_gradient = (fourtakas ? -p.rho0 / (p.c0 * p.c0) : 0.0f) * p.gravity,
            .gravity = p.gravity,
            .xsph_epsilon = p.xsph_epsilon,
            .volumes = boundary_volumes(s, t),
            .boundary_momentum = s.options.track_wall_impulse,
        };
        exec.for_each_uneven(s.n, r, "sph.rates");
    };
    using kern::OptionalTerms;
    auto with_terms = [&](auto kernel) {
        if (p.laminar_nu > 0.0f || p.xsph_epsilon > 0.0f)
            launch(kernel, std::integral_constant<OptionalTerms, OptionalTerms::any>{});
        else if (diffusion)
            launch(kernel, std::integral_constant<OptionalTerms, OptionalTerms::diffusion>{});
        else
            launch(kernel, std::integral_constant<OptionalTerms, OptionalTerms::none>{});
    };
    if (p.kernel == KernelKind::wendland_c2)
        with_terms(WendlandC2(p.h_m));
    else
        with_terms(CubicSpline(p.h_m));
}

// With track_wall_impulse: add dt times the walls' force at the state of the last rates pass
// (time t) to the accumulated impulse. Call before the integrator moves the state.
template <class Exec> void accumulate_wall_impulse(const Exec& exec, SolverState& s, double t, double dt) {
    if (!s.options.track_wall_impulse) return;
    auto scope = s.profile.phase("wall impulse");
    const BoundaryVolumes volumes = boundary_volumes(s, t);
    for (int axis = 0; axis < 3; ++axis)
        exec.transform_reduce(s.workspace, s.n,
                              kern::WallForce{s.pos.data(), s.vel.data(), s.acc.data(), s.mass.data(), s.kind.data(),
                                              volumes, axis},
                              SumOp{}, 0.0, s.reduced_double.data() + axis);
    for (int axis = 0; axis < 3; ++axis) s.wall_impulse[axis] += dt * exec.read_value(s.reduced_double.data() + axis);
}

// dt = cfl * min over particles of min(dt_cv, dt_f), reduced on the device.
template <class Exec> double reduce_dt(const Exec& exec, SolverState& s) {
    auto scope = s.profile.phase("dt reduce");
    exec.transform_reduce(s.workspace, s.n, LoadAs<float, float>{s.dt_candidate.data()}, MinOp{},
                          std::numeric_limits<float>::infinity(), s.reduced_float.data());
    const double limit = exec.read_value(s.reduced_float.data());
    const double dt = std::min(double(s.params.cfl) * limit, double(s.params.dt_max_s));
    if (!(dt >= s.params.dt_min_s))
        throw NumericalError("time step " + format_g(dt) + " s fell below its floor " + format_g(s.params.dt_min_s) +
                             " s at step " + std::to_string(s.step) + " (t = " + format_g(s.time) + " s)");
    return dt;
}

template <class Exec> kern::ParticleStatus particle_status(const SolverState& s) {
    const SphParams& p = s.params;
    const float margin = 2.0f * p.h_m;
    kern::ParticleStatus st{s.pos.data(), s.vel.data(), s.rho.data(), s.kind.data(), {}, {}, 0.0f, 0.0f, 0.0f};
    const float inf = std::numeric_limits<float>::infinity();
    for (int k = 0; k < 3; ++k) {
        const bool periodic = p.faces[2 * k] == Face::periodic;
        st.lo[k] = periodic ? -inf : p.domain_min[k] - margin;
        st.hi[k] = periodic ? inf : p.domain_max[k] + margin;
    }
    const float runaway = p.runaway_speed > 0.0f ? p.runaway_speed : 5.0f * p.c0;
    st.runaway_speed2 = runaway * runaway;
    const bool density_limits = p.density_min != 0.0f || p.density_max != 0.0f;
    st.density_lo = density_limits ? p.density_min : 0.0f;
    st.density_hi = density_limits ? p.density_max : inf;
    return st;
}

// After a step: stop on NaN or runaway, remove fluid particles that left the domain.
template <class Exec> void check_and_remove(const Exec& exec, SolverState& s) {
    auto scope = s.profile.phase("check");
    const auto status = particle_status<Exec>(s);
    exec.transform_reduce(s.workspace, s.n, status, SumOp{}, std::uint64_t{0}, s.reduced_u64.data());
    const std::uint64_t flags = exec.read_value(s.reduced_u64.data());
    if (flags >> 32)
        throw NumericalError(std::to_string(flags >> 32) + " particle(s) with NaN or runaway speed at step " +
                             std::to_string(s.step + 1) + " (t = " + format_g(s.time + s.dt) +
                             " s); lower the time step (--cfl) or check the scene");
    const std::uint64_t leaving = flags & 0xffffffffu;
    if (leaving == 0) return;
    exec.for_each(s.n, kern::KeepFlag{status, s.keep.data()}, "sph.keep");
    exec.exclusive_sum(s.workspace, s.keep.data(), s.keep_offset.data(), s.n);
    compact_one(exec, s.pos, s.spare_vec3, s, s.n);
    compact_one(exec, s.vel, s.spare_vec3, s, s.n);
    compact_one(exec, s.rho, s.spare_float, s, s.n);
    compact_one(exec, s.mass, s.spare_float, s, s.n);
    compact_one(exec, s.id, s.spare_u64, s, s.n);
    compact_one(exec, s.kind, s.spare_u8, s, s.n);
    if (s.params.integrator == Integrator::verlet) {
        compact_one(exec, s.vel_t, s.spare_vec3, s, s.n);
        compact_one(exec, s.rho_t, s.spare_float, s, s.n);
    }
    s.n -= leaving;
    s.removed += leaving;
    s.records_current = false;
}

}  // namespace detail

// Build the grid on the current positions and gather every per-particle array into cell order,
// writing the neighbour records on the way (kern::GatherState). `with_step_start`: also gather
// the *_t arrays (needed between predictor and corrector and by Verlet's previous state).
// The main arrays' gather writes into spares and buffers that are dead at a grid build: the
// rates acc and drho, which the next rates pass overwrites whole before anything reads them.
template <class Exec> void sort_by_cell(const Exec& exec, SolverState& s, bool with_step_start) {
    {
        auto scope = s.profile.phase("grid build");
        s.grid.build(exec, s.pos.data(), s.n);
    }
    auto scope = s.profile.phase("gather");
    const std::uint32_t* order = s.grid.sorted_to_original();
    exec.for_each(s.n,
                  kern::GatherState{order, s.pos.data(), s.vel.data(), s.rho.data(), s.mass.data(), s.id.data(),
                                    s.kind.data(), s.spare_vec3.data(), s.acc.data(), s.spare_float.data(),
                                    s.drho.data(), s.spare_u64.data(), s.spare_u8.data(), detail::neighbor_records(s)},
                  "sph.gather");
    std::swap(s.pos, s.spare_vec3);
    std::swap(s.vel, s.acc);
    std::swap(s.rho, s.spare_float);
    std::swap(s.mass, s.drho);
    std::swap(s.id, s.spare_u64);
    std::swap(s.kind, s.spare_u8);
    s.records_current = true;
    if (with_step_start) {
        if (s.params.integrator != Integrator::verlet) detail::gather_one(exec, s.pos_t, s.spare_vec3, order, s.n);
        detail::gather_one(exec, s.vel_t, s.spare_vec3, order, s.n);
        detail::gather_one(exec, s.rho_t, s.spare_float, order, s.n);
    }
}

// One time step. On entry the arrays are in the cell order of a grid built on `pos`.
template <class Exec> void advance(const Exec& exec, SolverState& s) {
    const SphParams& p = s.params;
    const bool summation = p.density == DensityScheme::summation;
    const bool shepard_now = summation || (p.shepard_every > 0 && s.step > 0 && s.step % p.shepard_every == 0);
    const double t = s.time;
    const float rho0 = p.rho0;
    const auto wrap = detail::periodic_wrap(p);

    if (shepard_now) detail::shepard(exec, s);
    detail::rates(exec, s, t);
    const double dt = detail::reduce_dt(exec, s);
    s.dt = dt;

    if (p.integrator == Integrator::verlet) {
        detail::accumulate_wall_impulse(exec, s, t, dt);
        auto scope = s.profile.phase("integrate");
        const bool euler = !s.previous_valid || (s.step + 1) % p.verlet_euler_every == 0;
        exec.for_each(s.n,
                      kern::VerletStep{s.pos.data(), s.vel.data(), s.rho.data(), s.vel_t.data(), s.rho_t.data(),
                                       s.acc.data(), s.xsph.data(), s.drho.data(), s.kind.data(), float(dt), rho0,
                                       euler, detail::boundary_stage(p, t, t + dt), wrap},
                      "sph.verlet");
        s.records_current = false;
    } else {
        {
            auto scope = s.profile.phase("integrate");
            exec.for_each(s.n,
                          kern::Predict{s.pos.data(), s.vel.data(), s.rho.data(), s.pos_t.data(), s.vel_t.data(),
                                        s.rho_t.data(), s.acc.data(), s.xsph.data(), s.drho.data(), s.kind.data(),
                                        float(0.5 * dt), rho0, detail::boundary_stage(p, t, t + 0.5 * dt), wrap},
                          "sph.predict");
            s.records_current = false;
        }
        sort_by_cell(exec, s, true);
        if (summation) detail::shepard(exec, s);
        detail::rates(exec, s, t + 0.5 * dt);
        detail::accumulate_wall_impulse(exec, s, t + 0.5 * dt, dt);
        auto scope = s.profile.phase("integrate");
        const auto scheme =
            p.integrator == Integrator::symplectic ? kern::CorrectorKind::symplectic : kern::CorrectorKind::midpoint;
        exec.for_each(s.n,
                      kern::Correct{s.pos.data(), s.vel.data(), s.rho.data(), s.pos_t.data(), s.vel_t.data(),
                                    s.rho_t.data(), s.acc.data(), s.xsph.data(), s.drho.data(), s.kind.data(),
                                    float(dt), rho0, scheme, detail::boundary_stage(p, t, t + dt), wrap},
                      "sph.correct");
        s.records_current = false;
    }
    detail::check_and_remove(exec, s);
    s.time = t + dt;
    s.step += 1;
    s.previous_valid = true;
    sort_by_cell(exec, s, p.integrator == Integrator::verlet);
}

template <class Exec> Diagnostics compute_diagnostics(const Exec& exec, SolverState& s) {
    Diagnostics d;
    d.step = s.step;
    d.time_s = s.time;
    d.dt_s = s.dt;
    d.removed = s.removed;
    const float inf = std::numeric_limits<float>::infinity();
    exec.transform_reduce(s.workspace, s.n, kern::KineticEnergy{s.vel.data(), s.mass.data(), s.kind.data()}, SumOp{},
                          0.0, s.reduced_double.data());
    exec.transform_reduce(s.workspace, s.n,
                          kern::PotentialEnergy{s.pos.data(), s.mass.data(), s.kind.data(), s.params.gravity}, SumOp{},
                          0.0, s.reduced_double.data() + 1);
    exec.transform_reduce(s.workspace, s.n, kern::Speed{s.vel.data(), s.kind.data()}, MaxOp{}, 0.0f,
                          s.reduced_float.data());
    exec.transform_reduce(s.workspace, s.n, kern::FluidDensity{s.rho.data(), s.kind.data(), inf}, MinOp{}, inf,
                          s.reduced_float.data() + 1);
    exec.transform_reduce(s.workspace, s.n, kern::FluidDensity{s.rho.data(), s.kind.data(), -inf}, MaxOp{}, -inf,
                          s.reduced_float.data() + 2);
    exec.transform_reduce(s.workspace, s.n, kern::IsFluid{s.kind.data()}, SumOp{}, std::uint64_t{0},
                          s.reduced_u64.data());
    for (int axis = 0; axis < 3; ++axis) {
        exec.transform_reduce(s.workspace, s.n, kern::FluidCoordinate{s.pos.data(), s.kind.data(), axis}, MaxOp{}, -inf,
                              s.reduced_float.data() + 3);
        d.fluid_max[axis] = exec.read_value(s.reduced_float.data() + 3);
    }
    for (int axis = 0; axis < 3; ++axis) {
        exec.transform_reduce(s.workspace, s.n, kern::FluidMomentum{s.vel.data(), s.mass.data(), s.kind.data(), axis},
                              SumOp{}, 0.0, s.reduced_double.data() + 2);
        d.momentum_kg_m_s[axis] = exec.read_value(s.reduced_double.data() + 2);
    }
    d.wall_impulse_N_s = s.wall_impulse;
    d.kinetic_J = exec.read_value(s.reduced_double.data());
    d.potential_J = exec.read_value(s.reduced_double.data() + 1);
    d.max_speed = exec.read_value(s.reduced_float.data());
    d.min_density = exec.read_value(s.reduced_float.data() + 1);
    d.max_density = exec.read_value(s.reduced_float.data() + 2);
    d.fluid_count = exec.read_value(s.reduced_u64.data());
    return d;
}

// The family's instantiations, once per backend (solver_cpu.cpp, solver_cuda.cu).
#define PK_SPH_SOLVER_INSTANTIATE(Exec)                                            \
    template void sort_by_cell(const Exec&, SolverState&, bool);                  \
    template void advance(const Exec&, SolverState&);                             \
    template Diagnostics compute_diagnostics(const Exec&, SolverState&);          \
    template std::size_t workspace_bytes(const Exec&, std::size_t);

}  // namespace partikel::sph
