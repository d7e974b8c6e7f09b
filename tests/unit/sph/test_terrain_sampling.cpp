// Terrain sampling (sph/boundary.hpp, TerrainView): bilinear heights with normals from central
// differences, and Sandvik (2021)'s tiles, against an analytic plane and paraboloid. The
// measured errors are printed; the bounds are the interpolation errors of each sampling.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "sph/boundary.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

constexpr float kCell_m = 0.5f;
constexpr int kN = 41;  // samples per side: 20 m
constexpr float kX0_m = -10.0f, kZ0_m = -10.0f;

HeightField sampled(const std::function<double(double, double)>& f) {
    HeightField t;
    t.nx = t.nz = kN;
    t.cell_m = kCell_m;
    t.x0_m = kX0_m;
    t.z0_m = kZ0_m;
    for (int k = 0; k < kN; ++k)
        for (int i = 0; i < kN; ++i) t.height_m.push_back(float(f(kX0_m + i * kCell_m, kZ0_m + k * kCell_m)));
    return t;
}

struct Errors {
    double height = 0.0, dhdx = 0.0, dhdz = 0.0;
};

// Largest errors over a fine grid of points at least `margin` inside the field.
Errors measure(const TerrainView& view, const std::function<double(double, double)>& h,
               const std::function<double(double, double)>& hx, const std::function<double(double, double)>& hz,
               float margin) {
    Errors e;
    const float lo = kX0_m + margin, hi = kX0_m + (kN - 1) * kCell_m - margin;
    for (float x = lo; x <= hi; x += 0.0737f)
        for (float z = lo; z <= hi; z += 0.0911f) {
            float gx, gz;
            const float y = view.height_at(x, z, gx, gz);
            e.height = std::max(e.height, std::abs(y - h(x, z)));
            e.dhdx = std::max(e.dhdx, std::abs(gx - hx(x, z)));
            e.dhdz = std::max(e.dhdz, std::abs(gz - hz(x, z)));
        }
    return e;
}

}  // namespace

TEST_CASE("a plane is sampled exactly, bilinear and in tiles, with its full slope") {
    const double a = 3.0, b = 0.7, c = -0.3;  // h = a + b x + c z
    const auto h = [&](double x, double z) { return a + b * x + c * z; };
    const auto hx = [&](double, double) { return b; };
    const auto hz = [&](double, double) { return c; };
    const HeightField t = sampled(h);
    for (const float tile : {0.0f, 2.0f, 0.75f}) {
        CAPTURE(tile);
        // Tiles reaching past the field's edge see the clamped (flat) outside: points whose
        // whole tile lies inside the field.
        const Errors e = measure(terrain_view(t.height_m.data(), t, tile), h, hx, hz, tile);
        MESSAGE("plane, tile " << tile << " m: height error " << e.height << " m, slope error " << e.dhdx << ", "
                               << e.dhdz);
        if (tile == 0.0f) CHECK(e.height < 1e-5);
        // Tiles: one height per tile, off the plane by up to the slope times half a diagonal.
        else CHECK(e.height <= (std::abs(b) + std::abs(c)) * 0.5 * tile + 1e-5);
        // The full slope (Sandvik's eq. 4.26 would give half of it).
        CHECK(e.dhdx < 5e-5);  // float rounding of heights near 10 m over a tile
        CHECK(e.dhdz < 5e-5);
    }
}

TEST_CASE("a paraboloid: bilinear heights within k cell^2 / 2, central-difference slopes exact inside") {
    const double k = 0.05;  // h = k (x^2 + z^2), slope up to 1 at the field's edge
    const auto h = [&](double x, double z) { return k * (x * x + z * z); };
    const auto hx = [&](double x, double) { return 2.0 * k * x; };
    const auto hz = [&](double, double z) { return 2.0 * k * z; };
    const HeightField t = sampled(h);
    // Bilinear: the interpolation error of k x^2 is k f (1 - f) cell^2 <= k cell^2 / 4 per axis;
    // central differences of a quadratic are exact at the samples and their bilinear
    // interpolation reproduces the linear slope, away from the one-sided edge samples.
    const Errors bilinear =
        measure(terrain_view(t.height_m.data(), t, 0.0f), h, hx, hz, kCell_m);
    MESSAGE("paraboloid, bilinear: height error " << bilinear.height << " m (bound " << k * kCell_m * kCell_m / 2
                                                  << "), slope error " << bilinear.dhdx << ", " << bilinear.dhdz);
    CHECK(bilinear.height <= k * kCell_m * kCell_m / 2 * 1.001 + 1e-5);
    CHECK(bilinear.dhdx < 2e-5);
    CHECK(bilinear.dhdz < 2e-5);
    // The gradient of the bilinear interpolant itself (what the terrain used before) is off by
    // up to k cell: the central differences are the better normals.
    CHECK(k * kCell_m > 100 * bilinear.dhdx);

    // Tiles of T = 2 m: the mean of the corners is k (xc^2 + zc^2 + T^2 / 2); a point of the
    // tile lies up to T / 2 from the centre on each axis, so the height is off by at most
    // k (|xc| T + T^2 / 4) per axis plus k T^2 / 4 -- bounded by slope_max T / 2 + k T^2 per
    // axis -- and the slope by 2 k T / 2 = k T.
    const float tile = 2.0f;
    const Errors tiles = measure(terrain_view(t.height_m.data(), t, tile), h, hx, hz, tile);
    const double slope_max = 2.0 * k * 10.0;
    MESSAGE("paraboloid, tiles of " << tile << " m: height error " << tiles.height << " m, slope error " << tiles.dhdx
                                    << ", " << tiles.dhdz << " (bound " << k * tile << ")");
    CHECK(tiles.height <= 2.0 * (slope_max * tile / 2 + k * tile * tile) + 1e-4);
    CHECK(tiles.dhdx <= k * tile * 1.001 + 1e-5);
    CHECK(tiles.dhdz <= k * tile * 1.001 + 1e-5);
    CHECK(tiles.dhdx > 0.9 * k * tile);  // the tile's steps are real: a bound that is reached
}
