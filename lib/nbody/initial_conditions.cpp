#include "nbody/initial_conditions.hpp"

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>

#include "base/error.hpp"
#include "nbody/random.hpp"

namespace partikel::nbody {

namespace {

constexpr double kPi = std::numbers::pi;

Vec3d isotropic(Random& r) {
    const double z = 2.0 * r.uniform() - 1.0;
    const double phi = 2.0 * kPi * r.uniform();
    const double s = std::sqrt(1.0 - z * z);
    return {s * std::cos(phi), s * std::sin(phi), z};
}

// Rotation of v about the x axis by `angle` radians.
Vec3d rotate_x(Vec3d v, double angle) {
    const double c = std::cos(angle), s = std::sin(angle);
    return {v.x, c * v.y - s * v.z, s * v.y + c * v.z};
}

// A Plummer body in units G = M = a = 1 (AHW 1974): position and velocity.
struct PhasePoint {
    Vec3d x, v;
};
PhasePoint plummer_body(Random& r, double mass_cut) {
    const double fraction = r.uniform_positive() * mass_cut;
    const double radius = 1.0 / std::sqrt(std::pow(fraction, -2.0 / 3.0) - 1.0);
    PhasePoint p;
    p.x = radius * isotropic(r);
    // q = v / v_escape has the density q^2 (1 - q^2)^{7/2} on [0, 1] (its maximum is below 0.1).
    double q, y;
    do {
        q = r.uniform();
        y = 0.1 * r.uniform();
    } while (y > q * q * std::pow(1.0 - q * q, 3.5));
    const double speed = q * std::sqrt(2.0) * std::pow(1.0 + radius * radius, -0.25);
    p.v = speed * isotropic(r);
    return p;
}

// Plummer's enclosed mass fraction at r (scale a).
double plummer_mass_fraction(double r, double a) {
    const double x = r / a;
    return x * x * x / std::pow(1.0 + x * x, 1.5);
}

void require(bool ok, const std::string& message) {
    if (!ok) throw UsageError(message);
}

}  // namespace

Model plummer(const PlummerOptions& o) {
    require(o.n >= 1, "plummer: n must be at least 1");
    require(o.mass_cut > 0.0 && o.mass_cut < 1.0, "plummer: the mass cut must be in (0, 1)");
    Model m;
    m.name = "plummer";
    m.bodies.resize(o.n);
    const double length = 3.0 * kPi / 16.0;  // Henon units: E = -1/4 for M = G = 1
    const double speed = 1.0 / std::sqrt(length);
    const auto n = static_cast<std::int64_t>(o.n);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
        Random r(o.seed, std::uint64_t(i));
        const PhasePoint p = plummer_body(r, o.mass_cut);
        m.bodies.position[i] = length * p.x;
        m.bodies.velocity[i] = speed * p.v;
        m.bodies.mass[i] = 1.0 / double(o.n);
        m.bodies.id[i] = std::uint64_t(i);
    }
    move_to_centre_of_mass_frame(m.bodies);
    m.params.units = nbody_units();
    m.params.softening = float(0.78 * std::cbrt(1.0 / double(o.n)));
    m.params.dt = 1.0 / 128.0;
    return m;
}

UniformShape parse_uniform_shape(const std::string& name) {
    if (name == "sphere") return UniformShape::sphere;
    if (name == "cube") return UniformShape::cube;
    throw UsageError("uniform: unknown shape \"" + name + "\" (expected sphere or cube)");
}

