// The interactions of weakly compressible SPH (Werner 2015, chapter 3), each composed from
// evaluators and run by the pair loop of neighbor_pass.hpp: the Shepard density filter and the
// rates pass (dv/dt, drho/dt, the XSPH correction and each particle's time-step limit).
// Symbols follow the equations: a is the particle, b its neighbour, r_ab = r_a - r_b.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "core/fast_math.hpp"
#include "sph/boundary.hpp"
#include "sph/diffusion.hpp"
#include "sph/eos.hpp"
#include "sph/kernel.hpp"
#include "sph/particles.hpp"
#include "sph/viscosity.hpp"

namespace partikel::sph {

inline constexpr std::uint8_t kFluidKind = static_cast<std::uint8_t>(ParticleKind::fluid);
inline constexpr std::uint8_t kMovingBoundaryKind = static_cast<std::uint8_t>(ParticleKind::moving_boundary);

// Neighbour records for the next neighbour pass: a candidate's position and its mass and kind
// come with one 16-byte load (the kind as the sign of the mass: negative for boundary
// particles), its velocity and density with a second, and the equation of state is evaluated
// once per particle (P/rho^2) instead of once per pair. Written where the particles are
// reordered (the gather's epilogue) and, when a pass changed densities, on their own.
struct NeighborRecords {
    TaitEos eos;
    Vec4f* position_mass;
    Vec4f* velocity_density;
    float* pressure_term;  // P / rho^2
    PK_DEVICE_INLINE void write(std::size_t a, Vec3f r, Vec3f v, float rho, float mass, std::uint8_t kind) const {
        position_mass[a] = {r.x, r.y, r.z, kind == kFluidKind ? mass : -mass};
        velocity_density[a] = {v.x, v.y, v.z, rho};
        pressure_term[a] = eos.pressure(rho) / (rho * rho);
    }
};

// Shepard filter (Werner 2015, eq. 3.31) on fluid particles:
// rho_a <- sum_b m_b W_ab / sum_b (m_b / rho_b) W_ab.
// It is also the density of the summation scheme: the summation sum_b m_b W_ab (eq. 3.32)
// normalised with the current densities rho_b. Normalising with summation densities instead
// (summation pass, then Shepard) leaves the free surface under-dense, and Tait turns that into
// a tension of order B that collapses the surface layer (docs/SPH.md).
struct ShepardFilter {
    static constexpr int kMinBlocksPerSM = 1;
    const Vec4f* position_mass;
    const Vec4f* velocity_density;
    float* density_out;
    SmoothingKernel kernel;
    struct Particle {
        Vec3f r;
        float rho;
        float w;  // signed mass: negative for boundary particles (masses are positive)
        PK_DEVICE_INLINE bool fluid() const { return w > 0.0f; }
    };
    struct Sums {
        float num, den;
    };
    PK_DEVICE_INLINE Particle load(std::size_t a) const {
        const Vec4f self = position_mass[a];
        return {self.xyz(), velocity_density[a].w, self.w};
    }
    PK_DEVICE_INLINE bool interacts(const Particle& a) const { return a.fluid(); }
    PK_DEVICE_INLINE void pair(const Particle&, std::uint32_t b, Vec3f, float r2, const Vec4f& record_b, Sums& s) const {
        const float mW = fabsf(record_b.w) * kernel.W(r2);
        s.num += mW;
        s.den += mW / velocity_density[b].w;
    }
    PK_DEVICE_INLINE void finish(std::size_t a, const Particle& self, const Sums& s) const {
        density_out[a] = self.fluid() ? s.num / s.den : self.rho;
    }
};

// Laminar viscosity, the SPS stress and XSPH, chosen at run time inside one instantiation (each
// off at 0 or null).
struct NoViscousExtras {
    static constexpr bool enabled = false;
};
struct ViscousExtras {
    static constexpr bool enabled = true;
    LaminarViscosity laminar;
    XsphCorrection xsph;
    SpsStressTerm sps;
};

// The rates pass: dv/dt (eq. 3.28: pressure and artificial viscosity; optional laminar
// viscosity and SPS stress; gravity and boundary volumes), drho/dt (eq. 3.29, optional density diffusion), the
// XSPH sum and each particle's time-step limit (eqs. 3.33, 3.34). Compiled per smoothing kernel,
// diffusion, extras and walls, so that the pair body of the default scheme carries no test of a
// term it does not use (5% of the pass; docs/PERFORMANCE.md). With mdbc (Walls = VirtualLayers)
// a wall pushes and never pulls, and the virtual wall layers' terms (boundary.hpp) come from a pass
// of their own over the rows this one flags (VirtualLayerRates below).
template <class Kernel, class Diffusion, class Extras, class Walls> struct Rates {
    // 5 blocks of 256 per SM (at most 48 registers) measured 10% faster than 4 (64 registers)
    // and 4 7% faster than the 80 the compiler picks (docs/PERFORMANCE.md): the pass is
    // issue- and latency-bound, and more warps hide the neighbour loads. 6 (40 registers) spills.
    // mdbc's pair loop is this one, the virtual layers apart: with them inside it spilled about
    // 940 B per thread at 48 registers (ptxas, sm_90) against 116 B without.
    static constexpr int kMinBlocksPerSM = 5;
    static constexpr bool kOneRank = Walls::enabled;  // mdbc
    const Vec4f* position_mass;
    const Vec4f* velocity_density;
    const float* pressure_term;
    Vec3f* acceleration;
    float* density_rate;
    Vec3f* xsph_velocity;
    float* dt_limit;
    Kernel kernel;
    ArtificialViscosity viscosity;
    Diffusion diffusion;
    Extras extras;
    Walls walls;
    float h, c0;
    float eta2;  // 0.01 h^2, keeps mu_ab finite at r -> 0
    Vec3f gravity;
    BoundaryVolumes volumes;

    // The kind travels as the sign of `w` (the record's signed mass; masses are positive) rather
    // than as a bool: a bool member is a byte the compiler re-extracts in every pair (PRMT),
    // where a float comparison of the loop-invariant w stays in a predicate register (4
    // instructions per neighbour, 5% of the pass on the H200).
    struct Particle {
        Vec3f r, v;
        float rho;
        float pressure_term;
        float w;  // signed mass: negative for boundary particles
        std::uint32_t index;
        PK_DEVICE_INLINE bool fluid() const { return w > 0.0f; }
    };
    struct NoWallPairs {};
    struct Sums {
        Vec3f acc;
        Vec3f xsph;
        float drho;
        float max_mu;
        // mdbc: the pairs with a boundary particle on one side (VirtualLayers::flags, pair_count)
        [[no_unique_address]] std::conditional_t<Walls::enabled, std::uint32_t, NoWallPairs> wall_pairs;
        PK_DEVICE_INLINE void add(const Sums& o) {  // the CPU's lanes (neighbor_pass.hpp)
            acc += o.acc;
            xsph += o.xsph;
            drho += o.drho;
            max_mu = max_of(max_mu, o.max_mu);
            if constexpr (Walls::enabled) wall_pairs += o.wall_pairs;
        }
    };

    PK_DEVICE_INLINE Particle load(std::size_t a) const {
        const Vec4f self = position_mass[a];
        const Vec4f self_v = velocity_density[a];
        return {self.xyz(), self_v.xyz(), self_v.w, pressure_term[a], self.w, static_cast<std::uint32_t>(a)};
    }
    PK_DEVICE_INLINE bool interacts(const Particle&) const { return true; }

    PK_DEVICE_INLINE void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b,
                               Sums& s) const {
        if (b == a.index) return;
        if (max_of(a.w, record_b.w) < 0.0f) return;  // boundary-boundary pairs (both masses negative) do nothing
        const float m_b = fabsf(record_b.w);
        const Vec4f vr_b = velocity_density[b];
        const float pressure_term_b = load_now(pressure_term + b);  // used last; its latency hides below
        if constexpr (Walls::enabled)  // the virtual layers' pass reads the pair from the list
            if ((sign_bit(a.w) || sign_bit(record_b.w)) && s.wall_pairs < walls.capacity)
                walls.pair_index[s.wall_pairs * walls.stride + a.index] = b;
        pair_of(a, b, m_b, vr_b, pressure_term_b, record_b.w, r_ab, r2, s);
    }

