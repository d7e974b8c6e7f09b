// Initial conditions: Plummer (AHW 1974) against its analytic Lagrangian radii, virial ratio and
// Henon energy; uniform bodies at the requested virial ratio; the Kepler pair's orbit; the galaxy
// pair's masses, counts and orbit; the same bodies from a seed for every thread count.
#include <doctest/doctest.h>

#include <cmath>

#include "base/error.hpp"
#include "nbody/initial_conditions.hpp"
#include "nbody/random.hpp"
#include "nbody/solver.hpp"

using namespace partikel;
using namespace partikel::nbody;

namespace {

Diagnostics diagnose(const Model& m) {
    NbodyParams p = m.params;
    p.method = ForceMethod::direct;
    p.softening = 0.0f;  // the continuum values have no softening
    Solver s(Backend::cpu(0), p, m.bodies);
    return s.diagnostics();
}

}  // namespace

TEST_CASE("nbody.ic: Plummer sphere in Henon units") {
    const Model m = plummer({.n = 8192, .seed = 7});
    const Diagnostics d = diagnose(m);
    // Plummer (scale a = 3 pi / 16): r(f) = a / sqrt(f^-2/3 - 1); E = -1/4; 2K/|W| = 1. Sampling
    // noise of 8192 bodies: a few per cent in the radii, ~2 % in K and W.
    const double a = 3.0 * 3.14159265358979 / 16.0;
    for (int k = 0; k < 3; ++k) {
        const double f = kLagrangianFractions[k];
        CAPTURE(f);
        CHECK(d.lagrangian_radius[k] == doctest::Approx(a / std::sqrt(std::pow(f, -2.0 / 3.0) - 1.0)).epsilon(0.05));
    }
    CHECK(d.total == doctest::Approx(-0.25).epsilon(0.04));
    CHECK(d.virial_ratio == doctest::Approx(1.0).epsilon(0.05));
    CHECK(d.mass == doctest::Approx(1.0));
    CHECK(std::fabs(d.centre_of_mass.x) < 1e-12);
    CHECK(std::fabs(d.momentum.y) < 1e-12);
    CHECK(m.params.softening == doctest::Approx(0.78 / std::cbrt(8192.0)));
}

TEST_CASE("nbody.ic: the same seed gives the same bodies for any thread count") {
    const Model a = plummer({.n = 1000, .seed = 11});
    const Model b = plummer({.n = 1000, .seed = 11});
    const Model c = plummer({.n = 1000, .seed = 12});
    CHECK(a.bodies.position[999].x == b.bodies.position[999].x);
    CHECK(a.bodies.velocity[500].z == b.bodies.velocity[500].z);
    CHECK(a.bodies.position[999].x != c.bodies.position[999].x);
    // Golden values, fixed forever: a change here changes every model built from a seed.
    Random r(1, 0);
    CHECK(r.next() == 3986457179768683244ull);
    CHECK(a.bodies.position[0].x == doctest::Approx(-0.13305515217972316).epsilon(1e-12));
    CHECK(a.bodies.velocity[0].z == doctest::Approx(-0.84719315610491286).epsilon(1e-12));
}

TEST_CASE("nbody.ic: uniform sphere and cube at the requested virial ratio; cold collapse at rest") {
    for (UniformShape shape : {UniformShape::sphere, UniformShape::cube}) {
        const Model m = uniform({.n = 4096, .seed = 5, .shape = shape, .size = 2.0, .virial_ratio = 0.5});
        const Diagnostics d = diagnose(m);
        CAPTURE(int(shape));
        // The sampled W is the continuum value to a few per cent (1/N and Poisson terms).
        const double W = shape == UniformShape::sphere ? -0.6 / 2.0 : -0.9411563 / 2.0;
        CHECK(d.potential == doctest::Approx(W).epsilon(0.03));
        CHECK(d.virial_ratio == doctest::Approx(0.5).epsilon(0.06));
    }
    const Model cold = uniform({.n = 100, .virial_ratio = 0.0});
    for (const Vec3d& v : cold.bodies.velocity) CHECK(v.x == 0.0);
    CHECK_THROWS_AS(uniform({.n = 10, .virial_ratio = -1.0}), UsageError);
    CHECK_THROWS_AS(parse_uniform_shape("torus"), UsageError);
}

TEST_CASE("nbody.ic: Kepler pair at apoapsis") {
    const Model m = kepler({.eccentricity = 0.6, .semi_major_axis = 2.0, .mass1 = 0.75, .mass2 = 0.25});
    const Bodies& b = m.bodies;
    const double r = b.position[1].x - b.position[0].x;
    CHECK(r == doctest::Approx(2.0 * 1.6));
    // Vis-viva: v^2 = G M (2/r - 1/a).
    const double v = b.velocity[1].y - b.velocity[0].y;
    CHECK(v * v == doctest::Approx(1.0 * (2.0 / r - 1.0 / 2.0)));
    CHECK(0.75 * b.position[0].x + 0.25 * b.position[1].x == doctest::Approx(0.0));
    CHECK(kepler_period(1.0, 1.0, 1.0) == doctest::Approx(2.0 * 3.14159265358979));
    CHECK_THROWS_AS(kepler({.eccentricity = 1.0}), UsageError);
}

