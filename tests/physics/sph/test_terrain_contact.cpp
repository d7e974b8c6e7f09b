// The penalty terrain contact of Sandvik (2021, eqs. 4.24-4.25; sph/boundary.hpp) for one
// particle, integrated with leapfrog (v_{n+1/2} = v_{n-1/2} + a_n dt, x_{n+1} = x_n +
// v_{n+1/2} dt; the damping and friction see v_{n-1/2}), against the analytic spring-damper:
// the rest depth and the sliding speed where the friction balances gravity on a slope, the
// energy a bounce keeps, and no tunnelling into a steep slope at the largest speed and time step
// of a snow run.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sph/boundary.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

constexpr float kG = 9.81f;

// A plane rising along x at `slope_deg`: h = tan(slope) x, sampled on 2 x 2 points (exact).
struct Slope {
    HeightField field;
    Vec3f normal, downhill;  // unit vectors
    explicit Slope(float slope_deg, float half_width_m = 200.0f) {
        const float t = std::tan(slope_deg * float(M_PI) / 180.0f);
        field.nx = field.nz = 2;
        field.cell_m = 2.0f * half_width_m;
        field.x0_m = field.z0_m = -half_width_m;
        field.height_m = {-t * half_width_m, t * half_width_m, -t * half_width_m, t * half_width_m};
        const float c = std::cos(slope_deg * float(M_PI) / 180.0f), s = std::sin(slope_deg * float(M_PI) / 180.0f);
        normal = {-s, c, 0.0f};
        downhill = {-c, -s, 0.0f};
    }
    // Signed depth below the plane along its normal (> 0: inside the ground).
    float depth(Vec3f x) const { return -dot(x, normal); }
};

BoundaryVolumes penalty(const Slope& slope, float Ks = 2000.0f, float Kd = 100.0f, float Kf = 0.0f,
                        float friction_height = 0.0f) {
    BoundaryVolumes v;
    v.lo = {-1e4f, -1e4f, -1e4f};
    v.hi = {1e4f, 1e4f, 1e4f};
    v.terrain = terrain_view(slope.field.height_m.data(), slope.field);
    v.terrain_law = TerrainLaw::penalty;
    v.Ks = Ks;
    v.Kd = Kd;
    v.Kf = Kf;
    v.friction_height = friction_height;
    return v;
}

struct Particle {
    Vec3f x, v;  // v: the half-step velocity v_{n-1/2}
};

void step(Particle& p, const BoundaryVolumes& b, float dt) {
    const Vec3f a = b.acceleration(p.x, p.v) + Vec3f{0.0f, -kG, 0.0f};
    p.v += a * dt;
    p.x += p.v * dt;
}

// The spring-damper d'' = g_n - Ks d - Kd d' from d = 0, d' = v_in (> 0, into the ground):
// the speed when d returns to 0, or 0 when it never does (at rest at d = g_n / Ks). Closed
// form for the underdamped case.
double analytic_exit_speed(double v_in, double g_n, double Ks, double Kd) {
    const double omega = std::sqrt(Ks), zeta = Kd / (2.0 * omega);
    if (zeta >= 1.0) return 0.0;
    const double wd = omega * std::sqrt(1.0 - zeta * zeta), delta = g_n / Ks;
    // d(t) = delta + e^{-zeta omega t} (A cos wd t + B sin wd t), d(0) = 0, d'(0) = v_in.
    const double A = -delta, B = (v_in + zeta * omega * A) / wd;
    const auto d = [&](double t) { return delta + std::exp(-zeta * omega * t) * (A * std::cos(wd * t) + B * std::sin(wd * t)); };
    const auto dd = [&](double t) {
        const double e = std::exp(-zeta * omega * t);
        return e * ((-zeta * omega * A + wd * B) * std::cos(wd * t) + (-zeta * omega * B - wd * A) * std::sin(wd * t));
    };
    // The first root after the maximum: bisection on (t_peak, pi / wd + t_peak].
    double lo = 1e-9, hi = 2.0 * M_PI / wd;
    for (double t = 1e-6; t < hi; t += 1e-5)
        if (d(t) < 0.0) {
            hi = t;
            break;
        } else {
            lo = t;
        }
    for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        (d(mid) > 0.0 ? lo : hi) = mid;
    }
    return -dd(hi);
}

// The largest time step the snow models' adaptive rule picks in the avalanche scene: its CFL
// limit h / (2 (c + |v|)) (sph/snow.hpp) at |v| = 0, with h = 0.2 m and the scene's sound speed
// c = sqrt(k) = 10 v_max, v_max the free-fall speed over the scene's 80 m (examples/avalanche):
// 39.6 m/s, dt = 2.5e-4 s. The tests also run at 10 times that and at 1e-2 s.
constexpr float kSceneHeight_m = 80.0f;
const float kVmax = std::sqrt(2.0f * kG * kSceneHeight_m);
const float kSnowDt_s = 0.2f / (2.0f * 10.0f * kVmax);

}  // namespace