    // pair() in the halves the CPU's batches run (neighbor_pass.hpp, BatchedPairs): whether the
    // pair does anything (pair()'s two returns, which the GPU keeps as they are), and the terms,
    // branch-free. Without pair()'s list of wall pairs (a store per pair would stop the SIMD
    // code): the CPU gives the list no capacity.
    PK_DEVICE_INLINE bool pairs(const Particle& a, std::uint32_t b, float w_b) const {
        return b != a.index && !(max_of(a.w, w_b) < 0.0f);
    }
    PK_DEVICE_INLINE void pair_terms(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, float w_b, Sums& s) const {
        pair_of(a, b, fabsf(w_b), velocity_density[b], pressure_term[b], w_b, r_ab, r2, s);
    }

    // mdbc: a wall pushes and never pulls. In a fluid-boundary pair the fluid's pressure term
    // counts only where positive (a splash's tension would draw it into a wall whose support the
    // virtual layers complete), as the boundary particles' densities stay >= rho0. Such a pair
    // flags the row for the virtual layers' pass.
    PK_DEVICE_INLINE void pair_of(const Particle& a, std::uint32_t b, float m_b, const Vec4f& vr_b,
                                  float pressure_term_b, float w_b, Vec3f r_ab, float r2, Sums& s) const {
        if constexpr (Walls::enabled) {
            const bool b_wall = sign_bit(w_b), a_wall = sign_bit(a.w);  // not both: pair() returned
            s.wall_pairs += (a_wall || b_wall) ? 1u : 0u;
            Particle a_o = a;
            if (b_wall) a_o.pressure_term = max_of(a.pressure_term, 0.0f);
            terms(a_o, b, m_b, vr_b, a_wall ? max_of(pressure_term_b, 0.0f) : pressure_term_b, w_b, r_ab, r2, s);
        } else {
            terms(a, b, m_b, vr_b, pressure_term_b, w_b, r_ab, r2, s);
        }
    }

