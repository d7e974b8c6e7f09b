// Initial distributions: rms emittances, matching, mismatch, longitudinal shapes.
#include <doctest/doctest.h>

#include <cmath>

#include "base/error.hpp"
#include "pic/distribution.hpp"

using namespace partikel;
using namespace partikel::pic;

namespace {

struct Plane {
    double xx = 0, xxp = 0, xpxp = 0, mean = 0;
    double emittance() const { return std::sqrt(xx * xpxp - xxp * xxp); }
};

Plane moments(const std::vector<double>& u, const std::vector<double>& up) {
    Plane p;
    const double n = double(u.size());
    double mu = 0, mup = 0;
    for (std::size_t i = 0; i < u.size(); ++i) {
        mu += u[i];
        mup += up[i];
    }
    mu /= n;
    mup /= n;
    for (std::size_t i = 0; i < u.size(); ++i) {
        p.xx += (u[i] - mu) * (u[i] - mu) / n;
        p.xxp += (u[i] - mu) * (up[i] - mup) / n;
        p.xpxp += (up[i] - mup) * (up[i] - mup) / n;
    }
    p.mean = mu;
    return p;
}

}  // namespace

TEST_CASE("pic.distribution: each shape has the rms emittances it was asked for, matched") {
    Twiss t;
    t.beta_x_m = 12.0;
    t.alpha_x = -1.5;
    t.beta_y_m = 4.0;
    t.alpha_y = 0.8;
    for (Distribution d : {Distribution::kv, Distribution::waterbag, Distribution::semi_gaussian, Distribution::gaussian}) {
        CAPTURE(int(d));
        BeamSpec s;
        s.transverse = d;
        s.macroparticles = 200000;
        s.emittance_x_m = 12.5e-6;
        s.emittance_y_m = 3e-6;
        s.momentum_spread = 0.0;
        const ParticleSet p = generate_beam(s, t, 100.0);
        const Plane x = moments(p.x, p.xp), y = moments(p.y, p.yp);
        // 200k samples: the rms estimates scatter by about 0.3 %
        CHECK(x.emittance() == doctest::Approx(12.5e-6).epsilon(0.015));
        CHECK(y.emittance() == doctest::Approx(3e-6).epsilon(0.015));
        CHECK(x.xx == doctest::Approx(t.beta_x_m * 12.5e-6).epsilon(0.015));
        CHECK(x.xxp == doctest::Approx(-t.alpha_x * 12.5e-6).epsilon(0.02));
        CHECK(y.xpxp == doctest::Approx((1 + 0.8 * 0.8) / 4.0 * 3e-6).epsilon(0.015));
    }
}

TEST_CASE("pic.distribution: KV particles lie on the hyper-ellipsoid; mismatch scales the size") {
    Twiss t;
    t.beta_x_m = t.beta_y_m = 5.0;
    BeamSpec s;
    s.transverse = Distribution::kv;
    s.macroparticles = 1000;
    s.emittance_x_m = s.emittance_y_m = 1e-6;
    const ParticleSet p = generate_beam(s, t, 10.0);
    for (std::size_t i = 0; i < p.size(); ++i) {
        // Jx/ex + Jy/ey = 1 with 2J = X^2 + P^2 and the KV emittance 4 eps_rms
        const double jx = (p.x[i] * p.x[i] / 5.0 + 5.0 * p.xp[i] * p.xp[i]) / 4e-6;
        const double jy = (p.y[i] * p.y[i] / 5.0 + 5.0 * p.yp[i] * p.yp[i]) / 4e-6;
        CHECK(jx + jy == doctest::Approx(1.0).epsilon(1e-12));
    }
    s.transverse = Distribution::gaussian;
    s.macroparticles = 100000;
    s.mismatch_x = 1.5;
    const ParticleSet m = generate_beam(s, t, 10.0);
    const Plane x = moments(m.x, m.xp);
    CHECK(std::sqrt(x.xx) == doctest::Approx(1.5 * std::sqrt(5e-6)).epsilon(0.02));
    CHECK(x.emittance() == doctest::Approx(1e-6).epsilon(0.02));
}

TEST_CASE("pic.distribution: coasting and bunched longitudinal shapes, dispersion, bad input") {
    Twiss t;
    t.beta_x_m = t.beta_y_m = 5.0;
    t.dispersion_m = 2.0;
    BeamSpec s;
    s.macroparticles = 100000;
    s.momentum_spread = 1e-3;
    const ParticleSet c = generate_beam(s, t, 200.0);
    double zmin = 1e9, zmax = -1e9;
    for (double z : c.z) {
        zmin = std::min(zmin, z);
        zmax = std::max(zmax, z);
    }
    CHECK(zmin >= -100.0);
    CHECK(zmax < 100.0);
    CHECK(zmax - zmin == doctest::Approx(200.0).epsilon(1e-3));
    const Plane xd = moments(c.x, c.delta);  // <x delta> = D <delta^2>
    CHECK(xd.xxp == doctest::Approx(2.0 * 1e-6).epsilon(0.02));
    for (Longitudinal l : {Longitudinal::elliptic, Longitudinal::gaussian}) {
        s.longitudinal = l;
        s.bunch_length_m = 8.0;
        const ParticleSet b = generate_beam(s, t, 200.0);
        const Plane z = moments(b.z, b.delta);
        CHECK(std::sqrt(z.xx) == doctest::Approx(2.0).epsilon(0.02));
        CHECK(std::sqrt(z.xpxp) == doctest::Approx(1e-3).epsilon(0.02));
    }
    s.bunch_length_m = 0.0;
    CHECK_THROWS_AS(generate_beam(s, t, 200.0), UsageError);
    s.longitudinal = Longitudinal::coasting;
    s.emittance_x_m = -1.0;
    CHECK_THROWS_AS(generate_beam(s, t, 200.0), UsageError);
    s.emittance_x_m = 1e-6;
    s.macroparticles = 0;
    CHECK(generate_beam(s, t, 200.0).size() == 0);
}