TEST_CASE("on a slope, the penalty law holds a particle at depth g cos(theta) / Ks and friction balances gravity") {
    const float theta = 30.0f, Kf = 2.0f;
    const Slope slope(theta);
    const float g_n = kG * std::cos(theta * float(M_PI) / 180.0f), g_t = kG * std::sin(theta * float(M_PI) / 180.0f);
    const float terminal = g_t / Kf;  // the tangential balance Kf v = g sin(theta)
    // Starting at rest (below the balance speed) and at three times it (above).
    for (const float start : {0.0f, 3.0f * terminal}) {
        CAPTURE(start);
        const BoundaryVolumes b = penalty(slope, 2000.0f, 100.0f, Kf, 0.05f);
        Particle p{{0.0f, 0.0f, 0.0f}, slope.downhill * start};
        const float dt = 1e-3f;
        for (int n = 0; n < int(5.0f / dt); ++n) step(p, b, dt);  // 10 friction times 1/Kf
        const float speed = dot(p.v, slope.downhill);
        MESSAGE("start " << start << " m/s: sliding at " << speed << " m/s (balance " << terminal << "), depth "
                         << slope.depth(p.x) << " m (rest depth " << g_n / 2000.0f << ")");
        CHECK(speed == doctest::Approx(terminal).epsilon(0.01));
        CHECK(slope.depth(p.x) == doctest::Approx(g_n / 2000.0f).epsilon(0.01));
        CHECK(std::abs(dot(p.v, slope.normal)) < 1e-3f);
    }
    // Friction acts within the friction height only: 0.1 m above the ground, moving along it.
    const Vec3f above = slope.normal * 0.1f, v = slope.downhill * 4.0f + slope.normal * 1.0f;
    CHECK(norm(penalty(slope, 2000.0f, 100.0f, Kf, 0.05f).acceleration(above, v)) == 0.0f);
    const Vec3f a = penalty(slope, 2000.0f, 100.0f, Kf, 0.2f).acceleration(above, v);
    CHECK(norm(a + slope.downhill * (4.0f * Kf)) < 1e-5f);  // -Kf (v - n (v . n)), tangential only
}

TEST_CASE("a bounce keeps the energy of the analytic spring-damper; the default damping absorbs it") {
    const Slope flat(0.0f);
    const float H0 = 1.0f, v_in = std::sqrt(2.0f * kG * H0);
    for (const float Kd : {10.0f, 40.0f, 100.0f}) {
        CAPTURE(Kd);
        const BoundaryVolumes b = penalty(flat, 2000.0f, Kd);
        Particle p{{0.0f, 1e-6f, 0.0f}, {0.0f, -v_in, 0.0f}};
        const float dt = 1e-5f;
        float v_out = 0.0f, deepest = 0.0f;
        bool left = false;
        for (int n = 0; n < int(0.5f / dt) && !left; ++n) {
            step(p, b, dt);
            deepest = std::max(deepest, -p.x.y);
            if (p.x.y > 0.0f && p.v.y > 0.0f) {
                left = true;
                v_out = p.v.y;
            }
        }
        const double expected = analytic_exit_speed(v_in, kG, 2000.0, Kd);
        const double energy_kept = (v_out * v_out) / (v_in * v_in);
        MESSAGE("Kd " << Kd << " 1/s: out at " << v_out << " m/s (analytic " << expected << "), energy kept "
                      << energy_kept << ", deepest " << deepest << " m");
        if (expected > 0.0)
            CHECK(v_out == doctest::Approx(expected).epsilon(0.01));
        else
            CHECK_FALSE(left);  // Kd = 100 > 2 sqrt(Ks) = 89: overdamped, it stays
        CHECK(deepest < v_in / std::sqrt(2000.0f));  // below the undamped amplitude
    }
}

TEST_CASE("no tunnelling: a particle falling 80 m onto a 60 or 75 degree slope stays on it") {
    // Arriving straight down at the free-fall speed over the scene's height, at the snow run's
    // largest dt, and at 10 and 50 times it (dt = 1e-2 s: omega dt = 0.45, Kd dt = 1).
    for (const float theta : {60.0f, 75.0f})
        for (const float dt : {kSnowDt_s, 10.0f * kSnowDt_s, 1e-2f}) {
            CAPTURE(theta);
            CAPTURE(dt);
            const Slope slope(theta, 1000.0f);
            const BoundaryVolumes b = penalty(slope);
            Particle p{{0.0f, 0.01f, 0.0f}, {0.0f, -kVmax, 0.0f}};
            const float v_n = kVmax * std::cos(theta * float(M_PI) / 180.0f);  // into the slope
            float deepest = 0.0f;
            for (int n = 0; n < int(2.0f / dt); ++n) {
                step(p, b, dt);
                deepest = std::max(deepest, slope.depth(p.x));
            }
            MESSAGE(theta << " deg, dt " << dt << " s: deepest " << deepest << " m (undamped bound "
                          << v_n / std::sqrt(2000.0f) << " m), depth after 2 s " << slope.depth(p.x) << " m");
            // Never deeper than the undamped spring would go, and back on the surface after:
            // at the rest depth, sliding along the slope, not into it.
            CHECK(deepest < v_n / std::sqrt(2000.0f));
            CHECK(slope.depth(p.x) < 1.1f * kG * std::cos(theta * float(M_PI) / 180.0f) / 2000.0f + 1e-4f);
            CHECK(slope.depth(p.x) > -1e-3f);
            CHECK(std::abs(dot(p.v, slope.normal)) < 0.01f);
        }
}
