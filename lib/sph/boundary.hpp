// Boundary volumes: the domain walls (one of them optionally a wave maker) and a height-field
// terrain. A particle that entered a volume by a depth d > 0 is pushed out along the normal n
// and damped:
//     a += (K d - D (v - v_wall) . n) n,    K = k_s (c0/h)^2,  D = k_d 2 sqrt(K)
// (k_s = SphParams::wall_stiffness, k_d = SphParams::wall_damping; k_d = 1 is critical damping).
// The terrain may use Sandvik (2021)'s penalty law instead, a += (K_s d - K_d v . n) n with
// constants of its own, and friction -K_f (v - n (v . n)) within a height of the ground
// (TerrainContact).
// With K = (c0/h)^2 a particle that penetrates by 1% of h feels the acceleration that a 1%
// compression of the fluid produces over one smoothing length, and sqrt(K) dt = cfl <= 0.3
// keeps the explicit spring-damper stable. See docs/SPH.md, "Boundaries".
#pragma once

#include <cmath>
#include <cstdint>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "sph/params.hpp"

namespace partikel::sph {

// A height field y = height(x, z) on a regular grid: the ground's height and gradient
// (dh/dx, dh/dz) at (x, z), clamped outside the field. Two samplings (docs/SPH.md, "Terrain"):
// - tile == 0: the bilinear interpolant of the samples, with the gradient interpolated
//   bilinearly from central differences at the samples (one-sided at the edges), so that the
//   normal turns smoothly instead of jumping at cell edges;
// - tile > 0: Sandvik (2021, section 4.4)'s tiles of edge `tile`: one height per tile, the mean
//   of the bilinear heights at its four corners, and one gradient, the central differences of the
//   bilinear heights across the tile, (H(x + T/2) - H(x - T/2)) / T about its centre (Sandvik's
//   eq. 4.26 divides a one-sided difference by 2 Delta, halving the slope).
// Over device memory in the solver, over the host copy where scenes place particles.
struct TerrainView {
    const float* height = nullptr;  // m, nx * nz, row-major in z; nullptr: no terrain
    int nx = 0, nz = 0;
    float x0 = 0.0f, z0 = 0.0f, inv_cell = 0.0f;  // m, m, 1/m
    float tile = 0.0f;                            // m; 0: bilinear

