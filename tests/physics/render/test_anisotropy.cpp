// Anisotropic ellipsoids (render/anisotropy.hpp, Yu & Turk 2013): a particle inside a regular
// lattice is a sphere, one on a flat free surface a disc along the surface, a lone particle a
// sphere; every ellipsoid keeps the volume of the sphere of radius_m.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/buffer.hpp"
#include "core/dispatch.hpp"
#include "core/memory.hpp"
#include "frnn/cell_grid.hpp"
#include "render/anisotropy.hpp"
#include "render/eigen3.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::render;

namespace {

struct Shape {
    Vec3f centre;
    float axes[3];      // semi-axes, descending
    Vec3f shortest;     // direction of the shortest axis
};

// Semi-axes of K = diag(1/a) R^T: a_k = 1 / |row k| (rows are orthogonal).
Shape shape_of(const Ellipsoid& e) {
    Shape s;
    s.centre = {e.row[0].w, e.row[1].w, e.row[2].w};
    float a[3];
    Vec3f dir[3];
    for (int k = 0; k < 3; ++k) {
        const Vec3f r = e.row[k].xyz();
        a[k] = 1.0f / norm(r);
        dir[k] = r * a[k];
    }
    int order[3] = {0, 1, 2};
    std::sort(order, order + 3, [&](int i, int j) { return a[i] > a[j]; });
    for (int k = 0; k < 3; ++k) s.axes[k] = a[order[k]];
    s.shortest = dir[order[2]];
    return s;
}

// Ellipsoids of particles on a lattice of spacing dx, nx x ny x nz, in the particles' order.
std::vector<Ellipsoid> ellipsoids_of(const Backend& backend, const std::vector<Vec3f>& positions, const AnisotropyParams& p) {
    Vec3f lo = positions[0], hi = lo;
    for (const Vec3f& q : positions)
        for (int k = 0; k < 3; ++k) {
            lo[k] = std::min(lo[k], q[k]);
            hi[k] = std::max(hi[k], q[k]);
        }
    frnn::CellGrid grid(backend, {.domain_min = lo, .domain_max = hi, .radius = p.support_m}, positions.size());
    DeviceBuffer<Vec3f> d_positions(backend, positions.size());
    d_positions.copy_from_host(positions);
    DeviceBuffer<Ellipsoid> out(backend, positions.size());
    grid.build(d_positions.data(), positions.size());
    with_exec(backend, [&](const auto& exec) { compute_ellipsoids(exec, grid.view(), p, out.data()); });
    const std::vector<Ellipsoid> sorted = out.to_vector();
    const std::vector<std::uint32_t> to_original = [&] {
        std::vector<std::uint32_t> v(positions.size());
        copy_bytes(backend, v.data(), grid.sorted_to_original(), v.size() * sizeof(std::uint32_t),
                   CopyDirection::device_to_host);
        return v;
    }();
    std::vector<Ellipsoid> result(positions.size());
    for (std::size_t k = 0; k < sorted.size(); ++k) result[to_original[k]] = sorted[k];
    return result;
}

AnisotropyParams sph_like(float dx) {
    AnisotropyParams p;
    const float h = 1.3f * dx;
    p.support_m = 2.0f * h;
    p.radius_m = 0.6f * h;
    return p;
}

void lattice_and_surface(const Backend& backend) {
    // A slab of 12 x 12 x 6 particles (dx = 0.01 m), free surfaces at y = 0 and y = 0.05.
    const float dx = 0.01f;
    const int nx = 12, ny = 6, nz = 12;
    std::vector<Vec3f> positions;
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) positions.push_back({dx * float(x), dx * float(y), dx * float(z)});
    AnisotropyParams p = sph_like(dx);
    p.centre_smoothing = 0.0f;
    const std::vector<Ellipsoid> e = ellipsoids_of(backend, positions, p);
    const auto at = [&](int x, int y, int z) { return shape_of(e[std::size_t((z * ny + y) * nx + x)]); };
    const double volume = double(p.radius_m) * p.radius_m * p.radius_m;
    for (const Ellipsoid& one : e) {
        const Shape s = shape_of(one);
        CHECK(double(s.axes[0]) * s.axes[1] * s.axes[2] == doctest::Approx(volume).epsilon(1e-4));
        CHECK(s.axes[0] / s.axes[2] <= doctest::Approx(p.max_ratio).epsilon(1e-5));
    }
    // Deep inside (cubic symmetry: an isotropic covariance): a sphere of radius_m.
    const Shape inner = at(6, 3, 6);
    CHECK(inner.axes[0] == doctest::Approx(p.radius_m).epsilon(1e-4));
    CHECK(inner.axes[2] == doctest::Approx(p.radius_m).epsilon(1e-4));
    // On the top surface, away from the edges: flattened along y, round in x and z.
    const Shape top = at(6, 5, 6);
    MESSAGE("surface particle semi-axes " << top.axes[0] << " " << top.axes[1] << " " << top.axes[2] << " m");
    CHECK(std::fabs(top.shortest.y) > 0.999f);
    CHECK(top.axes[0] / top.axes[2] > 1.5f);
    CHECK(top.axes[0] == doctest::Approx(top.axes[1]).epsilon(1e-4));
}

void centre_smoothing_pulls_surfaces_in(const Backend& backend) {
    const float dx = 0.01f;
    std::vector<Vec3f> positions;
    for (int z = 0; z < 10; ++z)
        for (int y = 0; y < 6; ++y)
            for (int x = 0; x < 10; ++x) positions.push_back({dx * float(x), dx * float(y), dx * float(z)});
    AnisotropyParams p = sph_like(dx);
    p.centre_smoothing = 0.9f;
    const std::vector<Ellipsoid> e = ellipsoids_of(backend, positions, p);
    const Shape top = shape_of(e[std::size_t((5 * 6 + 5) * 10 + 5)]);
    const Shape inner = shape_of(e[std::size_t((5 * 6 + 3) * 10 + 5)]);
    // The top particle moves down (towards its neighbours' weighted mean), the inner one stays.
    CHECK(top.centre.y < 0.05f - 0.1f * dx);
    CHECK(inner.centre.y == doctest::Approx(0.03f).epsilon(1e-5));
}

void lone_particles_are_spheres(const Backend& backend) {
    // Two particles far apart, and a pair: too few neighbours for a principal axis analysis.
    const std::vector<Vec3f> positions = {{0, 0, 0}, {1, 1, 1}, {1.005f, 1, 1}};
    AnisotropyParams p = sph_like(0.01f);
    const std::vector<Ellipsoid> e = ellipsoids_of(backend, positions, p);
    for (const Ellipsoid& one : e) {
        const Shape s = shape_of(one);
        CHECK(s.axes[0] == doctest::Approx(p.radius_m));
        CHECK(s.axes[2] == doctest::Approx(p.radius_m));
    }
    CHECK(shape_of(e[0]).centre.x == 0.0f);
}

}  // namespace

PK_BACKEND_TEST("anisotropy: spheres inside a lattice, discs on its free surface, constant volume", lattice_and_surface)
PK_BACKEND_TEST("anisotropy: centre smoothing pulls surface particles inwards", centre_smoothing_pulls_surfaces_in)
PK_BACKEND_TEST("anisotropy: particles with few neighbours are spheres", lone_particles_are_spheres)