Model uniform(const UniformOptions& o) {
    require(o.n >= 1, "uniform: n must be at least 1");
    require(o.size > 0.0 && std::isfinite(o.size), "uniform: the size must be positive");
    require(o.virial_ratio >= 0.0 && std::isfinite(o.virial_ratio), "uniform: the virial ratio must be >= 0");
    Model m;
    m.name = "uniform";
    m.bodies.resize(o.n);
    const double mass = 1.0;
    const bool sphere = o.shape == UniformShape::sphere;
    // Continuum potential energy of the uniform body (G = 1); the cube's constant is the mean
    // inverse distance of two points in a unit cube, halved.
    const double W = sphere ? -0.6 * mass * mass / o.size : -0.9411563 * mass * mass / o.size;
    // Isotropic Gaussian velocities: K = (3/2) M sigma^2 = Q |W| / 2.
    const double sigma = std::sqrt(o.virial_ratio * std::fabs(W) / (3.0 * mass));
    const auto n = static_cast<std::int64_t>(o.n);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
        Random r(o.seed, std::uint64_t(i));
        Vec3d x;
        if (sphere) {
            x = (o.size * std::cbrt(r.uniform())) * isotropic(r);
        } else {
            x = Vec3d{(r.uniform() - 0.5) * o.size, (r.uniform() - 0.5) * o.size, (r.uniform() - 0.5) * o.size};
        }
        m.bodies.position[i] = x;
        m.bodies.velocity[i] = Vec3d{sigma * r.normal(), sigma * r.normal(), sigma * r.normal()};
        m.bodies.mass[i] = mass / double(o.n);
        m.bodies.id[i] = std::uint64_t(i);
    }
    move_to_centre_of_mass_frame(m.bodies);
    const double volume = sphere ? 4.0 / 3.0 * kPi * o.size * o.size * o.size : o.size * o.size * o.size;
    m.params.units = nbody_units();
    m.params.softening = float(0.5 * std::cbrt(volume / double(o.n)));
    m.params.dt = 1.0 / 512.0;
    return m;
}

double kepler_period(double a, double total_mass, double G) { return 2.0 * kPi * std::sqrt(a * a * a / (G * total_mass)); }

Model kepler(const KeplerOptions& o) {
    require(o.eccentricity >= 0.0 && o.eccentricity < 1.0, "kepler: the eccentricity must be in [0, 1)");
    require(o.semi_major_axis > 0.0, "kepler: the semi-major axis must be positive");
    require(o.mass1 > 0.0 && o.mass2 > 0.0, "kepler: both masses must be positive");
    const double M = o.mass1 + o.mass2, e = o.eccentricity, a = o.semi_major_axis;
    // Relative orbit at apoapsis: r = a (1 + e), speed sqrt(G M (1 - e) / (a (1 + e))), G = 1.
    const double r = a * (1.0 + e);
    const double v = std::sqrt(M * (1.0 - e) / (a * (1.0 + e)));
    Model m;
    m.name = "kepler";
    m.bodies.resize(2);
    m.bodies.position[0] = Vec3d{-o.mass2 / M * r, 0.0, 0.0};
    m.bodies.position[1] = Vec3d{o.mass1 / M * r, 0.0, 0.0};
    m.bodies.velocity[0] = Vec3d{0.0, -o.mass2 / M * v, 0.0};
    m.bodies.velocity[1] = Vec3d{0.0, o.mass1 / M * v, 0.0};
    m.bodies.mass = {o.mass1, o.mass2};
    m.bodies.id = {0, 1};
    m.params.units = nbody_units();
    m.params.softening = 0.0f;
    m.params.dt = kepler_period(a, M, 1.0) / 4096.0;
    return m;
}

Model in_astro_units(Model m, double mass, double length_kpc) {
    require(m.params.units.kind == UnitSystemKind::nbody,
            m.name + ": the model is already in " + std::string(unit_system_name(m.params.units.kind)) + " units");
    require(mass > 0.0 && std::isfinite(mass), m.name + ": the mass unit must be positive and finite");
    require(length_kpc > 0.0 && std::isfinite(length_kpc), m.name + ": the length unit must be positive and finite");
    const UnitSystem u = astro_units();
    const double speed = std::sqrt(u.G * mass / length_kpc);
    for (std::size_t i = 0; i < m.bodies.size(); ++i) {
        m.bodies.position[i] = length_kpc * m.bodies.position[i];
        m.bodies.velocity[i] = speed * m.bodies.velocity[i];
        m.bodies.mass[i] *= mass;
    }
    m.params.units = u;
    m.params.softening = float(double(m.params.softening) * length_kpc);
    m.params.dt *= length_kpc / speed;
    return m;
}

