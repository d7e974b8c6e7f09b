// Initial conditions (docs/NBODY.md, "Initial conditions"): each returns the bodies and the
// parameters that suit them (unit system, softening, time step). Bodies are generated from a
// seed on the host, body i from its own random stream (nbody/random.hpp), in parallel: the same
// seed gives the same bodies for any thread count. Ids are 0 .. n-1 in the order listed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "nbody/bodies.hpp"
#include "nbody/params.hpp"

namespace partikel::nbody {

struct Model {
    std::string name;
    Bodies bodies;
    NbodyParams params;  // units, a softening and a time step suited to the bodies; the rest default
};

// Plummer sphere (Plummer 1911) in virial equilibrium, sampled as Aarseth, Henon & Wielen,
// "A comparison of numerical methods for the study of star cluster dynamics" (1974): radii from
// the inverse cumulative mass, speeds by rejection from the isotropic distribution function.
// Henon units: total mass 1, G = 1, scale radius 3 pi / 16, total energy -1/4 (slightly less in
// magnitude with the mass cut); centre of mass at rest at the origin. Softening: half the mean
// spacing of the bodies inside the half-mass radius, 0.78 n^-1/3; dt = 1/128.
struct PlummerOptions {
    std::size_t n = 65536;
    std::uint64_t seed = 1;
    double mass_cut = 0.999;  // radii are drawn for mass fractions up to this (AHW: 0.999)
};
Model plummer(const PlummerOptions& options);

// Bodies uniform in a sphere of radius `size` or a cube of edge `size`, total mass 1, G = 1,
// with isotropic Gaussian velocities scaled to the virial ratio 2K/|W| = virial_ratio using the
// continuum potential energy (sphere: W = -3/5 G M^2 / R; cube: W = -0.9411563 G M^2 / a);
// virial_ratio 0 is a cold collapse (at rest). Softening: half the mean spacing; dt = 1/512.
enum class UniformShape { sphere, cube };
struct UniformOptions {
    std::size_t n = 65536;
    std::uint64_t seed = 1;
    UniformShape shape = UniformShape::sphere;
    double size = 1.0;
    double virial_ratio = 0.0;
};
Model uniform(const UniformOptions& options);
UniformShape parse_uniform_shape(const std::string& name);  // "sphere", "cube"

// Two bodies on a Kepler ellipse (G = 1), starting at apoapsis on the x axis with the centre of
// mass at rest at the origin and the orbit in the x-y plane. Softening 0; dt = period / 4096.
struct KeplerOptions {
    double eccentricity = 0.5;  // 0 <= e < 1
    double semi_major_axis = 1.0;
    double mass1 = 0.5;
    double mass2 = 0.5;
};
Model kepler(const KeplerOptions& options);
// 2 pi sqrt(a^3 / (G M)).
double kepler_period(double semi_major_axis, double total_mass, double G);

// A model built in Henon units (G = 1) expressed in astro units (nbody/units.hpp), one Henon
// mass unit being `mass` (1e10 solar masses) and one length unit `length_kpc`: positions and
// the softening times L, masses times M, velocities times V = sqrt(G M / L) with G = 43007.1,
// and the time step times L / V. The same dynamics in other units: orbits measured in crossing
// times do not change. UsageError unless the model is in Henon units and M, L are positive
// and finite.
Model in_astro_units(Model model, double mass, double length_kpc);

// Two disk galaxies with dark haloes on a collision orbit (astro units), after the runs of
// Hochstetter's thesis (2012, sec. 2.1.2): per galaxy a third of the bodies in an exponential
// disk of 3.35238e10 solar masses and two thirds in a halo, 1.34095e12 solar masses in total,
// the galaxies `separation_kpc` apart and on the Kepler orbit of two point masses that reaches
// its pericentre `pericenter_kpc` after `time_to_pericenter_Myr` (default 560 steps of 2.444
// Myr, as in the thesis). Per galaxy:
//   disk: surface density ~ exp(-R/R_d) (radii from the Gamma(2) law, cut at 10 R_d), vertical
//         sech^2(z/z0); rotation at the circular speed of the enclosed mass (halo and disk, the
//         disk's mass taken as spherical), with a velocity dispersion sigma^2 = pi G Sigma(R) z0
//         (the isothermal sheet's) in every direction;
//   halo: a Plummer sphere of scale `halo_scale_kpc` (AHW sampling, radii cut at mass fraction
//         `halo_mass_cut`), in equilibrium on its own.
// Galaxy A's disk spins about +z (prograde in the x-y orbital plane), galaxy B's is tilted by
// `inclination_deg` about the x axis. Ids: A's disk, A's halo, B's disk, B's halo. Softening
// 0.2 kpc at 262,144 bodies per galaxy, scaled with n^-1/3; dt = 2.444 Myr.
struct GalaxyPairOptions {
    std::size_t n = 524288;  // both galaxies
    std::uint64_t seed = 1;
    double separation_kpc = 500.0;
    double pericenter_kpc = 25.0;
    double time_to_pericenter_Myr = 560 * 2.444;
    double disk_mass = 3.35238;     // 1e10 solar masses
    double total_mass = 134.095;    // per galaxy, 1e10 solar masses
    double disk_scale_kpc = 3.0;    // R_d
    double disk_height_kpc = 0.3;   // z0
    double halo_scale_kpc = 20.0;
    double halo_mass_cut = 0.99;
    double inclination_deg = 60.0;
};
Model galaxy_pair(const GalaxyPairOptions& options);

struct GalaxyCounts {
    std::size_t disk = 0;
    std::size_t halo = 0;
};
// Bodies per component of galaxy A (`first`) and B; n = A's total + B's total.
GalaxyCounts galaxy_counts(std::size_t n, bool first);
// The eccentricity of the orbit galaxy_pair() puts the galaxies on (> 1: hyperbolic).
double galaxy_pair_eccentricity(const GalaxyPairOptions& options);
// Time (model units) the two-body orbit of total mass `total` (G M in model units) with
// pericentre rp and eccentricity e takes from separation r to pericentre.
double time_to_pericenter(double e, double rp, double r, double GM);

}  // namespace partikel::nbody
