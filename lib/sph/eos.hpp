// Tait equation of state (Monaghan 1994; Werner 2015, eq. 3.4): P = B ((rho/rho0)^gamma - 1),
// B = c0^2 rho0 / gamma. SI units: rho in kg/m^3, P in Pa, c0 in m/s.
#pragma once

#include <cmath>

#include "base/hd.hpp"
#include "core/fast_math.hpp"

namespace partikel::sph {

struct TaitEos {
    float rho0;   // reference density, kg/m^3
    float B;      // reference pressure, Pa
    float gamma;  // polytropic exponent (7 for water)

    static TaitEos from_sound_speed(float rho0, float c0, float gamma) { return {rho0, c0 * c0 * rho0 / gamma, gamma}; }

    PK_DEVICE_INLINE float pressure(float rho) const {
        float x = rho / rho0;
        if (gamma == 7.0f) {  // the common case without powf
            float x2 = x * x;
            return B * (x2 * x2 * x2 * x - 1.0f);
        }
        return B * (powf(x, gamma) - 1.0f);
    }
    // Inverse: the density at pressure P (hydrostatic initialisation, density diffusion).
    PK_DEVICE_INLINE float density(float P) const { return rho0 * powf(1.0f + P / B, 1.0f / gamma); }
};

// Sandvik (2021, eq. 4.2) with the sign corrected (the thesis prints min): p = k max(rho - rho0, 0).
// Negative pressures are clamped: a particle short of neighbours is not pulled back.
struct ClampedLinearEos {
    float k;     // m^2/s^2
    float rho0;  // kg/m^3
    PK_DEVICE_INLINE float pressure(float rho) const { return k * max_of(rho - rho0, 0.0f); }
};

}  // namespace partikel::sph
