// Screen-space curvature flow (render/screen.hpp, van der Laan, Green & Sainz 2009): a sphere's
// depth stays a sphere, a noisy plane gets smooth, a depth step between two surfaces stays
// sharp, and flat surfaces do not move.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/buffer.hpp"
#include "core/dispatch.hpp"
#include "render/screen.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::render;

namespace {

constexpr int kW = 160, kH = 120;

CameraView test_view() {
    return make_view({.eye = {0.0f, 0.0f, 5.0f}, .target = {0.0f, 0.0f, 0.0f}, .up = {0.0f, 1.0f, 0.0f}, .fov_y_deg = 30.0f},
                     kW, kH);
}

std::vector<float> flow(const Backend& backend, const CameraView& view, const std::vector<float>& depth, int steps,
                        float threshold_m) {
    DeviceBuffer<float> a(backend, depth.size()), b(backend, depth.size());
    a.copy_from_host(depth);
    const FlowParams params{0.5f, threshold_m, 2.0f * view.tan_half_x / float(view.width)};
    with_exec(backend, [&](const auto& exec) {
        for (int s = 0; s < steps; ++s) {
            if (s % 2 == 0) curvature_flow_step(exec, a.data(), b.data(), kW, kH, params);
            else curvature_flow_step(exec, b.data(), a.data(), kW, kH, params);
        }
    });
    return steps % 2 ? b.to_vector() : a.to_vector();
}

Vec3f camera_point(const CameraView& v, int x, int y, float z) { return {v.u_of(float(x)) * z, v.v_of(float(y)) * z, z}; }

// Least-squares sphere through points: |P|^2 = 2 c.P + k, k = R^2 - |c|^2 (linear in c, k).
struct SphereFit {
    double cx, cy, cz, radius, rms;
};
SphereFit fit_sphere(const std::vector<Vec3f>& points) {
    double m[4][5] = {};
    for (const Vec3f& p : points) {
        const double row[4] = {2.0 * p.x, 2.0 * p.y, 2.0 * p.z, 1.0};
        const double rhs = double(p.x) * p.x + double(p.y) * p.y + double(p.z) * p.z;
        for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) m[i][j] += row[i] * row[j];
            m[i][4] += row[i] * rhs;
        }
    }
    for (int i = 0; i < 4; ++i)  // Gauss-Jordan
        for (int j = 0; j < 4; ++j)
            if (j != i) {
                const double f = m[j][i] / m[i][i];
                for (int l = 0; l < 5; ++l) m[j][l] -= f * m[i][l];
            }
    SphereFit s;
    s.cx = m[0][4] / m[0][0];
    s.cy = m[1][4] / m[1][1];
    s.cz = m[2][4] / m[2][2];
    s.radius = std::sqrt(m[3][4] / m[3][3] + s.cx * s.cx + s.cy * s.cy + s.cz * s.cz);
    double sum = 0.0;
    for (const Vec3f& p : points) {
        const double r = std::sqrt((p.x - s.cx) * (p.x - s.cx) + (p.y - s.cy) * (p.y - s.cy) + (p.z - s.cz) * (p.z - s.cz));
        sum += (r - s.radius) * (r - s.radius);
    }
    s.rms = std::sqrt(sum / double(points.size()));
    return s;
}

// Root mean square distance of the depths from their least-squares plane z = a x + b y + c.
double plane_roughness(const std::vector<float>& depth, int margin) {
    double m[3][4] = {};
    for (int y = margin; y < kH - margin; ++y)
        for (int x = margin; x < kW - margin; ++x) {
            const double row[3] = {double(x), double(y), 1.0}, z = depth[std::size_t(y * kW + x)];
            for (int i = 0; i < 3; ++i) {
                for (int j = 0; j < 3; ++j) m[i][j] += row[i] * row[j];
                m[i][3] += row[i] * z;
            }
        }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (j != i) {
                const double f = m[j][i] / m[i][i];
                for (int l = 0; l < 4; ++l) m[j][l] -= f * m[i][l];
            }
    const double a = m[0][3] / m[0][0], b = m[1][3] / m[1][1], c = m[2][3] / m[2][2];
    double sum = 0.0;
    std::size_t n = 0;
    for (int y = margin; y < kH - margin; ++y)
        for (int x = margin; x < kW - margin; ++x, ++n) {
            const double r = depth[std::size_t(y * kW + x)] - (a * x + b * y + c);
            sum += r * r;
        }
    return std::sqrt(sum / double(n));
}

