// A single sphere and a single ellipsoid render to their analytic depth and thickness: the
// covered pixels agree with the analytic silhouette except within one pixel of it, and inside
// depth and thickness agree to 1e-4 relative (docs/RENDER.md, "Validation").
// The sphere goes through the whole fluid pipeline (one particle, so no neighbours: a sphere of
// radius radius_over_h h); the ellipsoid through the splatting passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "core/buffer.hpp"
#include "core/dispatch.hpp"
#include "render/raster.hpp"
#include "render/renderer.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::render;

namespace {

struct Analytic {
    bool covered = false;
    double depth = 0.0, thickness = 0.0;
};

// Ray of pixel (x, y) (double precision) against the ellipsoid {p : |K (p - c)| <= 1}.
Analytic trace(const CameraView& v, const double k[3][3], const double c[3], int x, int y) {
    const double u = (2.0 * (x + 0.5) / v.width - 1.0) * v.tan_half_x, w = (1.0 - 2.0 * (y + 0.5) / v.height) * v.tan_half_y;
    double d[3], o[3], kd[3] = {0, 0, 0}, ko[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        d[i] = double(v.forward[i]) + u * v.right[i] + w * v.up[i];
        o[i] = double(v.eye[i]) - c[i];
    }
    for (int r = 0; r < 3; ++r)
        for (int i = 0; i < 3; ++i) {
            kd[r] += k[r][i] * d[i];
            ko[r] += k[r][i] * o[i];
        }
    // |ko + t kd|^2 = 1
    const double a = kd[0] * kd[0] + kd[1] * kd[1] + kd[2] * kd[2];
    const double b = ko[0] * kd[0] + ko[1] * kd[1] + ko[2] * kd[2];
    const double cc = ko[0] * ko[0] + ko[1] * ko[1] + ko[2] * ko[2] - 1.0;
    const double disc = b * b - a * cc;
    Analytic out;
    if (disc <= 0.0) return out;
    const double root = std::sqrt(disc);
    out.covered = true;
    out.depth = (-b - root) / a;
    out.thickness = 2.0 * root / a * std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    return out;
}

// Compares rendered depth (+inf where empty) and thickness with the analytic images.
void check_against(const CameraView& view, const std::function<Analytic(int, int)>& analytic,
                   const std::vector<float>& depth, const std::vector<float>& thickness) {
    const int w = view.width, h = view.height;
    std::vector<Analytic> a(std::size_t(w * h));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) a[std::size_t(y * w + x)] = analytic(x, y);
    // A pixel is in the silhouette band when its 3 x 3 neighbourhood is partly covered.
    const auto band = [&](int x, int y) {
        bool any = false, all = true;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int xx = x + dx, yy = y + dy;
                const bool c = xx >= 0 && yy >= 0 && xx < w && yy < h && a[std::size_t(yy * w + xx)].covered;
                any = any || c;
                all = all && c;
            }
        return any && !all;
    };
    std::size_t inside = 0, band_pixels = 0;
    double worst_depth = 0.0, worst_thickness = 0.0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t p = std::size_t(y * w + x);
            const bool rendered = std::isfinite(depth[p]);
            if (band(x, y)) {
                ++band_pixels;
                continue;  // within one pixel of the silhouette: either answer is right
            }
            CAPTURE(x);
            CAPTURE(y);
            REQUIRE(rendered == a[p].covered);
            if (!rendered) {
                CHECK(thickness[p] == 0.0f);
                continue;
            }
            ++inside;
            worst_depth = std::max(worst_depth, std::fabs(depth[p] - a[p].depth) / a[p].depth);
            worst_thickness = std::max(worst_thickness, std::fabs(thickness[p] - a[p].thickness) / a[p].thickness);
        }
    MESSAGE("pixels inside: " << inside << ", in the silhouette band: " << band_pixels
                              << ", largest relative error: depth " << worst_depth << ", thickness " << worst_thickness);
    CHECK(inside > 500);
    CHECK(worst_depth < 1e-4);
    CHECK(worst_thickness < 1e-4);
}

