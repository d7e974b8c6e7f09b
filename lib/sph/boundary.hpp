// Boundary volumes: the domain walls (one of them optionally a wave maker) and a height-field
// terrain. A particle that entered a volume by a depth d > 0 is pushed out along the normal n
// and damped:
//     a += (K d - D (v - v_wall) . n) n,    K = k_s (c0/h)^2,  D = k_d 2 sqrt(K)
// (k_s = SphParams::wall_stiffness, k_d = SphParams::wall_damping; k_d = 1 is critical damping).
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
// (dh/dx, dh/dz) at (x, z), bilinear (the gradient of the interpolant; clamped outside the
// field). Over device memory in the solver, over the host copy where scenes place particles.
struct TerrainView {
    const float* height = nullptr;  // m, nx * nz, row-major in z; nullptr: no terrain
    int nx = 0, nz = 0;
    float x0 = 0.0f, z0 = 0.0f, inv_cell = 0.0f;  // m, m, 1/m
    PK_DEVICE_INLINE float height_at(float x, float z, float& dhdx, float& dhdz) const {
        float tx = (x - x0) * inv_cell;
        float tz = (z - z0) * inv_cell;
        tx = fminf(fmaxf(tx, 0.0f), float(nx - 1) - 1e-4f);
        tz = fminf(fmaxf(tz, 0.0f), float(nz - 1) - 1e-4f);
        const int ix = int(tx), iz = int(tz);
        const float fx = tx - float(ix), fz = tz - float(iz);
        const float* row0 = height + iz * nx + ix;
        const float* row1 = row0 + nx;
        const float h00 = row0[0], h10 = row0[1], h01 = row1[0], h11 = row1[1];
        dhdx = ((h10 - h00) * (1.0f - fz) + (h11 - h01) * fz) * inv_cell;
        dhdz = ((h01 - h00) * (1.0f - fx) + (h11 - h10) * fx) * inv_cell;
        return (h00 * (1.0f - fx) + h10 * fx) * (1.0f - fz) + (h01 * (1.0f - fx) + h11 * fx) * fz;
    }
};

// The view of a height field's samples at `samples` (host or device memory of its heights).
inline TerrainView terrain_view(const float* samples, const HeightField& t) {
    return {samples, t.nx, t.nz, t.x0_m, t.z0_m, 1.0f / t.cell_m};
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
            if (depth > 0.0f) a += (K * depth - D * dot(v, n)) * n;
        }
        return a;
    }
};

}  // namespace partikel::sph