    // Grid coordinates of (x, z), clamped into the field: cell (ix, iz), fractions (fx, fz).
    PK_DEVICE_INLINE void locate(float x, float z, int& ix, int& iz, float& fx, float& fz) const {
        float tx = (x - x0) * inv_cell;
        float tz = (z - z0) * inv_cell;
        tx = fminf(fmaxf(tx, 0.0f), float(nx - 1) - 1e-4f);
        tz = fminf(fmaxf(tz, 0.0f), float(nz - 1) - 1e-4f);
        ix = int(tx);
        iz = int(tz);
        fx = tx - float(ix);
        fz = tz - float(iz);
    }
    PK_DEVICE_INLINE float sample(int i, int k) const { return height[k * nx + i]; }
    PK_DEVICE_INLINE float bilinear(float x, float z) const {
        int ix, iz;
        float fx, fz;
        locate(x, z, ix, iz, fx, fz);
        const float* row0 = height + iz * nx + ix;
        const float* row1 = row0 + nx;
        return (row0[0] * (1.0f - fx) + row0[1] * fx) * (1.0f - fz) + (row1[0] * (1.0f - fx) + row1[1] * fx) * fz;
    }
    // dh/dx at sample (i, k) by central differences, one-sided at the first and last column.
    PK_DEVICE_INLINE float node_dhdx(int i, int k) const {
        const int lo = i > 0 ? i - 1 : 0, hi = i < nx - 1 ? i + 1 : nx - 1;
        return (sample(hi, k) - sample(lo, k)) * inv_cell / float(hi - lo);
    }
    PK_DEVICE_INLINE float node_dhdz(int i, int k) const {
        const int lo = k > 0 ? k - 1 : 0, hi = k < nz - 1 ? k + 1 : nz - 1;
        return (sample(i, hi) - sample(i, lo)) * inv_cell / float(hi - lo);
    }
    PK_DEVICE_INLINE float height_at(float x, float z, float& dhdx, float& dhdz) const {
        if (tile > 0.0f) {
            const float xa = x0 + floorf((x - x0) / tile) * tile, za = z0 + floorf((z - z0) / tile) * tile;
            const float xb = xa + tile, zb = za + tile, xc = xa + 0.5f * tile, zc = za + 0.5f * tile;
            dhdx = (bilinear(xb, zc) - bilinear(xa, zc)) / tile;
            dhdz = (bilinear(xc, zb) - bilinear(xc, za)) / tile;
            return 0.25f * (bilinear(xa, za) + bilinear(xb, za) + bilinear(xa, zb) + bilinear(xb, zb));
        }
        int ix, iz;
        float fx, fz;
        locate(x, z, ix, iz, fx, fz);
        const float w00 = (1.0f - fx) * (1.0f - fz), w10 = fx * (1.0f - fz), w01 = (1.0f - fx) * fz, w11 = fx * fz;
        dhdx = w00 * node_dhdx(ix, iz) + w10 * node_dhdx(ix + 1, iz) + w01 * node_dhdx(ix, iz + 1) +
               w11 * node_dhdx(ix + 1, iz + 1);
        dhdz = w00 * node_dhdz(ix, iz) + w10 * node_dhdz(ix + 1, iz) + w01 * node_dhdz(ix, iz + 1) +
               w11 * node_dhdz(ix + 1, iz + 1);
        return w00 * sample(ix, iz) + w10 * sample(ix + 1, iz) + w01 * sample(ix, iz + 1) + w11 * sample(ix + 1, iz + 1);
    }
};

// The view of a height field's samples at `samples` (host or device memory of its heights),
// sampled bilinearly or in tiles of edge tile_m (TerrainContact::tile_m).
inline TerrainView terrain_view(const float* samples, const HeightField& t, float tile_m = 0.0f) {
    return {samples, t.nx, t.nz, t.x0_m, t.z0_m, 1.0f / t.cell_m, tile_m};
}

struct BoundaryVolumes {
    Vec3f lo, hi;                    // m, domain faces
    std::uint8_t wall_mask = 0;      // bit f: face f (x-, x+, y-, y+, z-, z+) is a wall
    float K = 0.0f;                  // 1/s^2
    float D = 0.0f;                  // 1/s
    int wave_face = -1;              // face displaced by the wave maker
    float wave_offset = 0.0f;        // m, its displacement along the inward normal axis now
    float wave_velocity = 0.0f;      // m/s, its velocity now
    TerrainView terrain;             // no terrain: terrain.height == nullptr
    TerrainLaw terrain_law = TerrainLaw::repulsive;  // penalty: Ks, Kd below instead of K, D
    float Ks = 0.0f;                 // 1/s^2, penalty stiffness
    float Kd = 0.0f;                 // 1/s, penalty damping
    float Kf = 0.0f;                 // 1/s, friction; 0: none
    float friction_height = 0.0f;    // m

    PK_DEVICE_INLINE Vec3f acceleration(Vec3f x, Vec3f v) const {
        Vec3f a{0.0f, 0.0f, 0.0f};
        for (int axis = 0; axis < 3; ++axis) {
            for (int side = 0; side < 2; ++side) {
                const int face = 2 * axis + side;
                if (!((wall_mask >> face) & 1u)) continue;
                const bool moving = face == wave_face;
                const float plane = (side == 0 ? lo[axis] : hi[axis]) + (moving ? wave_offset : 0.0f);
                const float inward = side == 0 ? 1.0f : -1.0f;  // normal pointing into the domain
                const float depth = (plane - x[axis]) * inward;
                if (depth > 0.0f) {
                    const float vn = (v[axis] - (moving ? wave_velocity : 0.0f)) * inward;
                    a[axis] += inward * (K * depth - D * vn);
                }
            }
        }
        if (terrain.height) {
            float dhdx, dhdz;
            const float ground = terrain.height_at(x.x, x.z, dhdx, dhdz);
            Vec3f n{-dhdx, 1.0f, -dhdz};
            n = n / norm(n);
            const float depth = (ground - x.y) * n.y;  // distance to the local tangent plane
            const float vn = dot(v, n);
            if (depth > 0.0f) {
                const bool penalty = terrain_law == TerrainLaw::penalty;
                a += ((penalty ? Ks : K) * depth - (penalty ? Kd : D) * vn) * n;
            }
            if (Kf > 0.0f && depth >= -friction_height) a -= Kf * (v - vn * n);
        }
        return a;
    }
};

}  // namespace partikel::sph
