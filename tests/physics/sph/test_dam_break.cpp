// Dam break against experiment (docs/SPH.md, "Validation"): the surge-front position Z = x/a against
// T = t sqrt(2g/a) of a water column a wide and 2a high (n^2 = 2), x measured from the
// column's back wall; also no energy gain (the flow only converts potential energy and
// dissipates it), no escapes and exact mass conservation.
//
// Reference data (read off the published figures; both sets as tabulated in PySPH's
// pysph/examples/db_exp_data.py):
//   Martin, J. C. & Moyce, W. J. (1952), "An experimental study of the collapse of liquid
//   columns on a rigid horizontal plane", Phil. Trans. R. Soc. Lond. A 244, 312-324, Fig. 3,
//   n^2 = 2, a = 2.25 in (0.05715 m), the scale sph-init's dam-break uses by default.
//   Koshizuka, S. & Oka, Y. (1996), "Moving-particle semi-implicit method for fragmentation of
//   incompressible fluid", Nucl. Sci. Eng. 123, 421-434 (their experiment), reported only.
// The simulated front is the largest x of a fluid particle plus dx/2 (the particle's extent).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "sph/io/scenes.hpp"
#include "sph/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

// (T, Z) of Martin & Moyce (1952), Fig. 3, n^2 = 2, a = 2.25 in; T <= 3.
const std::vector<std::pair<double, double>> kMartinMoyce{
    {0.832, 1.217}, {1.219, 1.474}, {1.997, 2.292}, {2.547, 2.995}};
// (T, Z) of Koshizuka & Oka (1996), experiment.
const std::vector<std::pair<double, double>> kKoshizukaOka{
    {0.381, 1.111}, {0.769, 1.252}, {1.153, 1.505}, {1.537, 1.892}, {1.935, 2.241}, {2.323, 2.615}, {2.719, 3.003}};

struct DamBreakRun {
    std::vector<std::pair<double, double>> front;  // (T, Z) after every step
    double energy_gain = 0.0;                      // max E(t) - E(0), J
    double energy0 = 0.0;
    double mass_change = 0.0;
    std::uint64_t removed = 0;
};

DamBreakRun run_dam_break(const Backend& backend, float a, float dx, double T_end) {
    SceneOptions o;
    o.width_m = a;
    o.dx_m = dx;
    const Scene scene = make_scene("dam-break", o);
    Solver solver(backend, scene.params, scene.particles);
    const double T_per_s = std::sqrt(2.0 * 9.81 / a);
    DamBreakRun r;
    const Diagnostics d0 = solver.diagnostics();
    r.energy0 = d0.kinetic_J + d0.potential_J;
    double mass0 = 0.0;
    for (float m : scene.particles.mass) mass0 += m;
    while (solver.time() * T_per_s < T_end) {
        solver.step();
        if (solver.step_count() % 2 != 0) continue;
        const Diagnostics d = solver.diagnostics();
        r.front.emplace_back(d.time_s * T_per_s, (d.fluid_max.x + 0.5 * dx) / a);
        r.energy_gain = std::max(r.energy_gain, d.kinetic_J + d.potential_J - r.energy0);
    }
    double mass1 = 0.0;
    for (float m : solver.download().mass) mass1 += m;
    r.mass_change = mass1 - mass0;
    r.removed = solver.removed();
    return r;
}

double front_at(const std::vector<std::pair<double, double>>& front, double T) {
    for (std::size_t i = 1; i < front.size(); ++i)
        if (front[i].first >= T) {
            const auto [T0, Z0] = front[i - 1];
            const auto [T1, Z1] = front[i];
            return Z0 + (Z1 - Z0) * (T - T0) / (T1 - T0);
        }
    return NAN;
}

// Largest relative deviation from Martin & Moyce; reports both data sets.
double compare_with_experiments(const DamBreakRun& r) {
    double worst = 0.0;
    for (const auto& [T, Z] : kMartinMoyce) {
        const double sim = front_at(r.front, T);
        const double err = std::abs(sim - Z) / Z;
        worst = std::max(worst, std::isnan(err) ? 1.0 : err);
        MESSAGE("Martin & Moyce T = " << T << ": Z = " << Z << ", simulated " << sim << " (" << 100 * (sim - Z) / Z
                                      << " %)");
    }
    for (const auto& [T, Z] : kKoshizukaOka) {
        const double sim = front_at(r.front, T);
        MESSAGE("Koshizuka & Oka T = " << T << ": Z = " << Z << ", simulated " << sim << " (" << 100 * (sim - Z) / Z
                                       << " %)");
    }
    return worst;
}

void front_within_10_percent_at_16(const Backend& backend) {
    const float a = kMartinMoyceWidth_m;
    const DamBreakRun r = run_dam_break(backend, a, a / 16.0f, 3.0);
    CHECK(compare_with_experiments(r) < 0.10);
    CHECK(r.removed == 0);
    CHECK(r.mass_change == 0.0);
    // No energy gain: E = KE + PE may only fall (tolerance 1e-4 of E0 for round-off).
    MESSAGE("energy: E0 = " << r.energy0 << " J, largest gain " << r.energy_gain << " J");
    CHECK(r.energy_gain < 1e-4 * r.energy0);
}

// Finer resolution does not bring the front closer: at a/dx = 32 it runs 8-13% ahead of Martin
// & Moyce (measured 2026-11-22: +9.4, +12.8, +9.6, +8.0% at the four points), because less
// numerical dissipation remains while the experiment's gate opening and wall friction are not
// modelled; the body of the surge leads as well, not only its tip, and water's viscosity
// changes nothing (docs/SPH.md, the front-definition study at a/dx = 16, 32, 64). The
// tolerance states that measurement; it is not tighter than the CI case.
void front_within_15_percent_at_32(const Backend& backend) {
    const float a = kMartinMoyceWidth_m;
    const DamBreakRun r = run_dam_break(backend, a, a / 32.0f, 3.0);
    CHECK(compare_with_experiments(r) < 0.15);
    CHECK(r.removed == 0);
    CHECK(r.mass_change == 0.0);
    CHECK(r.energy_gain < 1e-4 * r.energy0);
}

}  // namespace

PK_PHYSICS_TEST("dam break: surge front within 10% of Martin & Moyce (1952) for T <= 3 (a/dx = 16)",
                front_within_10_percent_at_16)
PK_SLOW_PHYSICS_TEST("dam break: surge front within 15% of Martin & Moyce (1952) for T <= 3 (a/dx = 32)",
                     front_within_15_percent_at_32)
