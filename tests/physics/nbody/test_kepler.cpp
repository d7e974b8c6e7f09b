// Kepler's two-body problem (the analytic period P = 2 pi sqrt(a^3 / G M)
// and the conserved energy -G m1 m2 / 2a): with a small step (P / 4096) the leapfrog orbit's
// period is within 1e-4 of P and the energy drifts by less than 1e-6 per orbit, for the direct
// sum and the tree (two bodies share one leaf), on every backend.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "nbody/initial_conditions.hpp"
#include "nbody/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::nbody;

namespace {

constexpr double kPi = 3.14159265358979323846;

// Angle of the separation x(id 1) - x(id 0), whatever order the solver keeps the bodies in.
double separation_angle(const Bodies& b) {
    const std::size_t first = b.id[0] == 0 ? 0 : 1, second = 1 - first;
    const Vec3d r = b.position[second] - b.position[first];
    return std::atan2(r.y, r.x);
}

void kepler_orbit(const Backend& backend) {
    for (ForceMethod method : {ForceMethod::direct, ForceMethod::tree}) {
        CAPTURE(force_method_name(method));
        const Model m = kepler({.eccentricity = 0.5, .semi_major_axis = 1.0, .mass1 = 0.6, .mass2 = 0.4});
        NbodyParams p = m.params;  // G = 1, no softening, dt = P / 4096
        p.method = method;
        const double period = kepler_period(1.0, 1.0, 1.0);
        Solver s(backend, p, m.bodies);
        const double e0 = s.diagnostics().total;
        CHECK(e0 == doctest::Approx(-0.6 * 0.4 / 2.0).epsilon(1e-6));
        // The separation starts along +x (apoapsis); the unwrapped angle passes 2 pi k after k orbits.
        const int orbits = 3;
        std::vector<double> crossings;
        double angle = 0.0, previous = separation_angle(s.download());
        double previous_time = 0.0;
        while (int(crossings.size()) < orbits) {
            s.step();
            const double a = separation_angle(s.download());
            double delta = a - previous;
            if (delta < -kPi) delta += 2 * kPi;
            const double unwrapped = angle + delta;
            const double target = 2 * kPi * double(crossings.size() + 1);
            if (unwrapped >= target)  // linear interpolation between the two steps around the crossing
                crossings.push_back(previous_time + (s.time() - previous_time) * (target - angle) / (unwrapped - angle));
            angle = unwrapped;
            previous = a;
            previous_time = s.time();
            REQUIRE(s.time() < 2 * orbits * period);
        }
        const double measured = crossings.back() / orbits;
        const double drift = std::fabs(s.diagnostics().total - e0) / std::fabs(e0) / orbits;
        MESSAGE("period ", measured, " (relative error ", measured / period - 1.0, "), energy drift per orbit ", drift);
        CHECK(std::fabs(measured / period - 1.0) < 1e-4);
        CHECK(drift < 1e-6);
    }
}

}  // namespace

PK_BACKEND_TEST("nbody.kepler: period within 1e-4 and energy drift below 1e-6 per orbit", kepler_orbit)
