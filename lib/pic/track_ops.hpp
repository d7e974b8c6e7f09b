// What a tracking pass does to one particle, written once for both backends: a list of
// operations compiled from the lattice (pic/program.hpp) -- fused linear maps, thin multipole
// kicks, rf kicks and aperture checks -- each a few lines over the particle's coordinates.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/hd.hpp"

namespace partikel::pic {

struct Coordinates {
    double x, xp, y, yp, z, delta;
};

enum class OpKind : std::int32_t { linear, multipole, rf, aperture };

// One operation. Parameters by kind:
//   linear    the nonzero entries of a map of the block form of docs/PIC.md ("Fusing maps"):
//             M11 M12 M16 M21 M22 M26 M33 M34 M43 M44 M51 M52 M56 (M55 = M66 = 1)
//   multipole knl[n] / n! for n = 1..5 (MAD-X KNL, m^-n)
//   rf        A = q V / (beta^2 E0), k = 2 pi h / C, phi_s, sin(phi_s)
//   aperture  1/a^2, 1/b^2 (circle: a = b)
struct TrackOp {
    OpKind kind;
    std::int32_t element;  // lattice index: where losses are counted
    double p[13];
};

PK_DEVICE_INLINE void apply_linear(const double* m, Coordinates& c) {
    const double x = c.x, xp = c.xp, y = c.y, yp = c.yp, d = c.delta;
    c.x = m[0] * x + m[1] * xp + m[2] * d;
    c.xp = m[3] * x + m[4] * xp + m[5] * d;
    c.y = m[6] * y + m[7] * yp;
    c.yp = m[8] * y + m[9] * yp;
    c.z += m[10] * x + m[11] * xp + m[12] * d;
}

// MAD-X's thin multipole: dpx - i dpy = -sum_n KNL_n (x + i y)^n / n!, divided by 1 + delta to
// turn the momentum kick into a slope kick.
PK_DEVICE_INLINE void apply_multipole(const double* k, Coordinates& c) {
    double re = k[4], im = 0.0;  // Horner from n = 5 down to 1
    for (int n = 3; n >= 0; --n) {
        const double r = re * c.x - im * c.y + k[n];
        im = re * c.y + im * c.x;
        re = r;
    }
    const double kr = re * c.x - im * c.y, ki = re * c.y + im * c.x;  // times (x + i y) once more
    const double inv = 1.0 / (1.0 + c.delta);
    c.xp -= kr * inv;
    c.yp += ki * inv;
}

// delta += A [sin(phi_s - k z) - sin(phi_s)]: the reference particle's gain is compensated.
PK_DEVICE_INLINE void apply_rf(const double* r, Coordinates& c) {
    c.delta += r[0] * (sin(r[2] - r[1] * c.z) - r[3]);
}

// True when the particle is outside (or not a number).
PK_DEVICE_INLINE bool outside_aperture(const double* a, const Coordinates& c) {
    const double u = c.x * c.x * a[0] + c.y * c.y * a[1];
    return !(u <= 1.0);
}

}  // namespace partikel::pic