void sphere_through_the_fluid_pipeline(const Backend& backend) {
    const float h = 0.2f;
    RenderSettings s;
    s.style = Style::fluid;
    s.width = 160;
    s.height = 120;
    s.smoothing_length_m = h;
    s.radius_over_h = 2.5f;  // a sphere of radius 0.5
    s.flow_steps = 0;
    Renderer renderer(backend, s, {.particles = 1, .opaque = 0});
    const Vec3f centre{0.15f, -0.1f, 0.05f};
    const std::vector<Vec3f> one{centre};
    const Camera camera{.eye = {0.4f, 0.9f, 4.0f}, .target = {0.0f, 0.0f, 0.0f}, .up = {0.0f, 1.0f, 0.0f}, .fov_y_deg = 30.0f};
    renderer.render({.particles = {.position = one}}, camera);
    RenderedImage image;
    renderer.download(image);
    const double k[3][3] = {{2, 0, 0}, {0, 2, 0}, {0, 0, 2}};
    const double c[3] = {centre.x, centre.y, centre.z};
    const CameraView view = renderer.view();
    check_against(view, [&](int x, int y) { return trace(view, k, c, x, y); }, image.z, image.thickness);
    // The covered pixels count one splat.
    for (std::size_t p = 0; p < image.count.size(); ++p) CHECK(image.count[p] == (std::isfinite(image.z[p]) ? 1.0f : 0.0f));
}

void ellipsoid_through_the_splatting_passes(const Backend& backend) {
    // Semi-axes 0.6, 0.3, 0.15 along a rotated frame (30 degrees about z, then 50 about x).
    const double cz = std::cos(0.5235987756), sz = std::sin(0.5235987756), cx = std::cos(0.872664626), sx = std::sin(0.872664626);
    const double rz[3][3] = {{cz, -sz, 0}, {sz, cz, 0}, {0, 0, 1}};
    const double rx[3][3] = {{1, 0, 0}, {0, cx, -sx}, {0, sx, cx}};
    double r[3][3] = {};  // R = rx rz: columns are the axes
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int l = 0; l < 3; ++l) r[i][j] += rx[i][l] * rz[l][j];
    const double radii[3] = {0.6, 0.3, 0.15};
    double k[3][3];  // K = diag(1/a) R^T
    for (int row = 0; row < 3; ++row)
        for (int i = 0; i < 3; ++i) k[row][i] = r[i][row] / radii[row];
    const double c[3] = {-0.2, 0.1, 0.3};
    Ellipsoid e;
    for (int row = 0; row < 3; ++row) e.row[row] = {float(k[row][0]), float(k[row][1]), float(k[row][2]), float(c[row])};

    const CameraView view = make_view({.eye = {1.0f, 2.0f, 5.0f}, .target = {0.0f, 0.0f, 0.0f}, .fov_y_deg = 25.0f}, 200, 150);
    DeviceBuffer<Ellipsoid> ellipsoids(backend, 1);
    ellipsoids.copy_from_host(std::vector<Ellipsoid>{e});
    DeviceBuffer<SurfaceSplat> splats(backend, 1);
    const std::size_t pixels = 200 * 150;
    DeviceBuffer<float> depth(backend, pixels), thickness(backend, pixels);
    TileBinner binner(backend, 1, TileGrid::of(200, 150), 256);
    with_exec(backend, [&](const auto& exec) {
        project_ellipsoids(exec, ellipsoids.data(), 1, view, splats.data(), binner.tile_counts());
        binner.bin(exec, static_cast<const SurfaceSplat*>(splats.data()), 1);
        raster_surfaces(exec, splats.data(), binner, view, {.depth = depth.data(), .thickness = thickness.data()});
    });
    check_against(view, [&](int x, int y) { return trace(view, k, c, x, y); }, depth.to_vector(), thickness.to_vector());
}

}  // namespace

PK_BACKEND_TEST("a sphere renders to its analytic depth and thickness (fluid pipeline, one particle)",
                sphere_through_the_fluid_pipeline)
PK_BACKEND_TEST("a rotated ellipsoid renders to its analytic depth and thickness", ellipsoid_through_the_splatting_passes)
