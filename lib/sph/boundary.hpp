// Boundary volumes: the domain walls (one of them optionally a wave maker) and a height-field
// terrain. A particle that entered a volume by a depth d > 0 is pushed out along the normal n
// and damped:
//     a += (K d - D (v - v_wall) . n) n,    K = k_s (c0/h)^2,  D = k_d 2 sqrt(K)
// (k_s = SphParams::wall_stiffness, k_d = SphParams::wall_damping; k_d = 1 is critical damping).
// The terrain may use Sandvik (2021)'s penalty law instead, a += (K_s d - K_d v . n) n with
// constants of its own, and friction -K_f (v - n (v . n)) within a height of the ground
// (TerrainContact).
// Boundary particles: the modified dynamic boundary conditions (mDBC; English et al. 2022) at the
// end of this file.
// With K = (c0/h)^2 a particle that penetrates by 1% of h feels the acceleration that a 1%
// compression of the fluid produces over one smoothing length, and sqrt(K) dt = cfl <= 0.3
// keeps the explicit spring-damper stable. See docs/SPH.md, "Boundaries".
#pragma once

#include <cmath>
#include <cstdint>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "frnn/box.hpp"
#include "sph/eos.hpp"
#include "sph/kernel.hpp"
#include "sph/params.hpp"
#include "sph/tensor.hpp"

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

// Modified dynamic boundary conditions (English, Crespo, Rogers, Dominguez, Gomez-Gesteira 2022,
// "Modified dynamic boundary conditions (mDBC) for general-purpose smoothed particle
// hydrodynamics (SPH)", Comp. Part. Mech. 9:1-15). A boundary particle at x_b with the vector
// d n to the wall surface (field boundary_normal) has a ghost node x_g = x_b + 2 d n, mirrored
// into the fluid. At x_g the fluid's density and its gradient are interpolated to first order
// (Liu & Liu 2006: the kernel-gradient corrected interpolation), from the fluid neighbours b only:
// the Taylor expansion rho_b = rho_g + grad rho_g . (x_b - x_g), weighted by V_b W_gb and by
// V_b grad W_gb (V_b = m_b / rho_b) and summed, is the 4 x 4 system
//     [ sum V W          sum V W (x_b - x_g)^T       ] [ rho_g      ]   [ sum m W      ]
//     [ sum V grad W     sum V grad W (x_b - x_g)^T  ] [ grad rho_g ] = [ sum m grad W ]
// exact for a linear density field whatever the volumes. The boundary particle takes
// rho_b = rho_g + (x_b - x_g) . grad rho_g. With |det| < 1e-3 (few fluid neighbours, on one side:
// DualSPHysics's limit; the determinant is dimensionless, the same for the matrix scaled by h
// below) it takes the Shepard value sum m W / sum V W, and with no fluid neighbour rho0.
// Like the dynamic boundaries here its density stays >= rho0, so that a wall never pulls fluid
// in. The ghost node's velocity comes from the same system (its value at x_g, first order), the
// Shepard mean where the density falls back to it: the Shepard mean of a one-sided stencil is the
// fluid's velocity farther in, and a no-slip wall mirroring it dragged a Poiseuille flow 19% slow.
struct GhostNodeSums {
    // The system in units of h: distances (x_b - x_g)/h and gradients h grad W, so that every
    // entry is of order one; the unknowns are rho_g and h grad rho_g (and the same for each
    // velocity component, whose right-hand sides replace m_b by V_b v_b).
    float A[4][4];
    float rhs[4];
    Vec3f rhs_velocity[4];
    Vec3f velocity;  // sum V W v_b
    // One fluid neighbour b: r_gb = x_g - x_b, W_gb and grad_g W_gb = F r_gb. kVelocity: the
    // velocity's sums too (the mDBC pass needs them for the no-slip and free-slip velocities only).
    template <bool kVelocity = true>
    PK_DEVICE_INLINE void add(Vec3f r_gb, float W, float F, float m_b, float rho_b, Vec3f v_b, float h) {
        const float V = m_b / rho_b;
        const Vec3f d = (-1.0f / h) * r_gb;  // (x_b - x_g) / h
        const Vec3f g = (F * h) * r_gb;      // h grad W
        const float row[4] = {W, g.x, g.y, g.z};
        const float col[4] = {1.0f, d.x, d.y, d.z};
        for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) A[i][j] += V * row[i] * col[j];
            rhs[i] += m_b * row[i];
            if constexpr (kVelocity) rhs_velocity[i] += (V * row[i]) * v_b;
        }
        if constexpr (kVelocity) velocity += (V * W) * v_b;
    }
};