double time_to_pericenter(double e, double rp, double r, double GM) {
    if (r <= rp) return 0.0;
    if (std::fabs(e - 1.0) < 1e-12) {  // parabola (Barker's equation)
        const double D = std::sqrt(r / rp - 1.0);
        return std::sqrt(2.0 * rp * rp * rp / GM) * (D + D * D * D / 3.0);
    }
    if (e > 1.0) {  // hyperbola: r = a (e cosh F - 1), t = (e sinh F - F) / n
        const double a = rp / (e - 1.0);
        const double F = std::acosh((1.0 + r / a) / e);
        return (e * std::sinh(F) - F) / std::sqrt(GM / (a * a * a));
    }
    // ellipse: r = a (1 - e cos E), t = (E - e sin E) / n
    const double a = rp / (1.0 - e);
    if (r > a * (1.0 + e)) return std::nan("");
    const double E = std::acos((1.0 - r / a) / e);
    return (E - e * std::sin(E)) / std::sqrt(GM / (a * a * a));
}

namespace {

struct PairOrbit {
    double eccentricity;
    double GM;
};

PairOrbit solve_orbit(const GalaxyPairOptions& o) {
    const UnitSystem u = astro_units();
    const double GM = u.G * 2.0 * o.total_mass;
    const double target = o.time_to_pericenter_Myr / kMyrPerAstroTime;
    const double D = o.separation_kpc, rp = o.pericenter_kpc;
    // The time falls as e grows; the least e that reaches separation D is bound with apocentre D.
    double lo = (D - rp) / (D + rp) + 1e-12, hi = 50.0;
    if (!(time_to_pericenter(lo, rp, D, GM) >= target) || !(time_to_pericenter(hi, rp, D, GM) <= target))
        throw UsageError("galaxy-pair: no two-body orbit reaches a pericentre of " + std::to_string(rp) + " kpc from " +
                         std::to_string(D) + " kpc in " + std::to_string(o.time_to_pericenter_Myr) + " Myr");
    for (int it = 0; it < 200; ++it) {
        const double mid = 0.5 * (lo + hi);
        if (time_to_pericenter(mid, rp, D, GM) > target) lo = mid;
        else hi = mid;
    }
    return {0.5 * (lo + hi), GM};
}

}  // namespace

double galaxy_pair_eccentricity(const GalaxyPairOptions& o) { return solve_orbit(o).eccentricity; }

GalaxyCounts galaxy_counts(std::size_t n, bool first) {
    const std::size_t per = first ? (n + 1) / 2 : n / 2;
    GalaxyCounts c;
    c.disk = (per + 2) / 3;  // a third, rounded up (87,382 of 262,144 as in the thesis)
    c.halo = per - c.disk;
    return c;
}

