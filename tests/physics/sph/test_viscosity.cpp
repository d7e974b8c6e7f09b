// The laminar and laminar+SPS viscosities against analytic and reference solutions (docs/SPH.md,
// "Validation"). Two flows, both along x and varying across y, periodic along x and z:
//
// Decaying shear wave (periodic in y too: no wall): u = U sin(k y) exp(-nu k^2 t), the viscous
// term alone (Lo & Shao 2002) against its analytic decay. With the SPS stress of Dalrymple &
// Rogers (2006), simple shear makes it a mixing-length eddy viscosity nu_t = l^2 |du/dy|,
// l = Cs dx (its isotropic part, (2/3) CI dx^2 |S|^2, is uniform along x and balanced by the
// pressure), so that u solves u_t = d/dy [(nu + l^2 |u_y|) u_y]: the reference is that equation
// by finite differences. With DualSPHysics's Cs = 0.12 the eddy viscosity is at most 2e-4 nu here
// (the laminar limit); Cs = 5 makes it up to 0.4 nu, and the wave 16% slower after one e-folding.
//
// Plane Poiseuille start-up between plates of boundary particles driven by a body force g along
// x (Morris, Fox & Zhu 1997, "Modeling low Reynolds number incompressible flows using SPH",
// J. Comput. Phys. 136, 214-226, eq. 22), gap D between the no-slip planes:
//   u(y, t) = g/(2 nu) y (D - y)
//             - sum_n 4 g D^2/(nu pi^3 (2n+1)^3) sin((2n+1) pi y/D) exp(-(2n+1)^2 pi^2 nu t/D^2).
// Dynamic boundary particles at rest put the no-slip plane on (in fact just behind) their first
// layer, half a spacing behind the fluid's edge: D = L + dx for fluid in 0 < y < L. mDBC's no-slip
// (English et al. 2022) mirrors the fluid's velocity about the wall surface, the fluid's edge
// itself: D = L.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numbers>
#include <vector>

#include "sph/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr float kNu = 1e-4f;  // m^2/s

struct Flow {
    SphParams params;
    ParticleSet particles;
    int layers = 0;          // fluid layers across y, from y = 0
    double no_slip_offset_m = 0.0;  // the profile's y = 0 lies this far below the first fluid layer's edge
    double no_slip_gap_m = 0.0;     // D, the distance between the no-slip planes (channels)
};

// A lattice of spacing dx, `period` cells along x and z, the fluid layers 0 <= j < layers along
// y and `wall` layers of boundary particles on either side (0: periodic in y).
Flow make_flow(Viscosity viscosity, float sps_cs, float dx, int layers, int wall, float c0, Vec3f body_force,
               const std::function<float(float)>& u_of_y) {
    Flow f;
    f.layers = layers;
    SphParams& p = f.params;
    p.dx_m = dx;
    p.h_m = 1.5f * dx;
    p.c0 = c0;
    p.alpha = 0.0f;
    p.viscosity = viscosity;
    p.laminar_nu = kNu;
    p.sps_smagorinsky = sps_cs;
    p.gravity = body_force;
    const int period = 10;  // three kernel supports
    p.domain_min = {0.0f, -float(wall) * dx, 0.0f};
    p.domain_max = {float(period) * dx, float(layers + wall) * dx, float(period) * dx};
    const Face y_face = wall > 0 ? Face::wall : Face::periodic;
    p.faces = {Face::periodic, Face::periodic, y_face, y_face, Face::periodic, Face::periodic};
    // The eddy viscosity adds to nu (up to 0.4 nu in the SPS case): half the laminar step.
    p.dt_max_s = float(0.5 * viscous_dt_limit(p));
    const float mass = p.lattice_mass_kg();
    for (int k = 0; k < period; ++k)
        for (int j = -wall; j < layers + wall; ++j)
            for (int i = 0; i < period; ++i) {
                const Vec3f r{(float(i) + 0.5f) * dx, (float(j) + 0.5f) * dx, (float(k) + 0.5f) * dx};
                const bool fluid = j >= 0 && j < layers;
                f.particles.add(r, {fluid ? u_of_y(r.y) : 0.0f, 0.0f, 0.0f}, p.rho0, mass,
                                fluid ? ParticleKind::fluid : ParticleKind::boundary);
            }
    return f;
}

