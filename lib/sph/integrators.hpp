// Time integration of weakly compressible SPH, written once for both backends: the midpoint
// predictor-corrector (Werner 2015, eqs. 3.37-3.42), DualSPHysics's symplectic corrector, and
// Verlet (Verlet 1967, as DualSPHysics uses it). Each functor updates particle a in place.
#pragma once

#include <cstdint>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "frnn/box.hpp"
#include "sph/rates.hpp"

namespace partikel::sph {

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
                                              float rho0, const BoundaryStage& moving, const frnn::PeriodicWrap& wrap) {
    pos = moves ? wrap(from + moving.displacement) : from;
    vel = moves ? moving.velocity : Vec3f{0.0f, 0.0f, 0.0f};
    rho = fmaxf(d_new, rho0);
}

// The rates a stage integrates with (the last rates pass).
struct StageRates {
    const Vec3f* acceleration;
    const Vec3f* xsph_velocity;
    const float* density_rate;
};

// Midpoint predictor (eqs. 3.37-3.39): keeps the state at t in the *_start fields and moves the
// state to t + dt/2 with the rates at t.
struct Predict {
    Vec3f* position;
    Vec3f* velocity;
    float* density;
    Vec3f* position_start;
    Vec3f* velocity_start;
    float* density_start;
    StageRates rates;
    const std::uint8_t* kind;
    float half_dt;
    float rho0;
    BoundaryStage moving;
    frnn::PeriodicWrap wrap;
    PK_DEVICE_INLINE void operator()(std::size_t a) const {
        const Vec3f r = position[a], v = velocity[a];
        const float d = density[a];
        position_start[a] = r;
        velocity_start[a] = v;
        density_start[a] = d;
        const float d_new = d + half_dt * rates.density_rate[a];
        if (kind[a] == kFluidKind) {
            position[a] = wrap(r + half_dt * (v + rates.xsph_velocity[a]));
            velocity[a] = v + half_dt * rates.acceleration[a];
            density[a] = d_new;
        } else {
            place_boundary_particle(position[a], velocity[a], density[a], r, kind[a] == kMovingBoundaryKind, d_new, rho0,
                                    moving, wrap);
        }
    }
};

enum class CorrectorKind { midpoint, symplectic };

// Corrector from t to t + dt with the rates at t + dt/2: midpoint (eqs. 3.40-3.42) or the
// symplectic position Verlet of DualSPHysics (v by the half-step rate, r by the mean of v_t
// and v_{t+dt}, rho by rho_t (2 - eps)/(2 + eps), eps = -(drho/rho) dt).
struct Correct {
    Vec3f* position;  // in: the half-step state; out: the state at t + dt
    Vec3f* velocity;
    float* density;
    const Vec3f* position_start;
    const Vec3f* velocity_start;
    const float* density_start;
    StageRates rates;
    const std::uint8_t* kind;
    float dt;
    float rho0;
    CorrectorKind scheme;
    BoundaryStage moving;
    frnn::PeriodicWrap wrap;
    PK_DEVICE_INLINE void operator()(std::size_t a) const {
        float d_new;
        if (scheme == CorrectorKind::midpoint) {
            d_new = density_start[a] + dt * rates.density_rate[a];
        } else {
            const float eps = -(rates.density_rate[a] / density[a]) * dt;
            d_new = density_start[a] * (2.0f - eps) / (2.0f + eps);
        }
        if (kind[a] == kFluidKind) {
            const Vec3f v_new = velocity_start[a] + dt * rates.acceleration[a];
            const Vec3f drift = scheme == CorrectorKind::midpoint ? velocity[a] : 0.5f * (velocity_start[a] + v_new);
            position[a] = wrap(position_start[a] + dt * (drift + rates.xsph_velocity[a]));
            velocity[a] = v_new;
            density[a] = d_new;
        } else {
            place_boundary_particle(position[a], velocity[a], density[a], position_start[a],
                                    kind[a] == kMovingBoundaryKind, d_new, rho0, moving, wrap);
        }
    }
};

// Verlet: v_{n+1} = v_{n-1} + 2 dt a_n, r_{n+1} = r_n + dt v_n + dt^2/2 a_n,
// rho_{n+1} = rho_{n-1} + 2 dt drho_n; an Euler step (v_n + dt a_n, rho_n + dt drho_n) every N
// steps and whenever no previous state exists. The *_previous fields hold v_{n-1}, rho_{n-1} on
// entry and v_n, rho_n on exit.
struct VerletStep {
    Vec3f* position;
    Vec3f* velocity;
    float* density;
    Vec3f* velocity_previous;
    float* density_previous;
    StageRates rates;
    const std::uint8_t* kind;
    float dt;
    float rho0;
    bool euler;
    BoundaryStage moving;
    frnn::PeriodicWrap wrap;
    PK_DEVICE_INLINE void operator()(std::size_t a) const {
        const Vec3f v = velocity[a];
        const float d = density[a];
        const Vec3f v_prev = velocity_previous[a];
        const float d_new = euler ? d + dt * rates.density_rate[a] : density_previous[a] + 2.0f * dt * rates.density_rate[a];
        velocity_previous[a] = v;
        density_previous[a] = d;
        if (kind[a] == kFluidKind) {
            position[a] = wrap(position[a] + dt * (v + rates.xsph_velocity[a]) + (0.5f * dt * dt) * rates.acceleration[a]);
            velocity[a] = (euler ? v : v_prev) + (euler ? dt : 2.0f * dt) * rates.acceleration[a];
            density[a] = d_new;
        } else {
            place_boundary_particle(position[a], velocity[a], density[a], position[a], kind[a] == kMovingBoundaryKind,
                                    d_new, rho0, moving, wrap);
        }
    }
};

}  // namespace partikel::sph
