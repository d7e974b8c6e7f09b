// A Plummer sphere in virial equilibrium stays in equilibrium: over 10 crossing times
// (t_cr = 2 sqrt(2) in Henon units, Heggie & Mathieu 1986) the Lagrangian radii of 10, 50 and
// 90 % of the mass change by less than 2 % and the total energy by less than 1e-3. Radii are
// averaged over the first and over the last crossing time, so that the comparison is not
// dominated by the sampling noise of 8,192 bodies (about 1 % for the 10 % radius). Slow.
#include <doctest/doctest.h>

#include <cmath>

#include "nbody/initial_conditions.hpp"
#include "nbody/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::nbody;

namespace {

void plummer_equilibrium(const Backend& backend) {
    const Model m = plummer({.n = 8192, .seed = 41});
    NbodyParams p = m.params;  // tree, theta 0.5, quadrupoles, softening 0.78 n^-1/3
    p.dt = 1.0 / 32.0;
    const double crossing = 2.0 * std::sqrt(2.0);
    const int steps_per_crossing = int(std::ceil(crossing / p.dt));
    Solver s(backend, p, m.bodies);
    const double e0 = s.diagnostics().total;
    double first[3] = {0, 0, 0}, last[3] = {0, 0, 0};
    double worst_energy = 0.0;
    const int samples = 8;  // per crossing time
    for (int crossing_index = 0; crossing_index < 10; ++crossing_index) {
        for (int k = 0; k < samples; ++k) {
            for (int i = 0; i < steps_per_crossing / samples; ++i) s.step();
            const Diagnostics d = s.diagnostics();
            worst_energy = std::max(worst_energy, std::fabs(d.total - e0) / std::fabs(e0));
            for (int r = 0; r < 3; ++r) {
                if (crossing_index == 0) first[r] += d.lagrangian_radius[r] / samples;
                if (crossing_index == 9) last[r] += d.lagrangian_radius[r] / samples;
            }
        }
    }
    MESSAGE("t = ", s.time(), ": Lagrangian radii (10/50/90 %) ", first[0], " -> ", last[0], ", ", first[1], " -> ",
            last[1], ", ", first[2], " -> ", last[2], "; largest energy change ", worst_energy);
    for (int r = 0; r < 3; ++r) {
        CAPTURE(r);
        CHECK(std::fabs(last[r] / first[r] - 1.0) < 0.02);
    }
    CHECK(worst_energy < 1e-3);
}

}  // namespace

TEST_SUITE("slow") {
    PK_BACKEND_TEST("nbody.equilibrium: a Plummer sphere keeps its Lagrangian radii for 10 crossing times",
                    plummer_equilibrium)
}
