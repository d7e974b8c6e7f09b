// Beam moments in double precision in one pass: count, centroids and centred second moments of
// the alive particles, reduced in a fixed order (core/exec.hpp: chunks in order on the CPU,
// CUB's deterministic reduction on the GPU) with the pairwise update of Chan, Golub and LeVeque
// ("Updating formulae and a pairwise algorithm for computing sample variances", 1979), so that
// centring costs no second pass and loses no digits to cancellation. Also the extent of the
// alive particles, which sizes the space-charge grids.
#pragma once

#include <cmath>
#include <cstddef>

#include "base/hd.hpp"
#include "core/workspace.hpp"
#include "pic/beam.hpp"

namespace partikel::pic {

// Sums of centred products (divide by n for the moment): xx, xx', x'x', yy, yy', y'y', zz, z delta, delta delta.
enum SecondMoment : int { m_xx, m_xxp, m_xpxp, m_yy, m_yyp, m_ypyp, m_zz, m_zd, m_dd, second_moment_count };

struct BeamMoments {
    double n = 0.0;
    double mean[6] = {};  // x, x', y, y', z, delta
    double m2[second_moment_count] = {};

    PK_HD double variance(int k) const { return n > 0.0 ? m2[k] / n : 0.0; }
    // sqrt(<u^2><u'^2> - <u u'>^2) on centred moments; plane 0: x, 1: y, 2: (z, delta)
    PK_HD double emittance(int plane) const {
        const double a = variance(3 * plane), b = variance(3 * plane + 1), c = variance(3 * plane + 2);
        const double e2 = a * c - b * b;
        return e2 > 0.0 ? sqrt(e2) : 0.0;
    }
};

struct CombineMoments {
    PK_DEVICE_INLINE BeamMoments operator()(const BeamMoments& a, const BeamMoments& b) const {
        if (a.n == 0.0) return b;
        if (b.n == 0.0) return a;
        BeamMoments r;
        r.n = a.n + b.n;
        const double fb = b.n / r.n, w = a.n * fb;  // na nb / n
        double d[6];
        for (int k = 0; k < 6; ++k) {
            d[k] = b.mean[k] - a.mean[k];
            r.mean[k] = a.mean[k] + d[k] * fb;
        }
        constexpr int pair[second_moment_count][2] = {{0, 0}, {0, 1}, {1, 1}, {2, 2}, {2, 3}, {3, 3}, {4, 4}, {4, 5}, {5, 5}};
        for (int k = 0; k < second_moment_count; ++k) r.m2[k] = a.m2[k] + b.m2[k] + d[pair[k][0]] * d[pair[k][1]] * w;
        return r;
    }
};

struct BeamBounds {
    double lo[3] = {};  // x, y, z of the alive particles
    double hi[3] = {};
    double alive = 0.0;
};

template <class Exec> std::size_t moments_scratch_bytes(const Exec& exec, std::size_t n);
// Into *out (backend memory); the caller reads it (one synchronisation).
template <class Exec> void beam_moments(const Exec& exec, Workspace& ws, const BeamView& beam, BeamMoments* out);
template <class Exec> void beam_bounds(const Exec& exec, Workspace& ws, const BeamView& beam, BeamBounds* out);

}  // namespace partikel::pic
