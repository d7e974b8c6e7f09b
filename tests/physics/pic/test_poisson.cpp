// The space-charge fields against closed forms (Gauss's law and image charges), from quiet-start
// particle sets (regular lattices, no sampling noise), so that the tolerance measures the
// solver: within 1 % away from the grid's edge and the beam's edge.
//   uniform round beam   E_r = lambda r / (2 pi eps0 a^2) inside, lambda / (2 pi eps0 r) outside
//   Gaussian round beam  E_r = lambda / (2 pi eps0 r) (1 - exp(-r^2 / 2 sigma^2))
//   in a round pipe      plus the field of the image line charge -lambda at b^2 / d
//   longitudinal         E_z = -g / (4 pi eps0 gamma^2) d(lambda)/dz of a Gaussian bunch
#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include "pic/space_charge.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::pic;

namespace {

constexpr double kLineDensity = 1e-9;  // C/m of the test beams
constexpr double kCircumference = 100.0;

double two_pi_eps0() { return 2.0 * constants::pi * constants::epsilon0_F_per_m; }

void add_particle(ParticleSet& p, double x, double y, double z = 0.0) {
    p.x.push_back(x);
    p.y.push_back(y);
    p.z.push_back(z);
    for (auto* v : {&p.xp, &p.yp, &p.delta}) v->push_back(0.0);
    p.id.push_back(p.id.size());
    p.status.push_back(kAlive);
    p.lost_turn.push_back(-1);
    p.lost_element.push_back(-1);
}

// A uniform disc of radius a at (cx, 0) on a square lattice of spacing a / 500, and four light
// markers at distance `reach` that make the grid span the region tested outside the beam.
ParticleSet uniform_disc(double a, double cx, double reach) {
    ParticleSet p;
    const int m = 500;
    for (int i = -m; i <= m; ++i)
        for (int j = -m; j <= m; ++j)
            if (i * i + j * j <= m * m) add_particle(p, cx + a * (i + 0.5) / m, a * (j + 0.5) / m);
    for (double s : {-1.0, 1.0}) {
        add_particle(p, cx + s * reach, 0.0);
        add_particle(p, cx, s * reach);
    }
    return p;
}

// Gaussian rings at the radii of equal charge (inverse CDF), evenly spread angles.
ParticleSet gaussian_rings(double sigma, int rings, int per_ring) {
    ParticleSet p;
    for (int k = 0; k < rings; ++k) {
        const double u = (k + 0.5) / rings;
        const double r = sigma * std::sqrt(-2.0 * std::log(1.0 - u));
        for (int m = 0; m < per_ring; ++m) {
            const double phi = 2.0 * constants::pi * (m + 0.5 * (k % 2)) / per_ring;
            add_particle(p, r * std::cos(phi), r * std::sin(phi));
        }
    }
    return p;
}

struct Solved {
    std::vector<FieldNode> e;
    std::vector<float> weight;
    GridGeometry g;
    FieldMapView view;
    // E at (x, y) interpolated as the kick does it.
    std::array<double, 2> field(double x, double y) const {
        Coordinates c{x, 0.0, y, 0.0, 0.0, 0.0};
        view.kick(c);
        return {c.xp, c.yp};
    }
};

Solved solve(const Backend& backend, const ParticleSet& p, double pipe_radius, int n = 128) {
    SpaceChargeOptions o;
    o.kicks_per_turn = 1;
    o.nx = o.ny = n;
    o.pipe_radius_m = pipe_radius;
    const double macro = kLineDensity * kCircumference / double(p.size());
    // the charge per metre: kCircumference / C = 1, and a coasting beam's single slice is the ring
    SpaceChargeSolver solver(backend, o, make_reference(proton(1e9)), kCircumference, true, macro, p.size(), 0.0);
    Beam beam(backend, p);
    solver.solve(beam.view());
    Solved s{solver.field(), solver.slice_weights(), solver.geometry(), {}};
    s.view = solver.field_map(1.0);
    s.view.e = s.e.data();
    s.view.slice_weight = s.weight.data();
    s.view.geometry = &s.g;
    s.view.transverse_kick = 1.0;  // the kick is the field itself
    s.view.ez = nullptr;
    return s;
}

void check_radial(const Solved& s, double cx, double r, double angle, double want) {
    CAPTURE(r);
    CAPTURE(angle);
    const auto e = s.field(cx + r * std::cos(angle), r * std::sin(angle));
    const double er = e[0] * std::cos(angle) + e[1] * std::sin(angle);
    const double et = -e[0] * std::sin(angle) + e[1] * std::cos(angle);
    CHECK(er == doctest::Approx(want).epsilon(0.01));
    CHECK(std::abs(et) < 0.01 * std::abs(want));
}

void uniform_round_beam(const Backend& backend) {
    const double a = 0.01;
    const ParticleSet p = uniform_disc(a, 0.0, 3.0 * a);
    const Solved s = solve(backend, p, 0.0);
    for (double angle : {0.3, 1.9, 4.0}) {
        for (double r : {0.2 * a, 0.5 * a, 0.8 * a}) check_radial(s, 0.0, r, angle, kLineDensity * r / (two_pi_eps0() * a * a));
        for (double r : {1.3 * a, 2.0 * a, 2.8 * a}) check_radial(s, 0.0, r, angle, kLineDensity / (two_pi_eps0() * r));
    }
    // beyond the grid: the far field of the slice as a line charge
    check_radial(s, 0.0, 10.0 * a, 0.7, kLineDensity / (two_pi_eps0() * 10.0 * a));
}

void gaussian_round_beam(const Backend& backend) {
    const double sigma = 0.004;
    const ParticleSet p = gaussian_rings(sigma, 700, 700);
    const Solved s = solve(backend, p, 0.0);
    for (double angle : {0.1, 2.5})
        for (double r : {0.25 * sigma, 0.5 * sigma, sigma, 2.0 * sigma, 3.0 * sigma})
            check_radial(s, 0.0, r, angle,
                         kLineDensity / (two_pi_eps0() * r) * (1.0 - std::exp(-r * r / (2.0 * sigma * sigma))));
}

void beam_in_a_round_pipe(const Backend& backend) {
    const double a = 0.005, d = 0.01, b = 0.05;
    const ParticleSet p = uniform_disc(a, d, 3.0 * a);
    const Solved s = solve(backend, p, b);
    const double image = b * b / d;  // -lambda there
    for (double angle : {0.0, 2.0, 4.5})
        for (double r : {0.5 * a, 2.0 * a, 2.8 * a}) {
            const double x = d + r * std::cos(angle), y = r * std::sin(angle);
            const double direct = r < a ? kLineDensity * r / (two_pi_eps0() * a * a) : kLineDensity / (two_pi_eps0() * r);
            const double dxi = x - image, ri2 = dxi * dxi + y * y;
            const double ex = direct * std::cos(angle) - kLineDensity / two_pi_eps0() * dxi / ri2;
            const double ey = direct * std::sin(angle) - kLineDensity / two_pi_eps0() * y / ri2;
            const auto e = s.field(x, y);
            CAPTURE(r);
            CAPTURE(angle);
            const double scale = std::hypot(ex, ey);
            CHECK(std::abs(e[0] - ex) < 0.01 * scale);
            CHECK(std::abs(e[1] - ey) < 0.01 * scale);
        }
}

// Inverse of the standard normal CDF by bisection (test set-up only).
double normal_quantile(double u) {
    double lo = -10.0, hi = 10.0;
    for (int i = 0; i < 80; ++i) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < u ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

void longitudinal_field_of_a_gaussian_bunch(const Backend& backend) {
    const double sigma_z = 2.0, charge = 1e-9, g = 3.0;
    const int n = 200000;
    ParticleSet p;
    for (int k = 0; k < n; ++k) add_particle(p, 0.0, 0.0, sigma_z * normal_quantile((k + 0.5) / n));
    SpaceChargeOptions o;
    o.kicks_per_turn = 1;
    o.transverse = false;
    o.longitudinal = true;
    const ReferenceParticle r = make_reference(proton(1e8));
    SpaceChargeSolver solver(backend, o, r, 1000.0, false, charge / n, p.size(), g);
    Beam beam(backend, p);
    solver.solve(beam.view());
    const std::vector<float> ez = solver.field_z();
    GridGeometry geometry = solver.geometry();
    FieldMapView v = solver.field_map(1.0);
    v.ez = ez.data();
    v.geometry = &geometry;
    v.longitudinal_kick = 1.0;
    for (double z : {-2.0 * sigma_z, -sigma_z, -0.3 * sigma_z, 0.5 * sigma_z, 1.5 * sigma_z}) {
        CAPTURE(z);
        Coordinates c{0.0, 0.0, 0.0, 0.0, z, 0.0};
        v.kick(c);
        const double lambda = charge / (std::sqrt(2.0 * constants::pi) * sigma_z) * std::exp(-z * z / (2 * sigma_z * sigma_z));
        const double want = -g / (4.0 * constants::pi * constants::epsilon0_F_per_m * r.gamma * r.gamma) * (-z / (sigma_z * sigma_z)) * lambda;
        CHECK(c.delta == doctest::Approx(want).epsilon(0.01));
    }
}

}  // namespace

PK_BACKEND_TEST("pic.poisson: field of a uniform round beam inside and outside", uniform_round_beam)
PK_BACKEND_TEST("pic.poisson: field of a Gaussian round beam", gaussian_round_beam)
PK_BACKEND_TEST("pic.poisson: an off-centre beam in a conducting round pipe (images)", beam_in_a_round_pipe)
PK_BACKEND_TEST("pic.poisson: longitudinal field of a Gaussian bunch", longitudinal_field_of_a_gaussian_bunch)
