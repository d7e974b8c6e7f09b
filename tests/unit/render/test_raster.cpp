// Tile splatting (render/raster.hpp) against a per-pixel brute force in double precision:
// random ellipsoids, large and small, overlapping, partly off the image and partly behind the
// camera; binning must lose no hit and the raster must keep the nearest entry, the path
// lengths and the count of every pixel. Points: each Gaussian integrates to its intensity.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "core/buffer.hpp"
#include "core/dispatch.hpp"
#include "render/raster.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::render;

namespace {

struct Reference {
    double depth = INFINITY, thickness = 0.0, count = 0.0;
    bool grazing = false;  // some splat passes within rounding of this pixel's ray edge
};

// Ray through pixel (x, y) against ellipsoid e, in double.
void hit(const CameraView& v, const Ellipsoid& e, int x, int y, Reference& r) {
    const double u = (2.0 * (x + 0.5) / v.width - 1.0) * v.tan_half_x, w = (1.0 - 2.0 * (y + 0.5) / v.height) * v.tan_half_y;
    double d[3], o[3];
    for (int k = 0; k < 3; ++k) d[k] = double(v.forward[k]) + u * v.right[k] + w * v.up[k];
    const double c[3] = {e.row[0].w, e.row[1].w, e.row[2].w};
    double kd[3], ko[3];
    for (int k = 0; k < 3; ++k) {
        const double row[3] = {e.row[k].x, e.row[k].y, e.row[k].z};
        kd[k] = row[0] * d[0] + row[1] * d[1] + row[2] * d[2];
        o[k] = double(v.eye[k]) - c[k];
    }
    for (int k = 0; k < 3; ++k) ko[k] = e.row[k].x * o[0] + e.row[k].y * o[1] + e.row[k].z * o[2];
    const double a = kd[0] * kd[0] + kd[1] * kd[1] + kd[2] * kd[2];
    const double tm = -(ko[0] * kd[0] + ko[1] * kd[1] + ko[2] * kd[2]) / a;
    double h2 = 0.0;
    for (int k = 0; k < 3; ++k) h2 += (ko[k] + tm * kd[k]) * (ko[k] + tm * kd[k]);
    if (std::fabs(h2 - 1.0) < 1e-4) r.grazing = true;
    if (h2 >= 1.0) return;
    const double half = std::sqrt((1.0 - h2) / a);
    r.count += 1;
    r.thickness += 2.0 * half * std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    r.depth = std::min(r.depth, tm - half);
}

std::vector<Ellipsoid> random_ellipsoids(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> pos(-1.2f, 1.2f), depth(-1.0f, 3.5f), radius(0.01f, 0.25f), unit(-1.0f, 1.0f);
    std::vector<Ellipsoid> out;
    for (std::size_t i = 0; i < n; ++i) {
        // A rotation from two random directions (Gram-Schmidt), radii along it.
        Vec3f a{unit(rng), unit(rng), unit(rng)}, b{unit(rng), unit(rng), unit(rng)};
        a = a / norm(a);
        b = b - dot(a, b) * a;
        b = b / norm(b);
        const Vec3f axes[3] = {a, b, cross(a, b)};
        const float r[3] = {radius(rng), radius(rng), radius(rng)};
        const Vec3f c{pos(rng), pos(rng), depth(rng)};
        Ellipsoid e;
        for (int k = 0; k < 3; ++k) {
            const Vec3f row = axes[k] / r[k];
            e.row[k] = {row.x, row.y, row.z, c[k]};
        }
        out.push_back(e);
    }
    return out;
}

void surfaces_match_brute_force(const Backend& backend) {
    // The camera at z = 4 looks down -z; ellipsoids from z = -1 to 3.5, some reaching behind
    // the near distance are skipped by the raster and by the reference alike.
    const Camera camera{.eye = {0.0f, 0.0f, 4.0f}, .target = {0.0f, 0.0f, 0.0f}, .up = {0.0f, 1.0f, 0.0f}, .fov_y_deg = 50.0f};
    const CameraView view = make_view(camera, 97, 61);
    const std::vector<Ellipsoid> host = random_ellipsoids(300, 11);
    DeviceBuffer<Ellipsoid> ellipsoids(backend, host.size());
    ellipsoids.copy_from_host(host);
    DeviceBuffer<SurfaceSplat> splats(backend, host.size());
    const std::size_t pixels = std::size_t(view.width) * std::size_t(view.height);
    DeviceBuffer<float> depth(backend, pixels), thickness(backend, pixels), count(backend, pixels);
    DeviceBuffer<std::uint32_t> index(backend, pixels);
    // A small pair capacity, so that bin() must grow once.
    TileBinner binner(backend, host.size(), TileGrid::of(view.width, view.height), 16);
    with_exec(backend, [&](const auto& exec) {
        project_ellipsoids(exec, ellipsoids.data(), host.size(), view, splats.data(), binner.tile_counts());
        binner.bin(exec, static_cast<const SurfaceSplat*>(splats.data()), host.size());
        raster_surfaces(exec, splats.data(), binner, view,
                        {.depth = depth.data(), .index = index.data(), .thickness = thickness.data(), .count = count.data()});
    });
    CHECK(binner.growths() == 1);
    const std::vector<float> d = depth.to_vector(), t = thickness.to_vector(), c = count.to_vector();
    const std::vector<std::uint32_t> idx = index.to_vector();
    std::size_t compared = 0, hits = 0;
    for (int y = 0; y < view.height; ++y)
        for (int x = 0; x < view.width; ++x) {
            Reference r;
            for (const Ellipsoid& e : host) {
                // The raster draws a splat only when its bounding sphere is beyond near_m.
                const Vec3f centre{e.row[0].w, e.row[1].w, e.row[2].w};
                float longest = 0.0f;
                for (int k = 0; k < 3; ++k) longest = std::max(longest, 1.0f / norm(e.row[k].xyz()));
                if (view.to_camera(centre).z - longest <= view.near_m) continue;
                hit(view, e, x, y, r);
            }
            const std::size_t p = std::size_t(y) * std::size_t(view.width) + std::size_t(x);
            if (r.grazing) continue;
            ++compared;
            CAPTURE(x);
            CAPTURE(y);
            REQUIRE(c[p] == float(r.count));
            if (r.count == 0) {
                CHECK(std::isinf(d[p]));
                CHECK(idx[p] == kNoSplat);
                CHECK(t[p] == 0.0f);
                continue;
            }
            ++hits;
            CHECK(d[p] == doctest::Approx(r.depth).epsilon(1e-5));
            CHECK(t[p] == doctest::Approx(r.thickness).epsilon(1e-4));
            CHECK(idx[p] < host.size());
        }
    CHECK(compared > pixels * 9 / 10);
    CHECK(hits > pixels / 4);
}

void opaque_depth_clips(const Backend& backend) {
    // One sphere of radius 0.5 at the origin, seen from z = 4; an opaque plane at depth 4 cuts
    // it in half: the entry stays, the path length ends at the plane.
    const CameraView view = make_view({.eye = {0, 0, 4}, .target = {0, 0, 0}, .fov_y_deg = 30}, 33, 33);
    const Ellipsoid e{{{2, 0, 0, 0}, {0, 2, 0, 0}, {0, 0, 2, 0}}};
    DeviceBuffer<Ellipsoid> ellipsoids(backend, 1);
    ellipsoids.copy_from_host(std::vector<Ellipsoid>{e});
    DeviceBuffer<SurfaceSplat> splats(backend, 1);
    const std::size_t pixels = 33 * 33;
    DeviceBuffer<float> depth(backend, pixels), thickness(backend, pixels), clip(backend, pixels);
    clip.copy_from_host(std::vector<float>(pixels, 4.0f));
    TileBinner binner(backend, 1, TileGrid::of(33, 33), 64);
    with_exec(backend, [&](const auto& exec) {
        project_ellipsoids(exec, ellipsoids.data(), 1, view, splats.data(), binner.tile_counts());
        binner.bin(exec, static_cast<const SurfaceSplat*>(splats.data()), 1);
        raster_surfaces(exec, splats.data(), binner, view,
                        {.depth = depth.data(), .thickness = thickness.data(), .clip_depth = clip.data()});
    });
    const std::size_t centre = 16 * 33 + 16;
    CHECK(depth.to_vector()[centre] == doctest::Approx(3.5));
    CHECK(thickness.to_vector()[centre] == doctest::Approx(0.5).epsilon(1e-5));
}

void gaussians_integrate_to_intensity(const Backend& backend) {
    // Points far from the edges: the image sums to the number of points times the intensity.
    const CameraView view = make_view({.eye = {0, 0, 10}, .target = {0, 0, 0}, .fov_y_deg = 40}, 128, 96);
    std::vector<Vec3f> positions;
    std::vector<float> values;
    for (int i = 0; i < 50; ++i) {
        positions.push_back({-1.5f + 0.06f * float(i), 0.02f * float(i % 7) - 0.06f, 0.1f * float(i % 3)});
        values.push_back(float(i));
    }
    DeviceBuffer<Vec3f> p(backend, positions.size());
    p.copy_from_host(positions);
    DeviceBuffer<float> v(backend, values.size());
    v.copy_from_host(values);
    DeviceBuffer<PointSplat> splats(backend, positions.size());
    const std::size_t pixels = 128 * 96;
    DeviceBuffer<float> r(backend, pixels), g(backend, pixels), b(backend, pixels), w(backend, pixels),
        z(backend, pixels), c(backend, pixels);
    TileBinner binner(backend, positions.size(), TileGrid::of(128, 96), 1024);
    PointStyle style;
    style.sigma_px = 2.0f;
    style.intensity = 3.0f;
    const ColourTable colours = make_colour_table(ColourMap::grey, 0.0f, 49.0f);
    with_exec(backend, [&](const auto& exec) {
        project_points(exec, p.data(), v.data(), positions.size(), style, colours, view, splats.data(), binner.tile_counts());
        binner.bin(exec, static_cast<const PointSplat*>(splats.data()), positions.size());
        raster_points(exec, splats.data(), binner, view, {r.data(), g.data(), b.data(), w.data(), z.data(), c.data()});
    });
    double total = 0.0;
    for (const float x : w.to_vector()) total += x;
    // Within 3 sigma a 2-D Gaussian holds 1 - exp(-4.5) of its integral; pixel sampling of a
    // sigma of 2 pixels adds well under 1e-3.
    CHECK(total == doctest::Approx(50 * 3.0 * (1.0 - std::exp(-4.5))).epsilon(2e-3));
    double depth_min = INFINITY;
    for (const float x : z.to_vector()) depth_min = std::min(depth_min, double(x));
    CHECK(depth_min == doctest::Approx(9.8).epsilon(1e-5));
}

}  // namespace

PK_BACKEND_TEST("surface splats match a per-pixel brute force: no hit lost, nearest entry, path lengths", surfaces_match_brute_force)
PK_BACKEND_TEST("an opaque depth clips the entry and the path length", opaque_depth_clips)
PK_BACKEND_TEST("point splats integrate to their intensity", gaussians_integrate_to_intensity)