// What GhostNodeSums give at the ghost node.
struct GhostNodeValue {
    enum Order : int { none = -1, shepard = 0, first = 1 };
    int order = none;         // first: corrected; shepard: |det| below the limit; none: no fluid neighbour
    float density = 0.0f;     // kg/m^3 at the ghost node
    Vec3f gradient{0, 0, 0};  // kg/m^4 (first order only)
    Vec3f velocity{0, 0, 0};  // m/s: first order where the density is, else the Shepard mean
    Mat3f velocity_gradient{};  // 1/s, row i grad v_i (first order only)
};

inline constexpr float kMdbcDeterminantLimit = 1e-3f;  // DualSPHysics's DetermLimit

// Gaussian elimination with partial pivoting of the 4 x 4 system; the determinant is the product of
// the pivots (with the row exchanges' signs). kVelocity: the velocity and its gradient too (from
// sums added with kVelocity); the density's columns are the same either way.
template <bool kVelocity = true> PK_DEVICE_INLINE GhostNodeValue solve_ghost_node(const GhostNodeSums& s, float h) {
    GhostNodeValue out;
    const float shepard = s.A[0][0];
    if (!(shepard > 0.0f)) return out;
    if constexpr (kVelocity) out.velocity = (1.0f / shepard) * s.velocity;
    // Columns 4..7: the right-hand sides of the density and of the three velocity components.
    constexpr int kColumns = kVelocity ? 8 : 5;
    float a[4][kColumns];
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) a[i][j] = s.A[i][j];
        a[i][4] = s.rhs[i];
        if constexpr (kVelocity) {
            a[i][5] = s.rhs_velocity[i].x;
            a[i][6] = s.rhs_velocity[i].y;
            a[i][7] = s.rhs_velocity[i].z;
        }
    }
    float det = 1.0f;
    for (int k = 0; k < 4; ++k) {
        int p = k;
        for (int i = k + 1; i < 4; ++i)
            if (fabsf(a[i][k]) > fabsf(a[p][k])) p = i;
        if (p != k) {
            det = -det;
            for (int j = 0; j < kColumns; ++j) {
                const float t = a[k][j];
                a[k][j] = a[p][j];
                a[p][j] = t;
            }
        }
        det *= a[k][k];
        if (a[k][k] == 0.0f) break;
        for (int i = k + 1; i < 4; ++i) {
            const float f = a[i][k] / a[k][k];
            for (int j = k; j < kColumns; ++j) a[i][j] -= f * a[k][j];
        }
    }
    if (!(fabsf(det) >= kMdbcDeterminantLimit)) {
        out.order = GhostNodeValue::shepard;
        out.density = s.rhs[0] / shepard;
        return out;
    }
    // Back substitution, one right-hand side at a time: the value and h times the gradient.
    auto solve = [&](int c, float x[4]) {
        for (int i = 3; i >= 0; --i) {
            float v = a[i][c];
            for (int j = i + 1; j < 4; ++j) v -= a[i][j] * x[j];
            x[i] = v / a[i][i];
        }
    };
    float x[4];
    solve(4, x);
    out.order = GhostNodeValue::first;
    out.density = x[0];
    out.gradient = (1.0f / h) * Vec3f{x[1], x[2], x[3]};
    if constexpr (!kVelocity) return out;
    Vec3f* rows[3] = {&out.velocity_gradient.x, &out.velocity_gradient.y, &out.velocity_gradient.z};
    for (int c = 0; c < 3; ++c) {
        solve(5 + c, x);
        out.velocity[c] = x[0];
        *rows[c] = (1.0f / h) * Vec3f{x[1], x[2], x[3]};
    }
    return out;
}

// A boundary particle's wall normal d n is set: mDBC gives its density (dynamic boundary
// conditions where not).
PK_DEVICE_INLINE bool has_wall_normal(Vec3f normal) { return normal.x != 0.0f || normal.y != 0.0f || normal.z != 0.0f; }

