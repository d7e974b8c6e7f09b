// The anisotropy kernels (anisotropy.hpp), written once for both backends; instantiated by
// anisotropy_cpu.cpp (CpuExec) and anisotropy_cuda.cu (CudaExec).
#pragma once

#include <math.h>

#include "base/hd.hpp"
#include "render/anisotropy.hpp"
#include "render/eigen3.hpp"

namespace partikel::render {

namespace kernels {

PK_DEVICE_INLINE Ellipsoid sphere_at(Vec3f c, float radius) {
    const float inv = 1.0f / radius;
    Ellipsoid e;
    e.row[0] = {inv, 0.0f, 0.0f, c.x};
    e.row[1] = {0.0f, inv, 0.0f, c.y};
    e.row[2] = {0.0f, 0.0f, inv, c.z};
    return e;
}

// Weighted PCA of the neighbourhood of grid particle a (anisotropy.hpp). Moments are taken of
// offsets from particle a (|offset| < r_iso), so that float sums carry no large common part.
struct WeightedPca {
    frnn::CellGridView grid;
    AnisotropyParams p;
    Ellipsoid* out;

    PK_HD void operator()(std::size_t a) const {
        const Vec3f x_a = grid.positions[a];
        const float inv_support = 1.0f / p.support_m;
        float w_sum = 0.0f;
        Vec3f m{0.0f, 0.0f, 0.0f};                  // sum w d, d = x_j - x_a
        float c00 = 0.0f, c01 = 0.0f, c02 = 0.0f, c11 = 0.0f, c12 = 0.0f, c22 = 0.0f;  // sum w d d^T
        int neighbours = 0;
        frnn::for_each_neighbor(grid, x_a, [&](std::uint32_t j, Vec3f r_aj, float r2) {
            const float q = sqrtf(r2) * inv_support;
            if (q >= 1.0f) return;
            const float w = 1.0f - q * q * q;
            const Vec3f d = -r_aj;
            w_sum += w;
            m += w * d;
            c00 += w * d.x * d.x;
            c01 += w * d.x * d.y;
            c02 += w * d.x * d.z;
            c11 += w * d.y * d.y;
            c12 += w * d.y * d.z;
            c22 += w * d.z * d.z;
            neighbours += j != std::uint32_t(a);
        });
        const Vec3f mean = m / w_sum;  // w_sum >= 1: the particle itself
        const Vec3f centre = x_a + p.centre_smoothing * mean;
        if (neighbours < p.min_neighbours) {
            out[a] = sphere_at(centre, p.radius_m);
            return;
        }
        // C = sum w d d^T / sum w - mean mean^T, normalised by its trace so that the Jacobi
        // iteration works on numbers of order one at any length scale.
        const float inv_w = 1.0f / w_sum;
        float a00 = c00 * inv_w - mean.x * mean.x, a01 = c01 * inv_w - mean.x * mean.y;
        float a02 = c02 * inv_w - mean.x * mean.z, a11 = c11 * inv_w - mean.y * mean.y;
        float a12 = c12 * inv_w - mean.y * mean.z, a22 = c22 * inv_w - mean.z * mean.z;
        const float trace = a00 + a11 + a22;
        if (!(trace > 0.0f)) {
            out[a] = sphere_at(centre, p.radius_m);
            return;
        }
        const float inv_trace = 1.0f / trace;
        const SymmetricEigen3 eig = symmetric_eigen3(a00 * inv_trace, a01 * inv_trace, a02 * inv_trace,
                                                     a11 * inv_trace, a12 * inv_trace, a22 * inv_trace);
        // Axis lengths ~ sqrt(lambda), the shorter ones at least sigma_max / max_ratio.
        const float sigma_max = sqrtf(fmaxf(eig.values[0], 0.0f));
        const float floor_sigma = sigma_max / p.max_ratio;
        float sigma[3];
        for (int k = 0; k < 3; ++k) sigma[k] = fmaxf(sqrtf(fmaxf(eig.values[k], 0.0f)), floor_sigma);
        // Volume of the sphere of radius_m: a_k = radius_m sigma_k / (sigma_0 sigma_1 sigma_2)^(1/3).
        const float scale = p.radius_m / cbrtf(sigma[0] * sigma[1] * sigma[2]);
        Ellipsoid e;
        for (int k = 0; k < 3; ++k) {
            const float inv_axis = 1.0f / (scale * sigma[k]);
            const Vec3f r = inv_axis * eig.vectors[k];
            e.row[k] = {r.x, r.y, r.z, centre[k]};
        }
        out[a] = e;
    }
};

struct Spheres {
    const Vec3f* positions;
    const float* radius_m;
    float constant_radius_m;
    Ellipsoid* out;
    PK_HD void operator()(std::size_t i) const {
        out[i] = sphere_at(positions[i], radius_m ? radius_m[i] : constant_radius_m);
    }
};

}  // namespace kernels

template <class Exec>
void compute_ellipsoids(const Exec& exec, const frnn::CellGridView& grid, const AnisotropyParams& params,
                        Ellipsoid* out) {
    exec.for_each_uneven(grid.count, kernels::WeightedPca{grid, params, out}, "render.anisotropy");
}

template <class Exec>
void make_spheres(const Exec& exec, const Vec3f* positions, const float* radius_m, float constant_radius_m,
                  std::size_t n, Ellipsoid* out) {
    exec.for_each(n, kernels::Spheres{positions, radius_m, constant_radius_m, out}, "render.spheres");
}

#define PK_RENDER_ANISOTROPY_INSTANTIATE(Exec)                                                                   \
    template void compute_ellipsoids(const Exec&, const frnn::CellGridView&, const AnisotropyParams&, Ellipsoid*); \
    template void make_spheres(const Exec&, const Vec3f*, const float*, float, std::size_t, Ellipsoid*);

}  // namespace partikel::render