// Largest deviation over the fluid layers of the layer-mean u_x from exact(y, t) at t_s, relative
// to the largest |exact| there.
template <class Exact> double profile_error(const Backend& backend, const Flow& f, double t_s, Exact exact) {
    Solver solver(backend, f.params, f.particles);
    while (solver.time() < t_s) solver.step();
    const ParticleSet s = solver.download();
    const double dx = f.params.dx_m, t = solver.time();
    std::map<int, double> sum;
    std::map<int, int> count;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.kind[i] != ParticleKind::fluid) continue;
        const int layer = int(std::floor(s.position[i].y / dx));
        sum[layer] += s.velocity[i].x;
        count[layer] += 1;
    }
    double peak = 0.0, worst = 0.0;
    for (int j = 0; j < f.layers; ++j) peak = std::max(peak, std::abs(exact((j + 0.5) * dx + f.no_slip_offset_m, t)));
    for (const auto& [layer, n] : count) {
        const double y = (layer + 0.5) * dx;
        const double u = sum[layer] / n, ref = exact(y + f.no_slip_offset_m, t);
        worst = std::max(worst, std::abs(u - ref) / peak);
        MESSAGE("t = " << t << " s, y = " << y << " m: u = " << u << " m/s, reference " << ref << " ("
                       << 100.0 * (u - ref) / peak << " % of the peak)");
    }
    CHECK(solver.removed() == 0);
    return worst;
}

// The shear wave: one wavelength of 40 dx across y, U = 1 cm/s. The laminar term's error in
// the decay rate falls with resolution: 2.6% of the peak after one e-folding at 20 dx per
// wavelength, 1.45% at 40 (measured).
constexpr float kWaveDx = 1e-3f;
constexpr int kWaveLayers = 40;
constexpr double kWavelength = kWaveDx * kWaveLayers;
constexpr double kWaveU = 0.01;
constexpr double kWaveK = 2.0 * kPi / kWavelength;

Flow shear_wave(Viscosity viscosity, float sps_cs) {
    return make_flow(viscosity, sps_cs, kWaveDx, kWaveLayers, 0, 0.1f, {0.0f, 0.0f, 0.0f},
                     [](float y) { return float(kWaveU * std::sin(kWaveK * y)); });
}

double shear_wave_laminar(double y, double t) { return kWaveU * std::sin(kWaveK * y) * std::exp(-kNu * kWaveK * kWaveK * t); }

// u_t = d/dy [(nu + l^2 |u_y|) u_y] on the periodic wavelength, explicit finite differences on
// 160 intervals (8 per particle layer; the flux at the midpoints), sampled at the layers' centres.
std::vector<double> mixing_length_wave(double l, double t_end) {
    const int n = 8 * kWaveLayers;
    const double dy = kWavelength / n, l2 = l * l;
    std::vector<double> u(n), flux(n);
    for (int i = 0; i < n; ++i) u[i] = kWaveU * std::sin(kWaveK * i * dy);
    const double nu_max = kNu + l2 * kWaveU * kWaveK;
    const double dt = 0.2 * dy * dy / nu_max;
    for (double t = 0.0; t < t_end;) {
        const double step = std::min(dt, t_end - t);
        for (int i = 0; i < n; ++i) {
            const double g = (u[(i + 1) % n] - u[i]) / dy;
            flux[i] = (kNu + l2 * std::abs(g)) * g;  // at i + 1/2
        }
        for (int i = 0; i < n; ++i) u[i] += step * (flux[i] - flux[(i + n - 1) % n]) / dy;
        t += step;
    }
    std::vector<double> layers(kWaveLayers);
    for (int j = 0; j < kWaveLayers; ++j) layers[j] = u[8 * j + 4];  // (j + 1/2) dx = (8 j + 4) dy
    return layers;
}

// One e-folding of the laminar decay.
constexpr double kWaveTime = 1.0 / (kNu * kWaveK * kWaveK);

void laminar_shear_wave(const Backend& backend) {
    CHECK(profile_error(backend, shear_wave(Viscosity::laminar, 0.0f), kWaveTime, shear_wave_laminar) < 0.02);
}

void sps_laminar_limit(const Backend& backend) {
    CHECK(profile_error(backend, shear_wave(Viscosity::laminar_sps, 0.12f), kWaveTime, shear_wave_laminar) < 0.02);
}

void sps_mixing_length(const Backend& backend) {
    const float cs = 5.0f;
    const std::vector<double> reference = mixing_length_wave(double(cs) * kWaveDx, kWaveTime);
    const double error = profile_error(backend, shear_wave(Viscosity::laminar_sps, cs), kWaveTime, [&](double y, double) {
        return reference[std::size_t(std::clamp(int(std::floor(y / kWaveDx)), 0, kWaveLayers - 1))];
    });
    CHECK(error < 0.03);
}

// The channel: L = 2 cm, g = 2e-3 m/s^2 (u_max = g D^2/(8 nu) = 1.2 mm/s, Re = 0.24).
constexpr float kGap_m = 0.02f;
constexpr double kForce = 2e-3;