// The mDBC pass (sph/neighbor_pass.hpp interaction): each boundary particle with a normal searches
// the fluid around its ghost node and writes its density (state and neighbour records), P/rho^2
// and the velocity the pair terms see (records only: the state keeps the wall's velocity, which
// the integrators prescribe). Fluid particles and boundary particles without a normal (dynamic
// boundary conditions for them) are left alone. Reads the fluid's records and writes boundary
// particles' only, so the pass has no race.
// The rates pass skips these particles unless the wall impulse is tracked (solver_impl.hpp,
// rates_row_subset), so the pass also writes what is read of their rates: no density rate (the
// next mDBC pass sets their density again before any pair reads it; continuity would only move
// what frames show between two passes) and the time-step limit of a particle without pairs, h/c0,
// which never is the smallest: a fluid neighbour sums each pair's |mu| too.
// kVelocity: the no-slip and free-slip velocities (mode), from the ghost node's velocity; without
// it the walls' own (BoundaryVelocity::wall), and the pass sums the density's system alone.
template <class Kernel, bool kVelocity> struct ModifiedDynamicBoundary {
    // Few rows (the walls'), each a long chain of dependent loads: the pass is bound by latency,
    // and four blocks of 256 per SM (64 registers; the compiler picks 96, two blocks) hold the
    // walls of a 1M-particle scene in two waves instead of three (docs/PERFORMANCE.md).
    static constexpr int kMinBlocksPerSM = 4;
    static constexpr bool kOneRank = true;  // mdbc
    const Vec4f* position_mass;  // records: the sign of the mass is the kind
    Vec4f* velocity_density;     // records
    float* pressure_term;        // records: P / rho^2
    float* density;              // state
    float* density_rate;         // the rates pass's output, for these particles (see above)
    float* dt_limit;             // s, the same
    const Vec3f* wall_velocity;  // state velocity of boundary particles (prescribed motion)
    const Vec3f* boundary_normal;
    Vec3f* density_gradient;  // out: grad rho_g for the virtual layers (0 unless first order)
    Mat3f* layer_velocity_gradient;  // out, kVelocity only: G_b (VirtualLayers)
    Kernel kernel;
    TaitEos eos;
    float h;
    float dt_limit_without_pairs;  // s, h / c0
    BoundaryVelocity mode;  // no_slip or free_slip with kVelocity
    frnn::PeriodicWrap wrap;
    struct Particle {
        Vec3f r;       // the ghost node: the pass searches around it
        Vec3f normal;  // d n
        bool active;
    };
    using Sums = GhostNodeSums;
    PK_DEVICE_INLINE Particle load(std::size_t a) const {
        const Vec4f self = position_mass[a];
        if (!sign_bit(self.w)) return {self.xyz(), {0, 0, 0}, false};
        const Vec3f n = boundary_normal[a];
        return {wrap(self.xyz() + 2.0f * n), n, has_wall_normal(n)};
    }
    PK_DEVICE_INLINE bool interacts(const Particle& a) const { return a.active; }
    PK_DEVICE_INLINE void pair(const Particle&, std::uint32_t b, Vec3f r_gb, float r2, const Vec4f& record_b,
                               Sums& s) const {
        if (!(record_b.w > 0.0f)) return;  // fluid neighbours only
        const Vec4f vd = velocity_density[b];
        s.template add<kVelocity>(r_gb, kernel.W(r2), kernel.grad_factor(r2), record_b.w, vd.w, vd.xyz(), h);
    }
    PK_DEVICE_INLINE void finish(std::size_t a, const Particle& self, const Sums& s) const {
        if (!self.active) return;
        const GhostNodeValue g = solve_ghost_node<kVelocity>(s, h);
        const Vec3f v_wall = wall_velocity[a];
        float rho = eos.rho0;
        Vec3f v = v_wall;
        if (g.order != GhostNodeValue::none) {
            // x_b - x_g = -2 d n
            rho = g.order == GhostNodeValue::first ? g.density - 2.0f * dot(self.normal, g.gradient) : g.density;
            if constexpr (kVelocity) {
                if (mode == BoundaryVelocity::no_slip) {
                    v = 2.0f * v_wall - g.velocity;
                } else {
                    const Vec3f n = (1.0f / norm(self.normal)) * self.normal;
                    v = g.velocity - (2.0f * dot(g.velocity - v_wall, n)) * n;
                }
            }
        }
        rho = fmaxf(rho, eos.rho0);
        const bool first = g.order == GhostNodeValue::first;
        density_gradient[a] = first ? g.gradient : Vec3f{0, 0, 0};
        if constexpr (kVelocity) {
            // The virtual point x_b + o mirrors x_g - o through the wall surface point x_b + d n:
            // no-slip v_o = 2 v_wall - v(x_g - o) = v_b + grad v_g o; free-slip reflects the normal
            // part of the same change, v_o = v_b - R grad v_g o with R = I - 2 n n^T.
            Mat3f G = first ? g.velocity_gradient : Mat3f{};
            if (mode == BoundaryVelocity::free_slip) {
                const Vec3f n = (1.0f / norm(self.normal)) * self.normal;
                const Vec3f nG = n.x * G.x + n.y * G.y + n.z * G.z;  // n^T G
                G = {(2.0f * n.x) * nG - G.x, (2.0f * n.y) * nG - G.y, (2.0f * n.z) * nG - G.z};
            }
            layer_velocity_gradient[a] = G;
        }
        density[a] = rho;
        velocity_density[a] = {v.x, v.y, v.z, rho};
        pressure_term[a] = eos.pressure(rho) / (rho * rho);
        density_rate[a] = 0.0f;
        dt_limit[a] = dt_limit_without_pairs;
    }
};

