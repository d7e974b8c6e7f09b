// Eigen-decomposition of a symmetric 3 x 3 matrix for kernels of both backends: the principal
// axes of each particle's neighbourhood (anisotropy.hpp).
//
// Cyclic Jacobi rotations (Golub & Van Loan, "Matrix Computations", 4th ed. 2013, section
// 8.5.2): each rotation zeroes one off-diagonal entry; a sweep visits (0,1), (0,2), (1,2).
// Convergence is quadratic, so a few sweeps reach float precision for any symmetric input,
// repeated eigenvalues included, and the eigenvectors stay orthonormal to rounding (unlike the
// closed-form roots of the characteristic cubic, whose vectors degrade near repeated values).
#pragma once

#include <math.h>

#include "base/hd.hpp"
#include "base/vec.hpp"

namespace partikel::render {

struct SymmetricEigen3 {
    float values[3];    // descending: values[0] >= values[1] >= values[2]
    Vec3f vectors[3];   // vectors[k] belongs to values[k]; orthonormal, right-handed
};

namespace detail {

// One Jacobi rotation in the (p, q) plane of a (symmetric, entries a[r][c]) and the
// accumulated rotation v (columns are the eigenvector estimates).
PK_DEVICE_INLINE void jacobi_rotate(float a[3][3], float v[3][3], int p, int q) {
    const float apq = a[p][q];
    if (apq == 0.0f) return;
    const float theta = (a[q][q] - a[p][p]) / (2.0f * apq);
    // t = tan(phi), the smaller root of t^2 + 2 theta t - 1 = 0 (rotation angle below pi/4).
    const float t = (theta >= 0.0f ? 1.0f : -1.0f) / (fabsf(theta) + sqrtf(theta * theta + 1.0f));
    const float c = 1.0f / sqrtf(t * t + 1.0f);
    const float s = t * c;
    a[p][p] -= t * apq;
    a[q][q] += t * apq;
    a[p][q] = a[q][p] = 0.0f;
    const int r = 3 - p - q;  // the third index
    const float arp = a[r][p], arq = a[r][q];
    a[r][p] = a[p][r] = c * arp - s * arq;
    a[r][q] = a[q][r] = s * arp + c * arq;
    for (int k = 0; k < 3; ++k) {
        const float vkp = v[k][p], vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
    }
}

}  // namespace detail

// A = V diag(values) V^T for A = [[a00 a01 a02] [a01 a11 a12] [a02 a12 a22]].
PK_HD inline SymmetricEigen3 symmetric_eigen3(float a00, float a01, float a02, float a11, float a12, float a22) {
    float a[3][3] = {{a00, a01, a02}, {a01, a11, a12}, {a02, a12, a22}};
    float v[3][3] = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
    // Off-diagonal mass falls quadratically; 8 sweeps are far more than float precision needs,
    // and the loop stops once the off-diagonal part is negligible against the diagonal.
    for (int sweep = 0; sweep < 8; ++sweep) {
        const float off = fabsf(a[0][1]) + fabsf(a[0][2]) + fabsf(a[1][2]);
        const float diag = fabsf(a[0][0]) + fabsf(a[1][1]) + fabsf(a[2][2]);
        if (off <= 1e-9f * diag || off == 0.0f) break;
        detail::jacobi_rotate(a, v, 0, 1);
        detail::jacobi_rotate(a, v, 0, 2);
        detail::jacobi_rotate(a, v, 1, 2);
    }
    // Sort descending (three compare-and-swap steps).
    int order[3] = {0, 1, 2};
    const float d[3] = {a[0][0], a[1][1], a[2][2]};
    const auto swap_if = [&](int i, int j) {
        if (d[order[i]] < d[order[j]]) {
            const int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    };
    swap_if(0, 1);
    swap_if(1, 2);
    swap_if(0, 1);
    SymmetricEigen3 out;
    for (int k = 0; k < 3; ++k) {
        out.values[k] = d[order[k]];
        out.vectors[k] = {v[0][order[k]], v[1][order[k]], v[2][order[k]]};
    }
    out.vectors[2] = cross(out.vectors[0], out.vectors[1]);  // right-handed (and orthonormal to rounding)
    return out;
}

}  // namespace partikel::render