    // The pair terms of a and a neighbour of mass m_b, velocity and density vr_b, P/rho^2
    // pressure_term_b and signed mass w_b at r_ab = r_a - r_b.
    PK_DEVICE_INLINE void terms(const Particle& a, std::uint32_t b, float m_b, const Vec4f& vr_b, float pressure_term_b,
                                float w_b, Vec3f r_ab, float r2, Sums& s) const {
        const Vec3f v_b = vr_b.xyz();
        const float rho_b = vr_b.w;
        const float F = kernel.grad_factor(r2);  // grad W_ab = F r_ab
        const Vec3f v_ab = a.v - v_b;
        // One reciprocal for 1/(r^2 + eta^2) and 1/(rho_a + rho_b).
        const float r2_eta2 = r2 + eta2;
        const float rho_sum = a.rho + rho_b;
        const float inv_product = approx_reciprocal(r2_eta2 * rho_sum);
        const float inv_r2_eta2 = rho_sum * inv_product;
        const float vr = dot(v_ab, r_ab);
        s.drho += m_b * F * vr;  // continuity (eq. 3.29): m_b v_ab . grad W_ab
        if constexpr (Diffusion::enabled)
            if (a.fluid() && !sign_bit(w_b)) s.drho += diffusion.rate(a.rho, rho_b, r_ab, F, r2 * inv_r2_eta2, m_b);
        const float mu_ab = h * vr * inv_r2_eta2;
        s.max_mu = max_of(s.max_mu, fabsf(mu_ab));
        // Boundary particles sum the pressure and viscosity terms of their fluid neighbours too,
        // into an acceleration that is never integrated: -m_a acc_a is their push on the fluid
        // (the wall force, SolverOptions::track_wall_impulse). Summing it always costs boundary
        // particles a few operations and spares every pair a test and a branch, behind which the
        // compiler would sink the pressure-term load (2-5% of the pass; docs/PERFORMANCE.md).
        const float inv_rho_sum = r2_eta2 * inv_product;
        const float Pi_ab = viscosity.Pi(vr, mu_ab, inv_rho_sum);
        s.acc -= (m_b * F * (a.pressure_term + pressure_term_b + Pi_ab)) * r_ab;  // eq. 3.28
        if constexpr (Extras::enabled) {
            if (extras.laminar.nu > 0.0f) s.acc += extras.laminar.acceleration(m_b, F, r2, inv_rho_sum, inv_r2_eta2, v_ab);
            if (extras.sps.stress_over_rho2) s.acc += extras.sps.acceleration(a.index, b, m_b, F, r_ab);
            if (extras.xsph.epsilon > 0.0f) s.xsph += extras.xsph.term(m_b, kernel.W(r2), inv_rho_sum, v_b - a.v);
        }
    }

