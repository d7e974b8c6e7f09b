// The ellipsoid drawn for each particle (Werner 2015, thesis chapter 5.3, after Yu & Turk,
// "Reconstructing Surfaces of Particle-Based Fluids Using Anisotropic Kernels", ACM TOG 2013).
//
// A weighted principal component analysis of each particle's neighbours within r_iso = 2h:
//   w_ij = 1 - (|r_ij| / r_iso)^3 for |r_ij| < r_iso,
//   mean_i = sum_j w_ij r_j / sum_j w_ij,
//   C_i = sum_j w_ij (r_j - mean_i)(r_j - mean_i)^T / sum_j w_ij = R diag(lambda) R^T,
// the particle itself included (weight 1). The axes are the eigenvectors; their lengths are
// proportional to sqrt(lambda_k), the shorter ones raised to at least 1/max_ratio of the longest
// (Yu & Turk's k_r), and scaled so that the ellipsoid has the volume of the sphere of radius
// `radius_m`: an isotropic neighbourhood gives that sphere, a particle on a flat surface a disc
// along it. A particle with fewer than `min_neighbours` neighbours (spray, drops) is that
// sphere. The centre moves towards the weighted mean by `centre_smoothing` (Yu & Turk's
// lambda; 0 keeps the particle's position), which pulls surface particles onto a smoother
// surface.
//
// The result is the matrix K = diag(1/a) R^T that maps the ellipsoid onto the unit sphere,
// {x : |K (x - c)| <= 1}: row k of K is axis k divided by its length. Spheres (opaque
// particles, --style spheres) use the same form with K = I / radius.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/vec.hpp"
#include "frnn/cell_grid.hpp"

namespace partikel::render {

// Rows of K in xyz and the centre's coordinates in w (48 bytes, three 16-byte loads).
struct alignas(16) Ellipsoid {
    Vec4f row[3];
};

struct AnisotropyParams {
    float support_m = 0.0f;         // r_iso: neighbours closer than this count (2h for SPH)
    float radius_m = 0.0f;          // radius of the sphere an isotropic neighbourhood gives
    float max_ratio = 4.0f;         // longest axis over shortest, at most (Yu & Turk: k_r = 4)
    int min_neighbours = 25;        // fewer neighbours: a sphere (Yu & Turk: N_eps = 25)
    float centre_smoothing = 0.9f;  // 0..1, Yu & Turk's lambda
};

// One ellipsoid per particle of the grid, in the grid's (cell) order: out[k] for the particle
// grid.positions[k]. The grid's search radius must be at least params.support_m.
template <class Exec>
void compute_ellipsoids(const Exec& exec, const frnn::CellGridView& grid, const AnisotropyParams& params,
                        Ellipsoid* out);

// Spheres of radius radius_m[i] (or `constant_radius_m` where radius_m is null) at positions[i].
template <class Exec>
void make_spheres(const Exec& exec, const Vec3f* positions, const float* radius_m, float constant_radius_m,
                  std::size_t n, Ellipsoid* out);

}  // namespace partikel::render