// Virtual wall layers (mdbc; docs/SPH.md, "Boundaries"). mDBC corrects the boundary particles'
// density, not the kernel's truncation: a fluid particle near a wall thinner than the kernel's
// support misses the layers that are not there, and the first fluid layer sinks into a wall of one
// layer. So a boundary particle b with nothing behind it also stands for the particles a thicker
// wall would have there: along each axis its normal n has a component on (one for a face, two at
// an edge, three at a corner), the step s_i = -dx sign(n_i) e_i into the wall, and the virtual
// points x_b + o, o = i s_x + j s_y + k s_z for every 0 <= i, j, k <= c_b but o = 0 (a column
// behind a face particle, the block behind an edge or a corner, so that a box's walls of one
// layer become walls of c_b + 1 layers, edges and corners filled). Each has b's velocity and the
// density of mDBC's extrapolation there, rho_b + o . grad rho_g (never below rho0, like b's), and
// b's velocity, plus with the no-slip and free-slip velocities the change G_b o that mirroring
// the fluid's velocity gives there (ModifiedDynamicBoundary), in the fluid-boundary pairs (a pass
// of their own after the rates pass: rates.hpp, VirtualLayerRates): a no-slip wall whose virtual layers all moved at b's velocity dragged a Poiseuille flow
// too little (3.5% of the peak too fast at 10 layers across). Every virtual point lies farther from the fluid than b
// (the fluid is on the normal's side), so b's neighbour search covers them. The walls are taken
// to be lattices along the axes (the scenes', DualSPHysics's boxes): behind a slanted wall the
// blocks overlap.
//
// VirtualLayerScan finds c_b once per run: the largest c <= K whose block has no other boundary
// particle within dx/2 of a point (a real layer there), K = virtual_layer_limit(): enough for a
// wall of one layer to cover the support. A wall as thick as the support gets none.

// The most virtual layers a wall of one layer needs: layer k lies (k + 1/2) dx below the wall
// surface, and only those nearer than the support to it reach the fluid.
PK_HD inline int virtual_layer_limit(float support_m, float dx_m) {
    const int k = int(ceilf(support_m / dx_m - 0.5f)) - 1;
    return k > 0 ? k : 0;
}

// The steps s_i of a boundary particle with normal d n (zero along axes it has no component on:
// less than a tenth of |d n|).
PK_DEVICE_INLINE Vec3f virtual_layer_steps(Vec3f normal, float dx) {
    const float threshold = 0.1f * norm(normal);
    Vec3f s{0, 0, 0};
    for (int i = 0; i < 3; ++i)
        if (fabsf(normal[i]) > threshold && threshold > 0.0f) s[i] = normal[i] > 0.0f ? -dx : dx;
    return s;
}