Model galaxy_pair(const GalaxyPairOptions& o) {
    require(o.n >= 6, "galaxy-pair: n must be at least 6 (two galaxies of disk and halo)");
    require(o.separation_kpc > o.pericenter_kpc && o.pericenter_kpc > 0.0,
            "galaxy-pair: need separation > pericentre > 0");
    require(o.total_mass > o.disk_mass && o.disk_mass > 0.0, "galaxy-pair: need total mass > disk mass > 0");
    require(o.disk_scale_kpc > 0.0 && o.disk_height_kpc > 0.0 && o.halo_scale_kpc > 0.0,
            "galaxy-pair: scale lengths must be positive");
    require(o.halo_mass_cut > 0.0 && o.halo_mass_cut < 1.0, "galaxy-pair: the halo mass cut must be in (0, 1)");
    const UnitSystem u = astro_units();
    const PairOrbit orbit = solve_orbit(o);
    const double e = orbit.eccentricity, rp = o.pericenter_kpc, D = o.separation_kpc;
    // The relative orbit at separation D before pericentre (conic r = p / (1 + e cos nu), nu < 0).
    const double p = rp * (1.0 + e);
    const double nu = -std::acos(std::fmax(-1.0, std::fmin(1.0, (p / D - 1.0) / e)));
    const double h = std::sqrt(orbit.GM / p);
    const Vec3d r_rel{D * std::cos(nu), D * std::sin(nu), 0.0};
    const double v_r = h * e * std::sin(nu), v_t = h * (1.0 + e * std::cos(nu));
    const Vec3d v_rel{v_r * std::cos(nu) - v_t * std::sin(nu), v_r * std::sin(nu) + v_t * std::cos(nu), 0.0};

    Model m;
    m.name = "galaxy-pair";
    m.bodies.resize(o.n);
    const double halo_mass = o.total_mass - o.disk_mass;
    const double Rd = o.disk_scale_kpc, z0 = o.disk_height_kpc, ah = o.halo_scale_kpc;
    const double G = u.G;
    std::size_t offset = 0;
    for (int galaxy = 0; galaxy < 2; ++galaxy) {
        const GalaxyCounts c = galaxy_counts(o.n, galaxy == 0);
        const double sign = galaxy == 0 ? -0.5 : 0.5;  // equal masses: each moves half the relative orbit
        const Vec3d centre = sign * r_rel, drift = sign * v_rel;
        const double tilt = galaxy == 0 ? 0.0 : o.inclination_deg * kPi / 180.0;
        const double disk_body = o.disk_mass / double(c.disk), halo_body = halo_mass / double(c.halo);
        const double halo_speed = std::sqrt(G * halo_mass / ah);
        const auto per = static_cast<std::int64_t>(c.disk + c.halo);
        const auto disk_count = static_cast<std::int64_t>(c.disk);
#pragma omp parallel for schedule(static)
        for (std::int64_t k = 0; k < per; ++k) {
            const std::size_t i = offset + std::size_t(k);
            Random r(o.seed, std::uint64_t(i));
            Vec3d x, v;
            double mass;
            if (k < disk_count) {
                double R;
                do R = -Rd * std::log(r.uniform_positive() * r.uniform_positive());  // Gamma(2, R_d)
                while (R > 10.0 * Rd);
                const double phi = 2.0 * kPi * r.uniform();
                const double t = std::fmin(std::fmax(2.0 * r.uniform() - 1.0, -1.0 + 1e-12), 1.0 - 1e-12);
                const double z = z0 * std::atanh(t);  // sech^2 profile: the inverse of (1 + tanh(z/z0)) / 2
                const double enclosed =
                    halo_mass * std::fmin(1.0, plummer_mass_fraction(R, ah) / o.halo_mass_cut) +
                    o.disk_mass * (1.0 - (1.0 + R / Rd) * std::exp(-R / Rd));
                const double vc = std::sqrt(G * enclosed / R);
                const double surface = o.disk_mass / (2.0 * kPi * Rd * Rd) * std::exp(-R / Rd);
                const double sigma = std::sqrt(kPi * G * surface * z0);
                const double vR = sigma * r.normal(), vphi = vc + sigma * r.normal(), vz = sigma * r.normal();
                x = Vec3d{R * std::cos(phi), R * std::sin(phi), z};
                v = Vec3d{vR * std::cos(phi) - vphi * std::sin(phi), vR * std::sin(phi) + vphi * std::cos(phi), vz};
                mass = disk_body;
            } else {
                const PhasePoint pp = plummer_body(r, o.halo_mass_cut);
                x = ah * pp.x;
                v = halo_speed * pp.v;
                mass = halo_body;
            }
            m.bodies.position[i] = centre + rotate_x(x, tilt);
            m.bodies.velocity[i] = drift + rotate_x(v, tilt);
            m.bodies.mass[i] = mass;
            m.bodies.id[i] = std::uint64_t(i);
        }
        offset += c.disk + c.halo;
    }
    m.params.units = u;
    const GalaxyCounts a = galaxy_counts(o.n, true);
    m.params.softening = float(0.2 * std::cbrt(262144.0 / double(a.disk + a.halo)));
    m.params.dt = 2.444 / kMyrPerAstroTime;
    return m;
}

}  // namespace partikel::nbody