double poiseuille(double y, double t, double D) {
    const double g = kForce, nu = kNu;
    double u = g / (2.0 * nu) * y * (D - y);
    for (int n = 0; n < 50; ++n) {
        const double k = 2 * n + 1;
        u -= 4.0 * g * D * D / (nu * kPi * kPi * kPi * k * k * k) * std::sin(k * kPi * y / D) *
             std::exp(-k * k * kPi * kPi * nu * t / (D * D));
    }
    return u;
}

// The channel of `layers` fluid layers between plates of `wall` layers; mdbc: their normals d n
// to the wall surfaces at y = 0 and y = L, no-slip.
Flow channel(BoundaryScheme boundary, int layers, int wall) {
    const float dx = kGap_m / float(layers);
    Flow f = make_flow(Viscosity::laminar, 0.0f, dx, layers, wall, 0.1f, {float(kForce), 0.0f, 0.0f},
                       [](float) { return 0.0f; });
    if (boundary == BoundaryScheme::dbc) {
        // Dynamic boundary particles at rest: the no-slip planes on the plates' first layers.
        f.no_slip_offset_m = 0.5 * dx;
        f.no_slip_gap_m = kGap_m + dx;
        return f;
    }
    // mDBC's no-slip velocity 2 v_wall - v_g mirrors the fluid's about the wall surface, half a
    // spacing past the fluid's edge: the planes at y = 0 and y = L.
    f.no_slip_offset_m = 0.0;
    f.no_slip_gap_m = kGap_m;
    f.params.boundary = BoundaryScheme::mdbc;
    f.params.boundary_velocity = BoundaryVelocity::no_slip;
    for (std::size_t i = 0; i < f.particles.size(); ++i) {
        const float y = f.particles.position[i].y;
        const float to_surface = f.particles.kind[i] == ParticleKind::fluid ? 0.0f : y < 0.0f ? -y : kGap_m - y;
        f.particles.boundary_normal.push_back({0.0f, to_surface, 0.0f});
    }
    return f;
}

// The largest error early in the start-up and near the steady state (the first mode at 37% and
// 2%), t in units of D^2/nu.
double poiseuille_error(const Backend& backend, const Flow& f) {
    const double D = f.no_slip_gap_m, t_viscous = D * D / kNu;
    double worst = 0.0;
    for (const double t : {0.1 * t_viscous, 0.4 * t_viscous})
        worst = std::max(worst, profile_error(backend, f, t, [D](double y, double t_s) { return poiseuille(y, t_s, D); }));
    return worst;
}

// Dynamic boundary particles at rest, three layers, 10 fluid layers. Measured: 3.1% and 3.7% of
// the peak, everywhere faster: the no-slip plane lies about 0.68 dx behind the fluid's edge
// rather than 0.5 dx (the centre-line speed is that of D = L + 1.36 dx), a first-order wall error
// of dynamic boundary particles at rest (mDBC's no-slip is the fix, below). The interior operator
// is checked to 2% by the shear wave.
void laminar_poiseuille_dbc(const Backend& backend) {
    CHECK(poiseuille_error(backend, channel(BoundaryScheme::dbc, 10, 3)) < 0.04);
}

// mDBC no-slip on plates of one layer (the virtual layers behind it complete the support, at
// the mirrored velocities). Measured (CPU, 2026-11-27): 2.40%, 1.46%, 1.27% of the peak at 10, 16
// and 20 fluid layers, everywhere faster: the error falls like dx/L, an effective no-slip plane
// about 0.06 dx behind the wall surface (dynamic boundaries at rest: 3.71%, 2.70% at 10 and 16).
// 16 layers, within 2%.
void laminar_poiseuille_mdbc(const Backend& backend) {
    CHECK(poiseuille_error(backend, channel(BoundaryScheme::mdbc, 16, 1)) < 0.02);
}

}  // namespace

PK_PHYSICS_TEST("shear wave: laminar viscosity decays within 2% of exp(-nu k^2 t) (Lo & Shao 2002)", laminar_shear_wave)
PK_PHYSICS_TEST("shear wave: laminar+SPS with Cs = 0.12 keeps the laminar decay within 2%", sps_laminar_limit)
PK_PHYSICS_TEST("shear wave: laminar+SPS with Cs = 5 follows the mixing-length equation within 3%", sps_mixing_length)
PK_PHYSICS_TEST("Poiseuille start-up between dynamic boundary plates: laminar viscosity within 4% (Morris et al. 1997)",
                laminar_poiseuille_dbc)
PK_PHYSICS_TEST("Poiseuille start-up between mdbc no-slip plates of one layer: laminar viscosity within 2%",
                laminar_poiseuille_mdbc)
