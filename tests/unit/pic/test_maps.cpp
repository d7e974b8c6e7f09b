// Element maps: closed forms, symplecticity, splitting, and the block form the tracker fuses.
#include <doctest/doctest.h>

#include <cmath>

#include "base/error.hpp"
#include "pic/maps.hpp"
#include "pic/program.hpp"

using namespace partikel;
using namespace partikel::pic;

namespace {

MapContext context(double kinetic_eV = 11.4e6) {
    return {make_reference(ion(18, 40, kinetic_eV)), 100.0, std::nullopt};
}

Element quad(double L, double k1) {
    Element e = make_element(ElementKind::quadrupole, "Q", L);
    e.k1_per_m2 = k1;
    return e;
}

// M^T J M - J for the pairs (x, x'), (y, y'), (z, delta): zero for a symplectic map.
double symplectic_error(const Matrix6& m) {
    auto J = [](int i, int j) { return (i / 2 == j / 2) ? (i % 2 == 0 && j == i + 1 ? 1.0 : (i % 2 == 1 && j == i - 1 ? -1.0 : 0.0)) : 0.0; };
    double worst = 0.0;
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double s = 0.0;
            for (int a = 0; a < 6; ++a)
                for (int b = 0; b < 6; ++b) s += m(a, i) * J(a, b) * m(b, j);
            worst = std::max(worst, std::abs(s - J(i, j)));
        }
    return worst;
}

}  // namespace

TEST_CASE("pic.reference: relativistic factors of the reference particle") {
    ParticleSpecies s;  // Z = 1, A = 1: a proton
    s.kinetic_energy_per_nucleon_eV = 2e9;
    const ReferenceParticle p = make_reference(s);
    CHECK(p.mass_kg == constants::proton_mass_kg);
    const double mc2_eV = 938.27208816e6;
    CHECK(p.gamma == doctest::Approx(1.0 + 2e9 / mc2_eV).epsilon(1e-9));
    CHECK(p.beta == doctest::Approx(std::sqrt(1.0 - 1.0 / (p.gamma * p.gamma))).epsilon(1e-12));
    CHECK(p.rigidity_T_m() == doctest::Approx(9.2878815).epsilon(1e-7));  // p c = 2.78446 GeV
    CHECK(p.classical_radius_m() == doctest::Approx(1.53469e-18).epsilon(1e-5));
    s.Z = 18;
    s.A = 40;
    CHECK(make_reference(s).mass_kg == doctest::Approx(40 * constants::atomic_mass_kg));
    s.A = 0;
    CHECK_THROWS_AS(make_reference(s), UsageError);
}

TEST_CASE("pic.maps: quadrupoles focus with cos/sin and defocus with cosh/sinh") {
    const MapContext c = context();
    const double L = 0.4, k = 2.5, w = std::sqrt(k);
    const Matrix6 qf = element_map(quad(L, k), c);
    CHECK(qf(0, 0) == doctest::Approx(std::cos(w * L)));
    CHECK(qf(0, 1) == doctest::Approx(std::sin(w * L) / w));
    CHECK(qf(1, 0) == doctest::Approx(-w * std::sin(w * L)));
    CHECK(qf(2, 2) == doctest::Approx(std::cosh(w * L)));
    CHECK(qf(3, 2) == doctest::Approx(w * std::sinh(w * L)));
    // Defocusing in x: cosh in M11 (a printed QD matrix with cos there is not symplectic).
    const Matrix6 qd = element_map(quad(L, -k), c);
    CHECK(qd(0, 0) == doctest::Approx(std::cosh(w * L)));
    CHECK(qd(0, 1) == doctest::Approx(std::sinh(w * L) / w));
    CHECK(qd(1, 0) == doctest::Approx(w * std::sinh(w * L)));
    CHECK(qd(1, 1) == doctest::Approx(std::cosh(w * L)));
    CHECK(qd(2, 2) == doctest::Approx(std::cos(w * L)));
    CHECK(qd(3, 2) == doctest::Approx(-w * std::sin(w * L)));
    // Both with the drift's path-length term.
    CHECK(qf(4, 5) == doctest::Approx(L / (c.reference.gamma * c.reference.gamma)));
    // A short quadrupole is a thin lens of focal length 1 / (k L).
    const Matrix6 thin = element_map(quad(1e-4, k), c);
    CHECK(thin(1, 0) == doctest::Approx(-k * 1e-4).epsilon(1e-6));
}

