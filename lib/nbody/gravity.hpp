// The two gravitational interactions, written once for the direct sum and the tree walk on both
// backends: a softened point mass and a softened cell with quadrupole moment.
//
// Plummer softening (Aarseth, "Dynamical evolution of clusters of galaxies, I", 1963): the pair
// acceleration is
//   a_i += G m_j r_ij / (|r_ij|^2 + eps^2)^{3/2},   r_ij = x_j - x_i,
// and the pair potential phi_i -= G m_j / (|r_ij|^2 + eps^2)^{1/2}. The callers sum without G
// and multiply once at the end.
//
// A cell seen from a body at r = x_i - x_com (Barnes & Hut 1986; the quadrupole term as in
// Hernquist, "Performance characteristics of tree codes", 1987), with the traceless quadrupole
// Q_ab = sum_k m_k (3 d_a d_b - |d|^2 delta_ab), d = x_k - x_com:
//   phi = -G [ M / r + (r.Q.r) / (2 r^5) ]
//   a   = -grad phi = G [ -M r / r^3 + Q.r / r^5 - (5/2) (r.Q.r) r / r^7 ]
// with r^2 replaced by r^2 + eps^2 in every power, as Bonsai does (Bedorf, Gaburov & Portegies
// Zwart 2012), so that cells and bodies soften alike.
//
// eps^2 is never below kSofteningFloor2 (1e-20, i.e. eps >= 1e-10 model lengths): a body then
// meets itself (and a coincident body with eps = 0) at r = 0 with a finite 1/r, giving zero
// force since r_ij = 0; the potential excludes the self term explicitly. Every product stays
// below 3e38 while G m <= 1e8 model units (1e18 solar masses in astro units).
#pragma once

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "core/fast_math.hpp"

namespace partikel::nbody {

inline constexpr float kSofteningFloor2 = 1e-20f;

PK_DEVICE_INLINE float softening2(float softening) {
    const float e2 = softening * softening;
    return e2 > kSofteningFloor2 ? e2 : kSofteningFloor2;
}

// source = (x, y, z, m). a += m r / (r^2 + eps^2)^{3/2}; with potential, phi -= m / (r^2 + eps^2)^{1/2}
// unless `self` (the body itself). Acc: float, or double for reference sums.
template <bool WithPotential, class Acc>
PK_DEVICE_INLINE void add_point_mass(Vec4f target, Vec4f source, float eps2, Vec3<Acc>& a, Acc& phi, bool self) {
    const float dx = source.x - target.x;
    const float dy = source.y - target.y;
    const float dz = source.z - target.z;
    const float r2 = eps2 + dx * dx + dy * dy + dz * dz;  // this order: three fused multiply-adds
    const float rinv = approx_rsqrt(r2);
    const float m_rinv = source.w * rinv;
    const float s = m_rinv * (rinv * rinv);
    a.x += Acc(s * dx);
    a.y += Acc(s * dy);
    a.z += Acc(s * dz);
    if constexpr (WithPotential) phi -= self ? Acc(0) : Acc(m_rinv);
}

// A cell's multipoles: com_mass = (x_com, y_com, z_com, M); quad = (Qxx, Qyy, Qxy, Qxz), qyz = Qyz
// (Qzz = -Qxx - Qyy). Without Quadrupole, a monopole.
template <bool WithPotential, bool Quadrupole>
PK_DEVICE_INLINE void add_cell(Vec4f target, Vec4f com_mass, Vec4f quad, float qyz, float eps2, Vec3f& a, float& phi) {
    const float rx = target.x - com_mass.x;
    const float ry = target.y - com_mass.y;
    const float rz = target.z - com_mass.z;
    const float r2 = eps2 + rx * rx + ry * ry + rz * rz;
    const float rinv = approx_rsqrt(r2);
    const float rinv2 = rinv * rinv;
    const float m_rinv = com_mass.w * rinv;
    const float m_rinv3 = m_rinv * rinv2;
    if constexpr (Quadrupole) {
        const float qzz = -(quad.x + quad.y);
        const float qrx = quad.x * rx + quad.z * ry + quad.w * rz;
        const float qry = quad.z * rx + quad.y * ry + qyz * rz;
        const float qrz = quad.w * rx + qyz * ry + qzz * rz;
        const float rqr = rx * qrx + ry * qry + rz * qrz;
        const float rinv5 = rinv2 * rinv2 * rinv;
        const float c = -m_rinv3 - 2.5f * rqr * (rinv5 * rinv2);
        a.x += c * rx + rinv5 * qrx;
        a.y += c * ry + rinv5 * qry;
        a.z += c * rz + rinv5 * qrz;
        if constexpr (WithPotential) phi -= m_rinv + 0.5f * rqr * rinv5;
    } else {
        a.x -= m_rinv3 * rx;
        a.y -= m_rinv3 * ry;
        a.z -= m_rinv3 * rz;
        if constexpr (WithPotential) phi -= m_rinv;
    }
}

}  // namespace partikel::nbody