// The points o = i s_x + j s_y + k s_z of a block of c layers along the steps s (0 <= i, j, k <= c
// on the axes s has a component on): body(i, j, k, o) for each, o = 0 (the particle itself) first,
// k fastest; for_each_virtual_point visits the virtual ones, every o but 0. One flat loop rather
// than three nested: GPU lanes whose blocks lie along different axes then run their points side
// by side instead of one inner loop after the other.
template <class Body> PK_DEVICE_INLINE void for_each_block_point(Vec3f s, int c, Body&& body) {
    const int cy = s.y != 0.0f ? c : 0, cz = s.z != 0.0f ? c : 0;
    const int points = (s.x != 0.0f ? c + 1 : 1) * (cy + 1) * (cz + 1);
    int i = 0, j = 0, k = 0;
    for (int t = 0; t < points; ++t) {
        body(i, j, k, Vec3f{float(i) * s.x, float(j) * s.y, float(k) * s.z});
        if (++k > cz) {
            k = 0;
            if (++j > cy) {
                j = 0;
                ++i;
            }
        }
    }
}
template <class Body> PK_DEVICE_INLINE void for_each_virtual_point(Vec3f s, int c, Body&& body) {
    for_each_block_point(s, c, [&](int i, int j, int k, Vec3f o) {
        if (i + j + k > 0) body(i, j, k, o);
    });
}

struct VirtualLayerScan {
    static constexpr int kMinBlocksPerSM = 1;
    static constexpr bool kOneRank = true;  // mdbc
    static constexpr int kMaxLayers = 3;  // the block's (K + 1)^3 points as bits of a 64-bit mask
    const Vec4f* position_mass;
    const Vec3f* boundary_normal;
    Vec4f* virtual_layers;  // out: steps s (m) and c_b
    float dx;               // m
    int max_layers;         // K <= kMaxLayers
    struct Particle {
        Vec3f r;
        Vec3f steps;
        std::uint32_t index;
        bool active;  // a boundary particle with a normal
    };
    struct Sums {
        std::uint64_t occupied;  // bit (i (K+1) + j) (K+1) + k: a boundary particle within dx/2 of o
    };
    PK_DEVICE_INLINE Particle load(std::size_t a) const {
        const Vec4f self = position_mass[a];
        const Vec3f n = sign_bit(self.w) ? boundary_normal[a] : Vec3f{0, 0, 0};
        const Vec3f steps = virtual_layer_steps(n, dx);
        const bool active = steps.x != 0.0f || steps.y != 0.0f || steps.z != 0.0f;
        return {self.xyz(), steps, static_cast<std::uint32_t>(a), active};
    }
    PK_DEVICE_INLINE bool interacts(const Particle& a) const { return a.active; }
    PK_DEVICE_INLINE void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float, const Vec4f& record_b,
                               Sums& s) const {
        if (b == a.index || !sign_bit(record_b.w)) return;
        const int m = max_layers + 1;
        for_each_virtual_point(a.steps, max_layers, [&](int i, int j, int k, Vec3f o) {
            // x_b - (x_a + o) = -(r_ab + o)
            if (norm2(r_ab + o) < 0.25f * dx * dx) s.occupied |= std::uint64_t{1} << ((i * m + j) * m + k);
        });
    }
    PK_DEVICE_INLINE void finish(std::size_t a, const Particle& self, const Sums& s) const {
        int count = 0;
        if (self.active) {
            const int m = max_layers + 1;
            for (int c = 1; c <= max_layers; ++c) {
                bool clear = true;
                for_each_virtual_point(self.steps, c, [&](int i, int j, int k, Vec3f) {
                    if ((s.occupied >> ((i * m + j) * m + k)) & 1u) clear = false;
                });
                if (!clear) break;
                count = c;
            }
        }
        virtual_layers[a] = count > 0 ? Vec4f{self.steps.x, self.steps.y, self.steps.z, float(count)} : Vec4f{0, 0, 0, 0};
    }
};