    // A row with a fluid-boundary pair is flagged for the virtual layers' pass, which adds their
    // terms and then limits the time step by the whole acceleration (eq. 3.34): here the limit of
    // eq. 3.33 alone, which the pass's own pairs can only lower (h / (c0 + max |mu|) is the smaller
    // of the two passes' values, exactly).
    PK_DEVICE_INLINE void finish(std::size_t a, const Particle& self, const Sums& s) const {
        Vec3f acc_a = s.acc;
        Vec3f xsph_a = s.xsph;
        float limit = h / (c0 + s.max_mu);  // eq. 3.33
        bool more = false;  // the virtual layers' pass adds to this row
        if constexpr (Walls::enabled)
            more = walls.flags && s.wall_pairs > 0u && (self.fluid() || walls.layers[a].w > 0.0f);
        if (self.fluid()) {
            acc_a += gravity;
            acc_a += volumes.acceleration(self.r, self.v);
            if (!more) limit = acceleration_limit(limit, acc_a);
            if constexpr (Extras::enabled) xsph_a *= extras.xsph.epsilon;
        } else {
            xsph_a = {0.0f, 0.0f, 0.0f};
        }
        acceleration[a] = acc_a;
        density_rate[a] = s.drho;
        xsph_velocity[a] = xsph_a;
        dt_limit[a] = limit;
        if constexpr (Walls::enabled) {
            if (more) {
                walls.flags[a] = 1u;
                walls.pair_count[a] = s.wall_pairs;  // past the capacity: searched again
            }
        }
    }

    // The smaller of `limit` and a fluid particle's limit by its acceleration (eq. 3.34).
    PK_DEVICE_INLINE float acceleration_limit(float limit, Vec3f acc_a) const {
        const float a_abs = norm(acc_a);
        return a_abs > 0.0f ? fminf(limit, sqrtf(h / a_abs)) : limit;
    }
};