void sphere_stays_a_sphere(const Backend& backend) {
    // A sphere of radius 1 at the origin, 5 m away, 60 pixels across.
    const CameraView view = test_view();
    const double radius = 1.0;
    std::vector<float> depth(kW * kH, INFINITY);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const Vec3f d = view.ray(x, y);
            const double a = dot(d, d), b = -5.0, c = 25.0 - radius * radius;  // |eye + t d|^2 = R^2, eye = (0,0,5), d.forward = 1
            const double disc = b * b - a * c;
            if (disc > 0.0) depth[std::size_t(y * kW + x)] = float((-b - std::sqrt(disc)) / a);
        }
    // Points more than 3 pixels inside the silhouette, before and after 50 and 500 steps.
    const auto interior = [&](const std::vector<float>& z) {
        std::vector<Vec3f> points;
        for (int y = 3; y < kH - 3; ++y)
            for (int x = 3; x < kW - 3; ++x) {
                bool inside = true;
                for (int dy = -3; dy <= 3 && inside; ++dy)
                    for (int dx = -3; dx <= 3 && inside; ++dx) inside = std::isfinite(depth[std::size_t((y + dy) * kW + x + dx)]);
                if (inside) points.push_back(camera_point(view, x, y, z[std::size_t(y * kW + x)]));
            }
        return points;
    };
    const SphereFit before = fit_sphere(interior(depth));
    CHECK(before.radius == doctest::Approx(1.0).epsilon(1e-5));
    for (const int steps : {50, 500}) {
        CAPTURE(steps);
        const std::vector<float> after = flow(backend, view, depth, steps, 0.1f);
        const SphereFit fit = fit_sphere(interior(after));
        MESSAGE(steps << " steps: radius " << fit.radius << ", centre (" << fit.cx << ", " << fit.cy << ", " << fit.cz
                      << "), rms distance from the fitted sphere " << fit.rms);
        // Tolerances: docs/RENDER.md, "Validation".
        CHECK(fit.radius == doctest::Approx(1.0).epsilon(steps == 50 ? 0.002 : 0.02));
        CHECK(std::fabs(fit.cx) < 1e-3);
        CHECK(std::fabs(fit.cy) < 1e-3);
        CHECK(fit.rms < (steps == 50 ? 5e-4 : 3e-3));
        // The flow moves the depth by H per unit time: the sphere recedes as a whole (by about
        // rate/2 H a^2 = 1e-4 m a step here), it does not change shape.
        CHECK(fit.cz > 5.0);
        CHECK(fit.cz - 5.0 < steps * 1.5e-4);
    }
}

void noisy_plane_gets_smooth(const Backend& backend) {
    // A tilted plane 5 m away with uniform noise of +-2 mm (a pixel spans 23 mm there).
    const CameraView view = test_view();
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> noise(-0.002f, 0.002f);
    std::vector<float> depth(kW * kH);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) depth[std::size_t(y * kW + x)] = 5.0f + 0.004f * float(x) - 0.002f * float(y) + noise(rng);
    const double before = plane_roughness(depth, 4);
    const double after_50 = plane_roughness(flow(backend, view, depth, 50, 0.1f), 4);
    MESSAGE("roughness " << before << " m before, " << after_50 << " m after 50 steps");
    CHECK(after_50 < before / 10.0);
}

void steps_stay_sharp_and_planes_stay_put(const Backend& backend) {
    // Left half at 5 m, right half at 5.5 m (a jump above the 0.1 m threshold), both flat.
    const CameraView view = test_view();
    std::vector<float> depth(kW * kH);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) depth[std::size_t(y * kW + x)] = x < kW / 2 ? 5.0f : 5.5f;
    const std::vector<float> after = flow(backend, view, depth, 50, 0.1f);
    double worst = 0.0;
    for (std::size_t p = 0; p < depth.size(); ++p) worst = std::max(worst, double(std::fabs(after[p] - depth[p])));
    CHECK(worst < 1e-6);
}

}  // namespace

PK_BACKEND_TEST("curvature flow keeps a sphere's depth a sphere", sphere_stays_a_sphere)
PK_BACKEND_TEST("curvature flow smooths a noisy plane", noisy_plane_gets_smooth)
PK_BACKEND_TEST("curvature flow keeps depth steps sharp and flat surfaces in place", steps_stay_sharp_and_planes_stay_put)