TEST_CASE("nbody.ic: galaxy pair after the thesis's runs") {
    const GalaxyPairOptions o{.n = 6000, .seed = 3};
    const Model m = galaxy_pair(o);
    REQUIRE(m.bodies.size() == 6000);
    CHECK(m.params.units.kind == UnitSystemKind::astro);
    const GalaxyCounts a = galaxy_counts(6000, true);
    CHECK(a.disk == 1000);
    CHECK(a.halo == 2000);
    CHECK(galaxy_counts(524288, true).disk == 87382);  // the thesis's visible bodies per galaxy
    double disk = 0, total = 0;
    Vec3d ca{0, 0, 0}, cb{0, 0, 0};
    for (std::size_t i = 0; i < 6000; ++i) {
        const bool first = i < a.disk + a.halo;
        const std::size_t k = first ? i : i - (a.disk + a.halo);
        if (first) {
            total += m.bodies.mass[i];
            if (k < a.disk) disk += m.bodies.mass[i];
            ca += m.bodies.mass[i] * m.bodies.position[i];
        } else {
            cb += m.bodies.mass[i] * m.bodies.position[i];
        }
    }
    CHECK(disk == doctest::Approx(3.35238));
    CHECK(total == doctest::Approx(134.095));
    const Vec3d sep = cb / 134.095 - ca / 134.095;
    CHECK(std::sqrt(dot(sep, sep)) == doctest::Approx(500.0).epsilon(0.05));
    // The point-mass orbit reaches pericentre after 560 steps of 2.444 Myr; it is mildly hyperbolic.
    const double e = galaxy_pair_eccentricity(o);
    CHECK(e > 1.0);
    CHECK(e < 1.2);
    const double GM = astro_units().G * 2.0 * 134.095;
    CHECK(time_to_pericenter(e, 25.0, 500.0, GM) * kMyrPerAstroTime == doctest::Approx(560 * 2.444).epsilon(1e-6));
    CHECK(m.params.dt * kMyrPerAstroTime == doctest::Approx(2.444));
    // A parabola from 500 kpc to 25 kpc takes longer (Barker's equation): about 1.63 Gyr.
    CHECK(time_to_pericenter(1.0, 25.0, 500.0, GM) * kMyrPerAstroTime == doctest::Approx(1627).epsilon(0.01));
}

TEST_CASE("nbody.ic: a model in Henon units rescaled to astro units keeps its dynamics") {
    // Kepler: the period becomes 2 pi sqrt((a L)^3 / (G M_total M)) and the step stays P / 4096;
    // vis-viva holds at apoapsis with G = 43007.1.
    const double G = astro_units().G;
    const Model k = in_astro_units(kepler({.eccentricity = 0.3}), 2.0, 5.0);
    CHECK(k.params.units.kind == UnitSystemKind::astro);
    CHECK(k.params.dt == doctest::Approx(kepler_period(5.0, 2.0, G) / 4096.0).epsilon(1e-12));
    const double r = k.bodies.position[1].x - k.bodies.position[0].x;
    const double v = k.bodies.velocity[1].y - k.bodies.velocity[0].y;
    CHECK(r == doctest::Approx(5.0 * 1.3));
    CHECK(v * v == doctest::Approx(G * 2.0 * (2.0 / r - 1.0 / 5.0)).epsilon(1e-12));
    // Plummer: energies scale by G M^2 / L, radii and softening by L, the virial ratio stays
    // (to the single precision of the force sums).
    const Model p = plummer({.n = 2048, .seed = 3});
    const Model q = in_astro_units(p, 10.0, 2.0);
    const Diagnostics dp = diagnose(p), dq = diagnose(q);
    CHECK(dq.total == doctest::Approx(dp.total * G * 100.0 / 2.0).epsilon(1e-6));
    CHECK(dq.virial_ratio == doctest::Approx(dp.virial_ratio).epsilon(1e-6));
    CHECK(dq.lagrangian_radius[1] == doctest::Approx(2.0 * dp.lagrangian_radius[1]).epsilon(1e-12));
    CHECK(dq.mass == doctest::Approx(10.0));
    CHECK(q.params.softening == doctest::Approx(2.0 * p.params.softening));
    CHECK_THROWS_AS(in_astro_units(galaxy_pair({.n = 6}), 1.0, 1.0), UsageError);
    CHECK_THROWS_AS(in_astro_units(p, std::nan(""), 1.0), UsageError);
    CHECK_THROWS_AS(in_astro_units(p, 1.0, 0.0), UsageError);
}
