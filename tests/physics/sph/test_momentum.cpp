// Momentum balance with the walls (docs/SPH.md, "Validation"): for the fluid, dP/dt = M g + F_wall, where F_wall
// is everything the tank (boundary particles and repulsive walls) exerts on it. In a still
// tank the time-averaged wall force must carry the weight, F_wall = -M g, and the horizontal
// momentum must stay ~0 (the tank is symmetric; a net sideways push would be a bug in the pair
// forces between fluid and boundary particles).
//
// In the still tank the wall force is measured as the impulse: over [t1, t2],
// <F_wall> = (P(t2) - P(t1)) / (t2 - t1) - M g, with P = sum m v over the fluid particles. A
// tank without a floor would give <F_wall> = 0 (ratio 0 below), walls pushing harder than the
// weight would lift the fluid (ratio > 1). In the dam break the solver's own wall impulse
// (summed from the walls' side) must balance the fluid's momentum exactly.
#include <doctest/doctest.h>

#include <cmath>

#include "sph/io/scenes.hpp"
#include "sph/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

struct FluidMomentum {
    Vec3d momentum_kg_m_s{0.0, 0.0, 0.0};
    double mass_kg = 0.0;
};

FluidMomentum fluid_momentum(const ParticleSet& s) {
    FluidMomentum f;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.kind[i] != ParticleKind::fluid) continue;
        f.mass_kg += s.mass[i];
        for (int k = 0; k < 3; ++k) f.momentum_kg_m_s[k] += double(s.mass[i]) * s.velocity[i][k];
    }
    return f;
}

void walls_carry_the_weight(const Backend& backend) {
    SceneOptions o;
    o.width_m = 0.05f;  // depth; a closed tank of boundary particles, 10 x 10 x 10 fluid particles
    o.dx_m = 0.005f;
    const Scene scene = make_scene("still-tank", o);
    const double g_m_s2 = 9.81;
    Solver solver(backend, scene.params, scene.particles);
    // Averaged over 0.05 .. 0.25 s: several acoustic periods (2 depth / c0 ~ 5 ms) and the
    // slower settling of the top layer, after the first start-up transient.
    const double t1_s = 0.05, t2_s = 0.25;
    while (solver.time() < t1_s) solver.step();
    const double time1_s = solver.time();
    const FluidMomentum f1 = fluid_momentum(solver.download());
    double max_horizontal_kg_m_s = 0.0;
    while (solver.time() < t2_s) {
        solver.step();
        const FluidMomentum f = fluid_momentum(solver.download());
        max_horizontal_kg_m_s = std::max({max_horizontal_kg_m_s, std::abs(f.momentum_kg_m_s.x),
                                          std::abs(f.momentum_kg_m_s.z)});
    }
    const FluidMomentum f2 = fluid_momentum(solver.download());
    const double span_s = solver.time() - time1_s;
    const double weight_N = f2.mass_kg * g_m_s2;
    const double wall_force_y_N = (f2.momentum_kg_m_s.y - f1.momentum_kg_m_s.y) / span_s + weight_N;
    const double wall_force_x_N = (f2.momentum_kg_m_s.x - f1.momentum_kg_m_s.x) / span_s;
    const double wall_force_z_N = (f2.momentum_kg_m_s.z - f1.momentum_kg_m_s.z) / span_s;
    MESSAGE("wall force / weight: y ", wall_force_y_N / weight_N, ", x ", wall_force_x_N / weight_N, ", z ",
            wall_force_z_N / weight_N, "; max |P_horizontal| ", max_horizontal_kg_m_s, " kg m/s");
    CHECK(f2.mass_kg == doctest::Approx(f1.mass_kg));
    CHECK(std::abs(wall_force_y_N / weight_N - 1.0) < 0.01);
    CHECK(std::abs(wall_force_x_N / weight_N) < 0.001);
    CHECK(std::abs(wall_force_z_N / weight_N) < 0.001);
    // Scale: M sqrt(g depth), the momentum of a sloshing mode; still water stays far below it.
    CHECK(max_horizontal_kg_m_s < 1e-3 * f2.mass_kg * std::sqrt(g_m_s2 * o.width_m));
}

void momentum_balance_through_the_impacts(const Backend& backend) {
    // Newton's third law in the pair forces: fluid-fluid terms cancel in the sum over the
    // fluid, so the fluid's momentum changes only by gravity and by what the walls give it,
    // P(t) - P(0) = M g t + J(t). The solver accumulates J independently of the fluid's
    // accelerations: from the boundary particles' side (the reaction of their own momentum sums)
    // plus the repulsive volumes' force (SolverOptions::track_wall_impulse). With the midpoint
    // integrator the balance is exact up to rounding; it must hold through the collapse (only
    // the back wall and the floor push), the impact on the far wall (T ~ 3.5) and the run-up
    // after it, where the wall forces are largest. Tolerance: 1e-4 of M g t (rounding of float
    // accelerations over a few thousand steps is far below; a wall term missing from J, or a
    // pair force that is not antisymmetric, is of order 1).
    SceneOptions o;
    o.width_m = 0.04f;
    o.dx_m = 0.004f;
    const Scene scene = make_scene("dam-break", o);
    const double g_m_s2 = 9.81, a_m = o.width_m;
    Solver solver(backend, scene.params, scene.particles, 0, 0.0, {.track_wall_impulse = true});
    const Diagnostics d0 = solver.diagnostics();
    CHECK(d0.wall_impulse_N_s.x == 0.0);
    const double mass_kg = fluid_momentum(solver.download()).mass_kg;
    for (double T : {0.5, 1.5, 3.0, 4.5}) {
        CAPTURE(T);
        const double t_s = T / std::sqrt(2.0 * g_m_s2 / a_m);
        while (solver.time() < t_s) solver.step();
        const Diagnostics d = solver.diagnostics();
        const double weight_impulse = mass_kg * g_m_s2 * d.time_s;
        const Vec3d expected{d.wall_impulse_N_s.x, d.wall_impulse_N_s.y - weight_impulse, d.wall_impulse_N_s.z};
        const Vec3d change{d.momentum_kg_m_s.x - d0.momentum_kg_m_s.x, d.momentum_kg_m_s.y - d0.momentum_kg_m_s.y,
                           d.momentum_kg_m_s.z - d0.momentum_kg_m_s.z};
        MESSAGE("T ", T, ": dP = (", change.x, ", ", change.y, ", ", change.z, "), M g t + J = (", expected.x, ", ",
                expected.y, ", ", expected.z, ") kg m/s; J_x / (M g t) = ", d.wall_impulse_N_s.x / weight_impulse);
        for (int k = 0; k < 3; ++k) CHECK(std::abs(change[k] - expected[k]) < 1e-4 * weight_impulse);
        // The walls push the fluid forward (back wall) before the far wall is reached.
        if (T < 3.5) CHECK(d.wall_impulse_N_s.x > 0.1 * weight_impulse);
        CHECK(d.removed == 0);
    }
}

}  // namespace

PK_PHYSICS_TEST("still tank: the walls carry the fluid's weight; no sideways momentum", walls_carry_the_weight)
PK_PHYSICS_TEST("dam break: momentum change = weight impulse + wall impulse, through both impacts",
                momentum_balance_through_the_impacts)
