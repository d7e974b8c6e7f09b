// Particle sets for the neighbour-search tests: each names its domain and radius.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "base/vec.hpp"
#include "frnn/cell_grid.hpp"

namespace partikel::frnn::testing {

struct Input {
    std::string name;
    std::vector<Vec3f> positions;
    Vec3f lo, hi;   // domain
    float radius;
};

inline Vec3f v3(float x, float y, float z) { return {x, y, z}; }

// Uniform random in [lo, hi); some particles slightly outside when `outside` (open faces).
inline Input random_input(std::size_t n, std::uint32_t seed, bool outside = false) {
    Input in{"random", {}, v3(0, 0, 0), v3(4, 3, 2.5f), 0.5f};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    const float pad = outside ? 0.7f : 0.0f;
    for (std::size_t i = 0; i < n; ++i) {
        Vec3f p;
        for (int a = 0; a < 3; ++a)
            p[a] = in.lo[a] - pad + u(rng) * (in.hi[a] - in.lo[a] + 2 * pad);
        if (!(p.x < in.hi.x) && !outside) p.x = in.lo.x;
        in.positions.push_back(p);
    }
    if (outside) in.name = "random+outside";
    return in;
}

// A lattice of spacing dx = 0.25 exactly, r = 1: many pairs at distance exactly r (and exactly
// 2, 3, 4 lattice steps), every particle on a multiple of r / 2^k.
inline Input exact_lattice() {
    Input in{"lattice-exact-r", {}, v3(0, 0, 0), v3(3, 2.5f, 2), 1.0f};
    for (int z = 0; z < 8; ++z)
        for (int y = 0; y < 10; ++y)
            for (int x = 0; x < 12; ++x) in.positions.push_back(v3(0.25f * x, 0.25f * y, 0.25f * z));
    return in;
}

// A jittered lattice of spacing dx with r = 3 dx (SPH's resolution).
inline Input jittered_lattice(int nx, int ny, int nz, std::uint32_t seed) {
    const float dx = 0.1f;
    Input in{"jittered-lattice", {}, v3(0, 0, 0), v3(nx * dx, ny * dx, nz * dx), 3 * dx};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-0.1f, 0.1f);
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x)
                in.positions.push_back(v3((x + 0.5f + u(rng)) * dx, (y + 0.5f + u(rng)) * dx, (z + 0.5f + u(rng)) * dx));
    return in;
}

// Two densities differing 8x: a uniform background of 10 particles per m^3 and a block where
// extra particles raise it to 80 per m^3.
inline Input clustered(std::uint32_t seed) {
    Input in{"clustered-8x", {}, v3(-2, -2, -2), v3(2, 2, 2), 0.45f};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int i = 0; i < 640; ++i) in.positions.push_back(v3(-2 + 4 * u(rng), -2 + 4 * u(rng), -2 + 4 * u(rng)));
    for (int i = 0; i < 280; ++i) in.positions.push_back(v3(0 + 1 * u(rng), -1 + 2 * u(rng), -1 + 2 * u(rng)));
    return in;
}

// Every particle inside one cell (many coincident).
inline Input one_cell(std::uint32_t seed) {
    Input in{"one-cell", {}, v3(0, 0, 0), v3(5, 5, 5), 1.0f};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int i = 0; i < 300; ++i) in.positions.push_back(v3(2.1f + 0.3f * u(rng), 2.1f + 0.3f * u(rng), 2.1f));
    for (int i = 0; i < 20; ++i) in.positions.push_back(v3(2.2f, 2.2f, 2.2f));
    return in;
}

// Pairs at distance exactly r along each axis and across cell borders and domain faces,
// including the corners of the domain (max faces: x == domain_max).
inline Input borders() {
    Input in{"borders", {}, v3(0, 0, 0), v3(4, 4, 4), 0.5f};
    const float r = in.radius;
    for (float x : {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.5f, 4.0f})
        for (float y : {0.0f, 0.125f, 0.5f, 3.5f, 4.0f})
            for (float z : {0.0f, 0.25f, 2.0f, 4.0f}) in.positions.push_back(v3(x, y, z));
    in.positions.push_back(v3(1.25f, 1.25f, 1.25f));
    in.positions.push_back(v3(1.25f + r, 1.25f, 1.25f));
    in.positions.push_back(v3(1.25f, 1.25f - r, 1.25f));
    in.positions.push_back(v3(1.25f, 1.25f, 1.25f + r));
    return in;
}

inline Input empty_input() { return {"empty", {}, v3(0, 0, 0), v3(1, 1, 1), 0.3f}; }
inline Input single_input() { return {"single", {v3(0.5f, 0.5f, 0.5f)}, v3(0, 0, 0), v3(1, 1, 1), 0.3f}; }

// A periodic box shorter than 2r along x and y (one or two cells per axis): the minimum image
// and the whole-axis fallback of every shape.
inline Input tiny_box(std::uint32_t seed) {
    Input in{"tiny-box", {}, v3(0, 0, 0), v3(0.7f, 1.1f, 3.0f), 0.5f};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int i = 0; i < 200; ++i) in.positions.push_back(v3(0.7f * u(rng), 1.1f * u(rng), 3.0f * u(rng)));
    return in;
}

// Pairs at distance r straddling the actual cell borders of `grid` (whose edges carry the
// safety margin, so they are not multiples of r): for border b along each axis, particles at
// b, the float just below b, and b - r, b + r, b - r - ulp. A search that reaches less than r
// or rounds a border the other way loses some of these pairs.
inline Input border_pairs(const Input& base, const CellGridView& grid) {
    Input in = base;
    in.name = "cell-borders";
    in.positions.clear();
    const float r = in.radius;
    const Vec3f mid = (in.lo + in.hi) * 0.5f;
    for (int a = 0; a < 3; ++a)
        for (int m = 1; m < grid.dims[a]; m += 1 + grid.dims[a] / 5) {
            const float b = grid.origin[a] + static_cast<float>(m) * grid.cell_size[a];
            for (float x : {b, std::nextafter(b, -1e30f), std::nextafter(b, 1e30f), b - r, b + r,
                            std::nextafter(b - r, -1e30f), std::nextafter(b + r, 1e30f)}) {
                Vec3f p = mid;
                p[a] = x;
                in.positions.push_back(p);
            }
        }
    return in;
}

inline std::vector<Input> all_inputs() {
    return {random_input(700, 1), random_input(500, 2, true), exact_lattice(), jittered_lattice(12, 10, 9, 3),
            clustered(4), one_cell(5), borders(), empty_input(), single_input(), tiny_box(6)};
}

inline GridSpec spec_for(const Input& in, int k, int periodic_mask, bool morton = false,
                         SortMethod sort = SortMethod::counting) {
    GridSpec s;
    s.domain_min = in.lo;
    s.domain_max = in.hi;
    s.radius = in.radius;
    s.subdivision = k;
    for (int a = 0; a < 3; ++a) s.boundary[a] = (periodic_mask >> a) & 1 ? Boundary::periodic : Boundary::open;
    s.morton = morton;
    s.sort = sort;
    return s;
}

}  // namespace partikel::frnn::testing