TEST_CASE("pic.maps: every element map is symplectic") {
    const MapContext c = context();
    Element bend = make_element(ElementKind::sbend, "B", 2.0);
    bend.angle_rad = 0.3;
    Element cf = make_element(ElementKind::constant_focusing, "CF", 1.5);
    cf.k1_per_m2 = 0.7;
    Element rf = make_element(ElementKind::rf_cavity, "RF");
    rf.voltage_V = 1e4;
    rf.harmonic = 4;
    Element mp = make_element(ElementKind::multipole, "M");
    mp.knl[1] = 0.05;
    mp.knl[2] = 3.0;
    for (const Element& e : {make_element(ElementKind::drift, "D", 3.0), quad(0.5, 1.2), quad(0.5, -1.2), bend, cf, rf, mp}) {
        CAPTURE(e.kind);
        CHECK(symplectic_error(element_map(e, c)) < 1e-13);
    }
    // The sector dipole's path-length row (z falls behind by the integral of x / rho).
    const Matrix6 b = element_map(bend, c);
    const double rho = 2.0 / 0.3;
    CHECK(b(4, 0) == doctest::Approx(-std::sin(0.3)));
    CHECK(b(4, 1) == doctest::Approx(-rho * (1.0 - std::cos(0.3))));
    CHECK(b(4, 5) == doctest::Approx(2.0 / (c.reference.gamma * c.reference.gamma) - rho * (0.3 - std::sin(0.3))));
    CHECK(b(0, 5) == doctest::Approx(rho * (1.0 - std::cos(0.3))));
}

TEST_CASE("pic.maps: split elements compose to the whole") {
    const MapContext c = context();
    Element bend = make_element(ElementKind::sbend, "B", 2.0);
    bend.angle_rad = 0.3;
    for (const Element& e : {quad(0.8, -0.9), bend}) {
        const Matrix6 whole = element_map(e, c);
        const Matrix6 parts = element_map(element_part(e, 0.35, 1.0), c) * element_map(element_part(e, 0.0, 0.35), c);
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) CHECK(parts(i, j) == doctest::Approx(whole(i, j)).epsilon(1e-13));
    }
    CHECK_THROWS_AS(element_part(make_element(ElementKind::marker, "M"), 0.0, 0.5), UsageError);
}

TEST_CASE("pic.maps: the tracker's linear operation keeps exactly the fused block form") {
    const MapContext c = context();
    Element bend = make_element(ElementKind::sbend, "B", 2.0);
    bend.angle_rad = 0.3;
    const Matrix6 m = element_map(quad(0.5, 1.1), c) * element_map(bend, c);
    const TrackOp op = linear_op(m, 3);
    CHECK(op.kind == OpKind::linear);
    CHECK(op.p[2] == m(0, 5));
    CHECK(op.p[12] == m(4, 5));
    Coordinates v{1e-3, -2e-4, 5e-4, 1e-4, 0.01, 2e-3};
    const auto want = m.apply({v.x, v.xp, v.y, v.yp, v.z, v.delta});
    apply_linear(op.p, v);
    CHECK(v.x == doctest::Approx(want[0]));
    CHECK(v.xp == doctest::Approx(want[1]));
    CHECK(v.y == doctest::Approx(want[2]));
    CHECK(v.z == doctest::Approx(want[4]));
    Matrix6 coupled = Matrix6::identity();
    coupled(0, 2) = 0.1;
    CHECK_THROWS_AS(linear_op(coupled, 0), Error);
}

TEST_CASE("pic.maps: thin multipoles kick as MAD-X's KNL") {
    Element s = make_element(ElementKind::multipole, "S");
    s.knl[2] = 4.0;   // sextupole: dx' = -k2l/2 (x^2 - y^2), dy' = k2l x y
    s.knl[3] = 30.0;  // octupole: dx' = -k3l/6 (x^3 - 3 x y^2), dy' = k3l/6 (3 x^2 y - y^3)
    double k[13] = {};
    double f = 1.0;
    for (int n = 1; n <= 5; ++n) {
        f *= n;
        k[n - 1] = s.knl[std::size_t(n)] / f;
    }
    const double x = 2e-3, y = -1e-3, d = 0.01;
    Coordinates c{x, 0.0, y, 0.0, 0.0, d};
    apply_multipole(k, c);
    const double dxp = -(2.0 * (x * x - y * y) + 5.0 * (x * x * x - 3.0 * x * y * y)) / (1.0 + d);
    const double dyp = (4.0 * x * y + 5.0 * (3.0 * x * x * y - y * y * y)) / (1.0 + d);
    CHECK(c.xp == doctest::Approx(dxp).epsilon(1e-14));
    CHECK(c.yp == doctest::Approx(dyp).epsilon(1e-14));
}