// mdbc: the virtual wall layers' terms (boundary.hpp), added to the rates pass's outputs in a pass
// of their own over the rows it flagged: a fluid particle with a boundary neighbour, and with the
// wall impulse tracked a boundary particle with virtual layers and a fluid neighbour (RowSubset's
// list, solver_impl.hpp). The rates pass is then the dbc pair loop, at its registers; inside it the
// virtual points spilled (docs/PERFORMANCE.md). A row's fluid-boundary pairs come from the rates
// pass's list of them (VirtualLayers::pair_index, as NeighborLists) where it holds them all, else
// from a search: the same neighbours in the same order either way.
// Each fluid-boundary pair's virtual points: at x_b + o seen from a fluid a (r_ab - o), or at
// x_a + o seen by b (r_ab + o), each with the density rho + o . grad rho_g and its pressure, and
// the velocity v + G o where the wall mirrors the fluid's (no-slip, free-slip), with the rates
// pass's clamp of the fluid's pressure term (Rates::pair_of). The points in one flat loop with one
// call of the terms, the wall's side chosen by value (each inlined copy of the terms adds much of
// the solver's CUDA compile time).
// The outputs combine exactly as one pass over all the terms would write them, up to the order of
// the sums: the acceleration, density rate and XSPH sum add (XSPH scaled by epsilon: linear); the
// time-step limit is the smaller of the rates pass's eq. 3.33 and this pass's, then eq. 3.34 on the
// whole acceleration.
template <class RatesPass> struct VirtualLayerRates {
    // Few rows (101k of 888k fluid rows in the 1M dam break: about 3 blocks of 256 per SM, one
    // wave): 80 registers (3 blocks per SM) spill less than 64 (4 blocks; docs/PERFORMANCE.md).
    static constexpr int kMinBlocksPerSM = 3;
    static constexpr bool kOneRank = true;  // mdbc
    RatesPass rates;
    using Particle = typename RatesPass::Particle;
    using Sums = typename RatesPass::Sums;

    PK_DEVICE_INLINE Particle load(std::size_t a) const { return rates.load(a); }
    PK_DEVICE_INLINE bool interacts(const Particle&) const { return true; }

    // The wall's layers and gradients are read where they are used, not held through the
    // neighbour loop (at 64 registers: 524 B of spills held, 248 B read where used).
    PK_DEVICE_INLINE void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b,
                               Sums& s) const {
        const bool b_wall = a.fluid() && sign_bit(record_b.w);
        const bool a_wall = !a.fluid() && !sign_bit(record_b.w);
        if (!(a_wall || b_wall)) return;  // fluid-fluid and boundary-boundary pairs, b = a among them
        const VirtualLayers& walls = rates.walls;
        const std::uint32_t wall = b_wall ? b : a.index;
        const Vec4f layers = walls.layers[wall];
        const int count = layers.w > 0.0f ? int(layers.w) : 0;
        if (count == 0) return;
        const float m_b = fabsf(record_b.w);
        const Vec4f vr_b = rates.velocity_density[b];
        // The penetration barrier: the wall's pressure raised by P in the pair's pressure term,
        // |grad W| P / rho_w^2, pushing the fluid along the wall's normal (out of it, also where
        // it has passed the wall particle) and the wall the other way (the wall force).
        const Vec3f normal = walls.normal[wall];
        const float barrier = penetration_pressure(b_wall ? r_ab : -r_ab, normal, walls.penetration_margin,
                                                   walls.penetration_stiffness);
        if (barrier > 0.0f) {
            const float rho_w = b_wall ? vr_b.w : a.rho;
            const float push = m_b * fabsf(rates.kernel.grad_factor(r2)) * sqrtf(r2) * barrier / (rho_w * rho_w * norm(normal));
            s.acc += (b_wall ? push : -push) * normal;
        }
        const float pressure_term_b = a_wall ? max_of(rates.pressure_term[b], 0.0f) : rates.pressure_term[b];
        Particle a_o = a;
        if (b_wall) a_o.pressure_term = max_of(a.pressure_term, 0.0f);
        const float rho_wall = b_wall ? vr_b.w : a.rho;
        const Vec3f v_wall = b_wall ? vr_b.xyz() : a.v;
        for_each_virtual_point(layers.xyz(), count, [&](int, int, int, Vec3f o) {
            const Vec3f r_o = b_wall ? r_ab - o : r_ab + o;
            const float r2_o = norm2(r_o);
            if (!(r2_o < walls.support2)) return;
            const float rho_o = fmaxf(rho_wall + dot(o, walls.density_gradient[wall]), walls.eos.rho0);
            const float pressure_term_o = walls.eos.pressure(rho_o) / (rho_o * rho_o);
            const Vec3f v_o = walls.velocity_gradient ? v_wall + walls.velocity_gradient[wall].times(o) : v_wall;
            Particle a_p = a_o;
            if (a_wall) {
                a_p.v = v_o;
                a_p.rho = rho_o;
                a_p.pressure_term = pressure_term_o;
            }
            rates.terms(a_p, b, m_b, b_wall ? Vec4f{v_o.x, v_o.y, v_o.z, rho_o} : vr_b,
                        b_wall ? pressure_term_o : pressure_term_b, record_b.w, r_o, r2_o, s);
        });
    }

    PK_DEVICE_INLINE void finish(std::size_t a, const Particle& self, const Sums& s) const {
        const Vec3f acc_a = rates.acceleration[a] + s.acc;
        rates.acceleration[a] = acc_a;
        rates.density_rate[a] += s.drho;
        float limit = fminf(rates.dt_limit[a], rates.h / (rates.c0 + s.max_mu));  // eq. 3.33 over both passes
        if (self.fluid()) {
            if constexpr (decltype(RatesPass::extras)::enabled) rates.xsph_velocity[a] += rates.extras.xsph.epsilon * s.xsph;
            limit = rates.acceleration_limit(limit, acc_a);
        }
        rates.dt_limit[a] = limit;
    }
};

}  // namespace partikel::sph