// The rates pass's view of the virtual layers: none (dynamic boundaries), or VirtualLayerScan's.
struct NoVirtualLayers {
    static constexpr bool enabled = false;
};
struct VirtualLayers {
    static constexpr bool enabled = true;
    const Vec4f* layers;            // per particle: steps s (m) and c_b
    const Vec3f* density_gradient;  // per particle: grad rho_g (kg/m^4), 0 where not first order
    const Mat3f* velocity_gradient;  // per particle: G_b (1/s); nullptr: the virtual points move with b
    std::uint32_t* flags;           // out, per particle: 1 for a row of the virtual layers' pass (zeroed
                                    // before); nullptr: no particle has virtual layers, no such pass
    // out, for the virtual layers' pass (NeighborLists): a flagged row's fluid-boundary pairs, and
    // the neighbours of the first `capacity` at pair_index[k * stride + a] (the GPU's pair loop
    // writes them; capacity 0: none, that pass searches)
    std::uint32_t* pair_count;
    std::uint32_t* pair_index;
    std::uint32_t capacity;
    std::size_t stride;
    TaitEos eos;
    float support2;                 // m^2: virtual points beyond the support add nothing
    // The penetration barrier (docs/SPH.md, "Penetration barrier"): a fluid particle nearer a
    // wall's surface than `penetration_margin` sees that wall particle's pressure raised by
    // penetration_stiffness times the shortfall.
    const Vec3f* normal;            // per particle: d n (m), as ModifiedDynamicBoundary's
    float penetration_margin;       // m: dx / 4
    float penetration_stiffness;    // Pa/m: rho0 c0^2 / (10 dx)
};

// The barrier's pressure (Pa) for a fluid particle at x_f - x_w = r_fw from a wall particle whose
// surface lies at d n (m) from it: 0 from `margin` above the surface plane up.
PK_DEVICE_INLINE float penetration_pressure(Vec3f r_fw, Vec3f normal, float margin, float stiffness) {
    const float d2 = norm2(normal);
    if (!(d2 > 0.0f)) return 0.0f;
    const float d = sqrtf(d2);
    const float above = dot(r_fw, normal) / d - d;  // m: the fluid particle's height above the surface
    return above < margin ? stiffness * (margin - above) : 0.0f;
}

// Wall normals of boundary particles when the input has none (docs/SPH.md, "Boundaries"): the
// direction of sum_fluid grad_a W_ab - sum_boundary grad_a W_ab (towards the fluid and away from
// the wall's own particles; grad_a W_ab points from a to b), at the distance of one layer, d = dx/2.
// A particle whose sum vanishes (a flat wall of one layer with no fluid near it at the start) gets
// none and keeps the dynamic boundary conditions.
template <class Kernel> struct BoundaryNormalEstimate {
    static constexpr int kMinBlocksPerSM = 1;
    static constexpr bool kOneRank = true;  // mdbc
    const Vec4f* position_mass;
    Vec3f* boundary_normal;
    Kernel kernel;
    float half_dx;  // m
    struct Particle {
        Vec3f r;
        std::uint32_t index;
        bool boundary;
    };
    struct Sums {
        Vec3f direction;
        float scale;  // sum |grad W|: what a vanishing direction is measured against
    };
    PK_DEVICE_INLINE Particle load(std::size_t a) const {
        const Vec4f self = position_mass[a];
        return {self.xyz(), static_cast<std::uint32_t>(a), sign_bit(self.w)};
    }
    PK_DEVICE_INLINE bool interacts(const Particle& a) const { return a.boundary; }
    PK_DEVICE_INLINE void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b,
                               Sums& s) const {
        if (b == a.index) return;
        const float F = kernel.grad_factor(r2);
        const float sign = record_b.w > 0.0f ? 1.0f : -1.0f;
        s.direction += (sign * F) * r_ab;
        s.scale += fabsf(F) * sqrtf(r2);
    }
    PK_DEVICE_INLINE void finish(std::size_t a, const Particle& self, const Sums& s) const {
        if (!self.boundary) {
            boundary_normal[a] = {0, 0, 0};
            return;
        }
        const float length = norm(s.direction);
        boundary_normal[a] = length > 1e-3f * s.scale ? (half_dx / length) * s.direction : Vec3f{0, 0, 0};
    }
};

}  // namespace partikel::sph
