#include "pic/distribution.hpp"

#include <cmath>
#include <random>

#include "base/error.hpp"

namespace partikel::pic {

ParticleSet generate_beam(const BeamSpec& s, const Twiss& t, double circumference_m) {
    if (!(s.emittance_x_m > 0.0) || !(s.emittance_y_m > 0.0)) throw UsageError("beam: emittances must be positive");
    if (!(s.mismatch_x > 0.0) || !(s.mismatch_y > 0.0)) throw UsageError("beam: mismatch factors must be positive");
    if (!(s.momentum_spread >= 0.0)) throw UsageError("beam: the momentum spread must not be negative");
    if (s.longitudinal != Longitudinal::coasting && !(s.bunch_length_m > 0.0))
        throw UsageError("beam: a bunched beam needs a positive bunch length");
    if (!(s.intensity >= 0.0)) throw UsageError("beam: the intensity must not be negative");
    ParticleSet p;
    p.resize(s.macroparticles);
    std::mt19937_64 rng(s.seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);

    // Normalised coordinates u (X = sqrt(beta) u0 ..., scaled below) with <u_k^2> = 1 in each of
    // the four components: the distribution's shape only.
    auto four_sphere_point = [&](double radius_scale, double (&u)[4]) {
        double r2 = 0.0;
        for (double& v : u) {
            v = normal(rng);
            r2 += v * v;
        }
        const double r = std::sqrt(r2);
        for (double& v : u) v = v / r * radius_scale;
    };
    const double ex = s.emittance_x_m, ey = s.emittance_y_m;
    const double sigma_z = s.bunch_length_m / 4.0;
    for (std::size_t i = 0; i < s.macroparticles; ++i) {
        double u[4] = {};  // X/sqrt(ex), P/sqrt(ex), Y/sqrt(ey), Q/sqrt(ey), each of unit variance
        switch (s.transverse) {
            case Distribution::kv:  // on the 3-sphere of radius 2: <u_k^2> = 4/4
                four_sphere_point(2.0, u);
                break;
            case Distribution::waterbag:  // inside the 4-ball of radius sqrt(6): <u_k^2> = 6 (4/6)/4
                four_sphere_point(std::sqrt(6.0) * std::pow(uniform(rng), 0.25), u);
                break;
            case Distribution::semi_gaussian: {  // uniform disc of radius 2 in (X, Y), Gaussian slopes
                const double r = 2.0 * std::sqrt(uniform(rng)), phi = 2.0 * constants::pi * uniform(rng);
                u[0] = r * std::cos(phi);
                u[2] = r * std::sin(phi);
                u[1] = normal(rng);
                u[3] = normal(rng);
                break;
            }
            case Distribution::gaussian:
                for (double& v : u) v = normal(rng);
                break;
        }
        const double X = u[0] * std::sqrt(ex) * s.mismatch_x, P = u[1] * std::sqrt(ex) / s.mismatch_x;
        const double Y = u[2] * std::sqrt(ey) * s.mismatch_y, Q = u[3] * std::sqrt(ey) / s.mismatch_y;
        double z = 0.0, delta = 0.0;
        switch (s.longitudinal) {
            case Longitudinal::coasting:
                z = (uniform(rng) - 0.5) * circumference_m;
                delta = s.momentum_spread * normal(rng);
                break;
            case Longitudinal::elliptic: {  // uniform in the ellipse of half axes 2 sigma
                const double r = 2.0 * std::sqrt(uniform(rng)), phi = 2.0 * constants::pi * uniform(rng);
                z = sigma_z * r * std::cos(phi);
                delta = s.momentum_spread * r * std::sin(phi);
                break;
            }
            case Longitudinal::gaussian:
                z = sigma_z * normal(rng);
                delta = s.momentum_spread * normal(rng);
                break;
        }
        const double sbx = std::sqrt(t.beta_x_m), sby = std::sqrt(t.beta_y_m);
        p.x[i] = sbx * X + t.dispersion_m * delta + s.offset_x_m;
        p.xp[i] = (P - t.alpha_x * X) / sbx + t.dispersion_prime * delta;
        p.y[i] = sby * Y + s.offset_y_m;
        p.yp[i] = (Q - t.alpha_y * Y) / sby;
        p.z[i] = z;
        p.delta[i] = delta;
    }
    return p;
}

}  // namespace partikel::pic
