// Still water (docs/SPH.md, "Validation"): after settling, the pressure against depth follows rho0 g depth within
// 3% below the top layer; no particle escapes; mass is conserved exactly; the total energy
// (kinetic + potential) does not grow without forcing.
//
// Reference: hydrostatics, P(d) = rho0 |g| d, d measured from the free surface (the top
// particle layer's centre plus dx/2). Particles within one kernel support (2h) of the surface
// are excluded: their kernel sums are truncated by the free surface. Pressures are averaged
// per layer over the particles and over the last part of the run.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "sph/eos.hpp"
#include "sph/io/scenes.hpp"
#include "sph/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

struct HydrostaticResult {
    double worst_layer_error = 0.0;  // max over layers of |<P> - rho0 g d| / (rho0 g d)
    double total_mass_change = 0.0;  // kg
    std::uint64_t removed = 0;
    double energy_gain = 0.0;  // max over time of E(t) - E(0), J
    double max_speed = 0.0;    // m/s at the end
};

HydrostaticResult run_still_tank(const Backend& backend, float depth, float dx, bool periodic, double settle_s,
                                 double average_s) {
    SceneOptions o;
    o.width_m = depth;
    o.dx_m = dx;
    o.periodic = periodic;
    const Scene scene = make_scene("still-tank", o);
    const SphParams& p = scene.params;
    const TaitEos eos = TaitEos::from_sound_speed(p.rho0, p.c0, p.gamma);
    const double g = 9.81;
    Solver solver(backend, p, scene.particles);
    HydrostaticResult r;
    auto mass_of = [](const ParticleSet& s) {
        double m = 0.0;
        for (std::size_t i = 0; i < s.size(); ++i) m += s.mass[i];
        return m;
    };
    const double mass0 = mass_of(scene.particles);
    const Diagnostics d0 = solver.diagnostics();
    const double energy0 = d0.kinetic_J + d0.potential_J;
    // Per layer of thickness dx below the surface: sums of pressure and depth over particles
    // and over samples of the last `average_s` seconds (averaging out the acoustic ringing
    // that alpha = 0.01 damps only slowly).
    std::map<int, double> sum_P, sum_depth;
    std::map<int, int> count;
    while (solver.time() < settle_s + average_s) {
        solver.step();
        if (solver.step_count() % 20 != 0) continue;
        const Diagnostics d = solver.diagnostics();
        r.energy_gain = std::max(r.energy_gain, d.kinetic_J + d.potential_J - energy0);
        if (solver.time() < settle_s) continue;
        const ParticleSet out = solver.download();
        // Free surface: the top fluid layer's centre plus dx/2.
        const double surface = d.fluid_max.y + 0.5 * dx;
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (out.kind[i] != ParticleKind::fluid) continue;
            const double depth_i = surface - out.position[i].y;
            if (depth_i < 2.0 * p.h_m) continue;
            const int layer = int(depth_i / dx);
            sum_P[layer] += eos.pressure(out.density[i]);
            sum_depth[layer] += depth_i;
            ++count[layer];
        }
    }
    const ParticleSet out = solver.download();
    r.total_mass_change = mass_of(out) - mass0;
    r.removed = solver.removed();
    r.max_speed = solver.diagnostics().max_speed;
    for (const auto& [layer, P_sum] : sum_P) {
        const double P = P_sum / count[layer], dpt = sum_depth[layer] / count[layer];
        const double expected = p.rho0 * g * dpt;
        const double err = std::abs(P - expected) / expected;
        r.worst_layer_error = std::max(r.worst_layer_error, err);
        MESSAGE("depth " << dpt << " m: P = " << P << " Pa, rho0 g d = " << expected << " Pa, error " << 100 * err
                         << " %");
    }
    return r;
}

void periodic_tank(const Backend& backend) {
    const auto r = run_still_tank(backend, 0.1f, 0.005f, true, 0.2, 0.1);
    CHECK(r.worst_layer_error < 0.03);
    CHECK(r.removed == 0);
    CHECK(r.total_mass_change == 0.0);
    // Energy: the settled state may only have lost energy (1e-4 J ~ 1e-4 of E0 allows round-off).
    CHECK(r.energy_gain < 1e-4);
    CHECK(r.max_speed < 0.02);
}

void closed_tank(const Backend& backend) {
    const auto r = run_still_tank(backend, 0.1f, 0.004f, false, 0.6, 0.2);
    CHECK(r.worst_layer_error < 0.03);
    CHECK(r.removed == 0);
    CHECK(r.total_mass_change == 0.0);
    CHECK(r.energy_gain < 1e-4);
}

}  // namespace

PK_PHYSICS_TEST("hydrostatic pressure in a still tank (periodic, 0.1 m deep, dx = 5 mm)", periodic_tank)
PK_SLOW_PHYSICS_TEST("hydrostatic pressure in a closed tank with walls (0.1 m, dx = 4 mm)", closed_tank)
