#include "sph/io/scenes.hpp"

#include "sph/snow.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>

#include "base/error.hpp"
#include "base/log.hpp"
#include "base/system.hpp"
#include "sph/boundary.hpp"
#include "sph/eos.hpp"

namespace partikel::sph {

namespace {

constexpr int kBoundaryLayers = 3;  // >= 2h / dx for hdx = 1.5: full kernel support in the wall

// Host memory a scene's particle costs until it is written: the ParticleSet's vectors (41 bytes,
// up to twice that while they grow) and the frame built from them (49 bytes), rounded up.
constexpr double kSceneBytesPerParticle = 160.0;

// Refuses, with the numbers, a lattice that cannot fit in the memory available, before any of
// it is made (a dx of 1e-9 m would otherwise grow until the kernel kills the program).
void check_lattice_size(double points, std::size_t already, float dx) {
    char what[96];
    std::snprintf(what, sizeof what, "dx %g m makes at least %.3g particles, which", double(dx), points + double(already));
    require_host_memory(what, points + double(already), kSceneBytesPerParticle);
}

// Lattice points lo + (i + 1/2) dx inside [lo, hi) that `keep` accepts.
void fill(ParticleSet& set, Vec3f lo, Vec3f hi, float dx, ParticleKind kind, float rho, float mass,
          const std::function<bool(Vec3f)>& keep = {}) {
    const double fx = std::max(0.0, std::round(double(hi.x - lo.x) / dx));
    const double fy = std::max(0.0, std::round(double(hi.y - lo.y) / dx));
    const double fz = std::max(0.0, std::round(double(hi.z - lo.z) / dx));
    check_lattice_size(fx * fy * fz, set.size(), dx);
    const int nx = int(fx), ny = int(fy), nz = int(fz);
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                Vec3f p{lo.x + (float(i) + 0.5f) * dx, lo.y + (float(j) + 0.5f) * dx, lo.z + (float(k) + 0.5f) * dx};
                if (!keep || keep(p)) set.add(p, {0.0f, 0.0f, 0.0f}, rho, mass, kind);
            }
}

// Boundary particles of an open-top tank [0, L] x [0, H] x [0, W] (inner faces), walls of
// `layers` layers outside; `walls_z` false leaves the z faces open (periodic z).
void tank_walls(ParticleSet& set, Vec3f inner, float dx, float rho0, bool walls_x, bool walls_z,
                int layers = kBoundaryLayers) {
    const float t = float(layers) * dx;
    const float mass = rho0 * dx * dx * dx;
    const Vec3f lo{walls_x ? -t : 0.0f, -t, walls_z ? -t : 0.0f};
    const Vec3f hi{walls_x ? inner.x + t : inner.x, inner.y, walls_z ? inner.z + t : inner.z};
    fill(set, lo, hi, dx, ParticleKind::boundary, rho0, mass, [&](Vec3f p) {
        const bool inside_x = p.x > 0.0f && p.x < inner.x;
        const bool inside_z = p.z > 0.0f && p.z < inner.z;
        return p.y < 0.0f || !inside_x || !inside_z;
    });
}

// Wall normals for mdbc (ParticleSet::boundary_normal): the vector d n from each boundary particle
// to the wall surface, from the scene's geometry; zero for fluid particles. Each component is
// snapped to (k + 1/2) dx, ties to the smaller: the surface lies half a spacing past the outermost
// layer even where a face is not on the lattice (the column's top at 0.45 m with dx = 2 cm).
void set_boundary_normals(ParticleSet& set, float dx, const std::function<Vec3f(Vec3f)>& to_surface) {
    set.boundary_normal.resize(set.size());
    for (std::size_t i = 0; i < set.size(); ++i) {
        Vec3f n{0.0f, 0.0f, 0.0f};
        if (set.kind[i] != ParticleKind::fluid) {
            n = to_surface(set.position[i]);
            for (int k = 0; k < 3; ++k)
                if (n[k] != 0.0f) n[k] = std::copysign((std::ceil(std::fabs(n[k]) / dx - 1.0f) + 0.5f) * dx, n[k]);
        }
        set.boundary_normal[i] = n;
    }
}

constexpr float kUnbounded = std::numeric_limits<float>::infinity();

// From a wall particle outside the fluid's box [lo, hi] to the box's nearest point (a face, or
// diagonally to an edge or a corner).
Vec3f to_fluid_box(Vec3f p, Vec3f lo, Vec3f hi) {
    Vec3f q = p;
    for (int k = 0; k < 3; ++k) q[k] = std::clamp(p[k], lo[k], hi[k]);
    return q - p;
}

// From a particle inside a solid box [lo, hi] to its nearest faces among the wetted ones (bit f of
// `wetted`: face f = x-, x+, y-, y+, z-, z+ touches fluid): the sum over the faces at that
// distance, so that a particle on an edge or a corner points diagonally out of it.
Vec3f to_solid_surface(Vec3f p, Vec3f lo, Vec3f hi, unsigned wetted) {
    float nearest = kUnbounded;
    for (int f = 0; f < 6; ++f)
        if ((wetted >> f) & 1u) nearest = std::min(nearest, f % 2 == 0 ? p[f / 2] - lo[f / 2] : hi[f / 2] - p[f / 2]);
    Vec3f out{0.0f, 0.0f, 0.0f};
    for (int f = 0; f < 6; ++f) {
        if (!((wetted >> f) & 1u)) continue;
        const float d = f % 2 == 0 ? p[f / 2] - lo[f / 2] : hi[f / 2] - p[f / 2];
        if (d <= nearest * (1.0f + 1e-3f)) out[f / 2] += f % 2 == 0 ? -d : d;
    }
    return out;
}

int wall_layers(const SceneOptions& o) { return o.boundary_layers > 0 ? o.boundary_layers : kBoundaryLayers; }

// h from the options, else the scene's convention: h = 1.5 dx (Werner 2015), or with
// `default_coefh` > 0 DualSPHysics's h = coefh sqrt(3) dx.
void set_smoothing(SphParams& p, const SceneOptions& o, float default_coefh = 0.0f) {
    if (o.coefh > 0.0f)
        p.h_m = smoothing_length_coefh(p.dx_m, o.coefh);
    else if (o.hdx > 0.0f)
        p.h_m = smoothing_length_hdx(p.dx_m, o.hdx);
    else
        p.h_m = default_coefh > 0.0f ? smoothing_length_coefh(p.dx_m, default_coefh) : smoothing_length_hdx(p.dx_m, 1.5f);
}

float default_c0(const SceneOptions& o, float max_speed) { return o.c0 > 0.0f ? o.c0 : 10.0f * max_speed; }

// Martin & Moyce (1952), n^2 = 2: a column a wide and 2a high against the back wall (x = 0)
// of a tank 6a long with walls 3a high, quasi-two-dimensional: periodic along z over 10 dx (the column spans the
// tank's width, so nothing varies along z).
Scene dam_break(const SceneOptions& o) {
    Scene s;
    SphParams& p = s.params;
    const float a = o.width_m > 0.0f ? o.width_m : kMartinMoyceWidth_m;
    p.dx_m = o.dx_m > 0.0f ? o.dx_m : a / 20.0f;
    set_smoothing(p, o);
    const float depth = std::max(10.0f * p.dx_m, 3.0f * 2.0f * p.h_m * 1.01f);
    const float length = 6.0f * a, height = 4.0f * a;
    p.c0 = default_c0(o, std::sqrt(2.0f * 9.81f * 2.0f * a));
    // DualSPHysics's artificial viscosity for dam breaks. With Werner (2015)'s 0.01 the front runs
    // 8-13% ahead of Martin & Moyce at a/dx = 16; with 0.1 it stays within 7-9% (docs/SPH.md).
    p.alpha = 0.1f;
    const int layers = wall_layers(o);
    const float t = float(layers) * p.dx_m;
    p.domain_min = {-t, -t, 0.0f};
    p.domain_max = {length + t, height, std::round(depth / p.dx_m) * p.dx_m};
    p.faces = {Face::wall, Face::wall, Face::wall, Face::open, Face::periodic, Face::periodic};
    fill(s.particles, {0.0f, 0.0f, 0.0f}, {a, 2.0f * a, p.domain_max.z}, p.dx_m, ParticleKind::fluid, p.rho0,
         p.lattice_mass_kg());
    tank_walls(s.particles, {length, 3.0f * a, p.domain_max.z}, p.dx_m, p.rho0, true, false, layers);
    if (o.gate_speed_m_s > 0.0f) {
        // The experiments' release: a gate of one layer (a thin plate: three layers would make the
        // front pass under a gate 3 dx thick, a delay that depends on the resolution) against the
        // column's front face, 2a + 2 layers high, lifted straight up at the given speed until it
        // has cleared the column by a layer (it then rests above y = 2a + 3 dx, the domain raised
        // to hold it).
        const float gate_height = 2.0f * a + 2.0f * p.dx_m;
        fill(s.particles, {a, 0.0f, 0.0f}, {a + p.dx_m, gate_height, p.domain_max.z}, p.dx_m,
             ParticleKind::moving_boundary, p.rho0, p.lattice_mass_kg());
        p.boundary_motion.velocity_m_s = {0.0f, o.gate_speed_m_s, 0.0f};
        p.boundary_motion.duration_s = (gate_height + p.dx_m) / o.gate_speed_m_s;
        p.domain_max.y = std::max(p.domain_max.y, 2.0f * gate_height + 2.0f * p.dx_m);
    }
    // (The gate lies inside the tank's box: it gets no normal and stays a DBC wall under mdbc.)
    set_boundary_normals(s.particles, p.dx_m,
                         [&](Vec3f q) { return to_fluid_box(q, {0.0f, 0.0f, -kUnbounded}, {length, kUnbounded, kUnbounded}); });
    if (o.hydrostatic) set_hydrostatic_density(s.particles, p, 2.0f * a);
    return s;
}

// Water at rest (hydrostatics): depth d in a square tank as wide as deep with boundary-particle
// floor and walls, or (--periodic) a floor only and periodic x and z over three kernel supports.
Scene still_tank(const SceneOptions& o) {
    Scene s;
    SphParams& p = s.params;
    const float depth = o.width_m > 0.0f ? o.width_m : 0.1f;
    p.dx_m = o.dx_m > 0.0f ? o.dx_m : depth / 20.0f;
    set_smoothing(p, o);
    p.c0 = default_c0(o, std::sqrt(2.0f * 9.81f * depth));
    const int layers = wall_layers(o);
    const float t = float(layers) * p.dx_m;
    if (o.periodic) {
        const float side = std::ceil(3.0f * 2.0f * p.h_m * 1.01f / p.dx_m) * p.dx_m;
        p.domain_min = {0.0f, -t, 0.0f};
        p.domain_max = {side, 1.5f * depth, side};
        p.faces = {Face::periodic, Face::periodic, Face::wall, Face::open, Face::periodic, Face::periodic};
        fill(s.particles, {0.0f, 0.0f, 0.0f}, {side, depth, side}, p.dx_m, ParticleKind::fluid, p.rho0, p.lattice_mass_kg());
        fill(s.particles, {0.0f, -t, 0.0f}, {side, 0.0f, side}, p.dx_m, ParticleKind::boundary, p.rho0, p.lattice_mass_kg());
        set_boundary_normals(s.particles, p.dx_m, [](Vec3f q) {
            return to_fluid_box(q, {-kUnbounded, 0.0f, -kUnbounded}, {kUnbounded, kUnbounded, kUnbounded});
        });
    } else {
        const float side = std::round(depth / p.dx_m) * p.dx_m;
        p.domain_min = {-t, -t, -t};
        p.domain_max = {side + t, 1.5f * depth, side + t};
        p.faces = {Face::wall, Face::wall, Face::wall, Face::open, Face::wall, Face::wall};
        fill(s.particles, {0.0f, 0.0f, 0.0f}, {side, depth, side}, p.dx_m, ParticleKind::fluid, p.rho0, p.lattice_mass_kg());
        tank_walls(s.particles, {side, 1.5f * depth - t, side}, p.dx_m, p.rho0, true, true, layers);
        set_boundary_normals(s.particles, p.dx_m,
                             [&](Vec3f q) { return to_fluid_box(q, {0.0f, 0.0f, 0.0f}, {side, kUnbounded, side}); });
    }
    // Still water always starts hydrostatic: the point of the scene is the equilibrium.
    set_hydrostatic_density(s.particles, p, depth);
    return s;
}

float terrain_at(const SphParams& p, float x, float z);

// A block, sphere or vertical column of fluid in a domain bounded by repulsive walls (no
// boundary particles), above the terrain if one is given.
Scene fluid_shape(const SceneOptions& o, Vec3f lo, Vec3f hi, const std::function<bool(Vec3f)>& inside) {
    Scene s;
    SphParams& p = s.params;
    p.dx_m = o.dx_m > 0.0f ? o.dx_m : 0.02f;
    set_smoothing(p, o);
    p.domain_min = o.domain_min;
    p.domain_max = o.domain_max;
    for (int k = 0; k < 3; ++k)
        if (!(lo[k] >= o.domain_min[k] && hi[k] <= o.domain_max[k] && lo[k] < hi[k]))
            throw UsageError("the fluid must lie inside the domain");
    p.c0 = default_c0(o, std::sqrt(2.0f * 9.81f * (hi.y - o.domain_min.y)));
    p.terrain = o.terrain;
    p.terrain_contact.tile_m = o.terrain_tile_m;
    fill(s.particles, lo, hi, p.dx_m, ParticleKind::fluid, p.rho0, p.lattice_mass_kg(), [&](Vec3f q) {
        return inside(q) && (p.terrain.empty() || q.y > terrain_at(p, q.x, q.z) + 0.5f * p.dx_m);
    });
    if (o.hydrostatic) set_hydrostatic_density(s.particles, p, hi.y);
    return s;
}

Scene box(const SceneOptions& o) {
    return fluid_shape(o, o.box_min, o.box_max, [](Vec3f) { return true; });
}

Scene sphere(const SceneOptions& o) {
    const Vec3f r{o.radius_m, o.radius_m, o.radius_m};
    return fluid_shape(o, o.center - r, o.center + r,
                       [&](Vec3f q) { return norm2(q - o.center) <= o.radius_m * o.radius_m; });
}

Scene column(const SceneOptions& o) {
    const Vec3f lo{o.center.x - o.radius_m, o.domain_min.y, o.center.z - o.radius_m};
    const Vec3f hi{o.center.x + o.radius_m, o.domain_min.y + o.height_m, o.center.z + o.radius_m};
    return fluid_shape(o, lo, hi, [&](Vec3f q) {
        const float dx = q.x - o.center.x, dz = q.z - o.center.z;
        return dx * dx + dz * dz <= o.radius_m * o.radius_m;
    });
}

// DualSPHysics's standard 3D dam break with an obstacle (examples/main/01_DamBreak): tank
// 1.6 x 0.4 (up) x 0.67 m, water 0.4 x 0.3 x 0.67 m at x = 0, a column 0.12 x 0.45 x 0.12 m at
// x = 0.9 m, z = 0.24 m; its settings: cubic spline, h = sqrt(3) dp, alpha = 0.1, Fourtakas
// diffusion 0.1, c0 = 20 sqrt(g 0.3), CFL 0.2, Verlet, RhopOut. The tank walls and the
// column's shell are `boundary_layers` thick (default 3). DualSPHysics uses one layer (and a
// hollow column): --boundary-layers 1 gives its particle counts (1.044M at dp = 4.5 mm against
// 1.04M), which the side-by-side benchmark uses; that layout leaks under the impact on the
// column: at dp = 6 mm a particle ran away without DualSPHysics's density limits (set here,
// 700..1300 kg/m^3), and with them 0.4% of the fluid is removed by t = 0.8 s (three layers:
// none; docs/SPH.md).
Scene dam_break_obstacle(const SceneOptions& o) {
    Scene s;
    SphParams& p = s.params;
    p.dx_m = o.dx_m > 0.0f ? o.dx_m : 0.01f;
    p.kernel = KernelKind::cubic_spline;
    set_smoothing(p, o, 1.0f);
    p.alpha = 0.1f;
    p.diffusion = DensityDiffusion::fourtakas;
    p.diffusion_delta = 0.1f;
    p.c0 = o.c0 > 0.0f ? o.c0 : 20.0f * std::sqrt(9.81f * 0.3f);
    p.cfl = 0.2f;
    p.integrator = Integrator::verlet;
    p.shepard_every = 0;
    p.density_min = 700.0f;  // DualSPHysics's RhopOut
    p.density_max = 1300.0f;
    const Vec3f tank{1.6f, 0.4f, 0.67f};
    const float dx = p.dx_m;
    const int layers = wall_layers(o);
    const float t = float(layers) * dx;
    p.domain_min = {-t, -t, -t};
    p.domain_max = {tank.x + t, tank.y + 0.1f, tank.z + t};
    p.faces = {Face::wall, Face::wall, Face::wall, Face::open, Face::wall, Face::wall};
    const Vec3f obstacle_lo{0.9f, 0.0f, 0.24f}, obstacle_hi{1.02f, 0.45f, 0.36f};
    fill(s.particles, {0.0f, 0.0f, 0.0f}, {0.4f, 0.3f, tank.z}, dx, ParticleKind::fluid, p.rho0, p.lattice_mass_kg());
    tank_walls(s.particles, tank, dx, p.rho0, true, true, layers);
    fill(s.particles, obstacle_lo, obstacle_hi, dx, ParticleKind::boundary, p.rho0, p.lattice_mass_kg(), [&](Vec3f q) {
        return q.x < obstacle_lo.x + t || q.x > obstacle_hi.x - t || q.z < obstacle_lo.z + t ||
               q.z > obstacle_hi.z - t || q.y > obstacle_hi.y - t;
    });
    set_boundary_normals(s.particles, p.dx_m, [&](Vec3f q) {
        const bool column = q.x > obstacle_lo.x && q.x < obstacle_hi.x && q.z > obstacle_lo.z && q.z < obstacle_hi.z &&
                            q.y > obstacle_lo.y && q.y < obstacle_hi.y;
        // The column stands on the floor: every face but its foot is wetted.
        return column ? to_solid_surface(q, obstacle_lo, obstacle_hi, 0b111011u)
                      : to_fluid_box(q, {0.0f, 0.0f, 0.0f}, {tank.x, kUnbounded, tank.z});
    });
    if (o.hydrostatic) set_hydrostatic_density(s.particles, p, 0.3f);
    return s;
}

// A height field sampled from f(x, z) on the domain's x-z extent.
HeightField sample_terrain(const SphParams& p, float cell, const std::function<float(float, float)>& f) {
    HeightField t;
    t.cell_m = cell;
    t.x0_m = p.domain_min.x;
    t.z0_m = p.domain_min.z;
    t.nx = int(std::ceil((p.domain_max.x - p.domain_min.x) / cell)) + 1;
    t.nz = int(std::ceil((p.domain_max.z - p.domain_min.z) / cell)) + 1;
    t.height_m.resize(std::size_t(t.nx) * std::size_t(t.nz));
    for (int k = 0; k < t.nz; ++k)
        for (int i = 0; i < t.nx; ++i) t.height_m[std::size_t(k) * t.nx + i] = f(t.x0_m + i * cell, t.z0_m + k * cell);
    return t;
}

// The ground height at (x, z) as the solver's boundary volumes sample it.
float terrain_at(const SphParams& p, float x, float z) {
    float dhdx, dhdz;
    return terrain_view(p.terrain.height_m.data(), p.terrain, p.terrain_contact.tile_m).height_at(x, z, dhdx, dhdz);
}

// A coastal section of the size of Werner (2015)'s single-GPU test scene, ~200 x 110 x 200 m: a
// beach rising along x from a sea floor, water to 60 m, a wave maker at x-. Werner's terrain is
// not published; this one holds 6,076,294 particles at dx = 0.55 m, where Werner's held
// 3,972,734 (tests/cli/documented.sh checks the count at dx 1.1 m: 767,471).
Scene coastal(const SceneOptions& o) {
    Scene s;
    SphParams& p = s.params;
    p.dx_m = o.dx_m > 0.0f ? o.dx_m : 0.55f;
    set_smoothing(p, o);
    // Werner (2015) ran c0 = 100 m/s (--c0 100); for 40 m of water that lets the density vary by
    // 6%, so the default is 10 x the largest free-fall speed.
    p.c0 = default_c0(o, std::sqrt(2.0f * 9.81f * 40.0f));
    p.domain_min = {0.0f, 0.0f, 0.0f};
    p.domain_max = {200.0f, 110.0f, 200.0f};
    p.faces = {Face::wall, Face::wall, Face::wall, Face::open, Face::wall, Face::wall};
    p.wave_maker = {0, 4.0f, 8.0f};
    const float water = 60.0f;
    // Flat floor at 20 m for x < 80 m, then a 1:2.5 beach with a gentle swell along z.
    p.terrain = !o.terrain.empty() ? o.terrain : sample_terrain(p, 2.0f, [](float x, float z) {
        const float beach = x < 80.0f ? 20.0f : 20.0f + (x - 80.0f) * 0.4f;
        return beach + 3.0f * std::sin(z * 0.05f);
    });
    p.terrain_contact.tile_m = o.terrain_tile_m;
    fill(s.particles, p.domain_min, {p.domain_max.x, water, p.domain_max.z}, p.dx_m, ParticleKind::fluid, p.rho0,
         p.lattice_mass_kg(), [&](Vec3f q) { return q.y > terrain_at(p, q.x, q.z) + 0.5f * p.dx_m; });
    set_hydrostatic_density(s.particles, p, water);  // the sea starts at rest
    return s;
}

// The shape of Werner (2015)'s cluster benchmark (a plane inclined along z, about half flooded,
// sliced across GPUs along z; its dimensions are not published), as a scalable case: a 4 x 3 x
// 8 m box whose floor rises 1 m per 4 m along z, water to 1 m. 60,800 particles at the default
// dx = 0.05 m; halving dx gives 8 times as many (0.025 m: 499,200; 0.0125 m: 4,044,800).
Scene inclined_plane(const SceneOptions& o) {
    Scene s;
    SphParams& p = s.params;
    p.dx_m = o.dx_m > 0.0f ? o.dx_m : 0.05f;
    set_smoothing(p, o);
    const Vec3f size{4.0f, 3.0f, 8.0f};
    p.c0 = o.c0 > 0.0f ? o.c0 : 10.0f * std::sqrt(2.0f * 9.81f * size.y);
    p.domain_min = {0.0f, 0.0f, 0.0f};
    p.domain_max = size;
    p.faces = {Face::wall, Face::wall, Face::wall, Face::open, Face::wall, Face::wall};
    // A plane: 2 x 2 samples are exact for the bilinear interpolation.
    p.terrain = !o.terrain.empty() ? o.terrain : sample_terrain(p, size.z, [](float, float z) { return 0.25f * z; });
    p.terrain_contact.tile_m = o.terrain_tile_m;
    const float water = 1.0f;
    fill(s.particles, p.domain_min, {size.x, water, size.z}, p.dx_m, ParticleKind::fluid, p.rho0, p.lattice_mass_kg(),
         [&](Vec3f q) { return q.y > terrain_at(p, q.x, q.z) + 0.5f * p.dx_m; });
    return s;
}

// The domain over a loaded terrain: its x-z extent, from headroom_m below its lowest point to
// headroom_m above its highest; walls on the sides, the top open.
void domain_over_terrain(SphParams& p, const HeightField& t, float headroom_m) {
    if (t.empty()) throw UsageError("this scene needs a terrain (--terrain; examples/avalanche ships one)");
    const auto [lo, hi] = std::minmax_element(t.height_m.begin(), t.height_m.end());
    p.terrain = t;
    p.domain_min = {t.x0_m, *lo - headroom_m, t.z0_m};
    p.domain_max = {t.x0_m + float(t.nx - 1) * t.cell_m, *hi + headroom_m, t.z0_m + float(t.nz - 1) * t.cell_m};
    p.faces = {Face::wall, Face::wall, Face::wall, Face::open, Face::wall, Face::wall};
}

// The release zone x0, z0, x1, z1 of the options, else `fallback`; inside the domain.
std::array<float, 4> release_zone(const SceneOptions& o, const SphParams& p, std::array<float, 4> fallback) {
    const bool given = std::any_of(o.release_m.begin(), o.release_m.end(), [](float v) { return v != 0.0f; });
    const std::array<float, 4> r = given ? o.release_m : fallback;
    if (!(r[0] < r[2] && r[1] < r[3] && r[0] >= p.domain_min.x && r[2] <= p.domain_max.x && r[1] >= p.domain_min.z &&
          r[3] <= p.domain_max.z))
        throw UsageError("the release zone must be x0 < x1, z0 < z1 inside the terrain's extent");
    return r;
}

// A snow slab released on a hillside (Sandvik 2021, chapter 4.4 and 6): h = 0.2 m, particles
// h/2 apart, a slab `thickness` (default 1 m) deep normal to the ground over the release zone
// (default x 25..75 m, z 15..45 m: on the shipped hillside's 35 degree slope, 50 x 30 m of
// ground and 35 m of height); ~1.8M particles. The ground: the penalty law (K_s = 2000 1/s^2,
// K_d = 100 1/s) with friction K_f = 1 1/s within 0.1 m of it.
Scene avalanche(const SceneOptions& o) {
    Scene s;
    SphParams& p = s.params;
    p.dx_m = o.dx_m > 0.0f ? o.dx_m : 0.1f;
    if (o.coefh > 0.0f || o.hdx > 0.0f)
        set_smoothing(p, o);
    else
        p.h_m = 2.0f * p.dx_m;
    // Material: settled snow as a Bingham fluid (docs/SNOW.md), or another snow model by
    // --model: yield stress 1 kPa (a 1 m slab on the 35 degree slope drives 2.25 kPa at its
    // base, so it flows; on ground flatter than about 15 degrees it stops), plastic viscosity
    // 50 Pa s, solid viscosity 500 Pa s below yield.
    p.model = o.model.empty() ? Model::bingham : parse_model(o.model, "--model");
    if (p.model == Model::wcsph)
        throw UsageError("avalanche: a snow model (bingham, herschel-bulkley, power-law, newtonian-muller)");
    p.rheology.mu = 50.0f;
    p.rheology.mu_solid = 500.0f;
    p.rheology.yield_stress = 1000.0f;
    p.rho0 = 400.0f;
    domain_over_terrain(p, o.terrain, 10.0f);
    p.terrain_contact = {TerrainLaw::penalty, 2000.0f, 100.0f, 1.0f, 0.1f, o.terrain_tile_m};
    const auto [x0, z0, x1, z1] = release_zone(o, p, {25.0f, 15.0f, 75.0f, 45.0f});
    const float thickness = o.thickness_m > 0.0f ? o.thickness_m : 1.0f;
    // The speed of a fall from the slab's top to the lowest ground sets c0.
    float top = p.domain_min.y;
    for (float x = x0; x <= x1; x += p.dx_m)
        for (float z = z0; z <= z1; z += p.dx_m) top = std::max(top, terrain_at(p, x, z));
    p.c0 = default_c0(o, std::sqrt(2.0f * 9.81f * (top + thickness - (p.domain_min.y + 10.0f))));
    p.rheology.gas_constant = p.c0 * p.c0;  // the linear equation of state's sound speed is sqrt(k)
    // Lattice points within `thickness` of the ground along its normal, 0.5 dx < (y - ground)
    // n_y <= t, column by column (a steep or tall terrain would make the bounding box huge).
    const TerrainView view = terrain_view(p.terrain.height_m.data(), p.terrain, p.terrain_contact.tile_m);
    const float dx = p.dx_m, mass = muller_lattice_mass(p.rho0, p.dx_m, p.h_m);
    // The count first: each column holds about thickness / (n_y dx) particles, so a steep or
    // mis-scaled terrain (heights in the wrong unit) makes long columns.
    double columns_total = 0.0;
    for (float z = z0 + 0.5f * dx; z < z1; z += dx)
        for (float x = x0 + 0.5f * dx; x < x1; x += dx) {
            float gx, gz;
            view.height_at(x, z, gx, gz);
            columns_total += std::floor(double(thickness) * std::sqrt(1.0 + double(gx) * gx + double(gz) * gz) / dx);
        }
    check_lattice_size(columns_total, 0, dx);
    for (float z = z0 + 0.5f * dx; z < z1; z += dx)
        for (float x = x0 + 0.5f * dx; x < x1; x += dx) {
            float gx, gz;
            const float ground = view.height_at(x, z, gx, gz);
            const float stretch = std::sqrt(1.0f + gx * gx + gz * gz);  // 1 / n_y
            const float first = std::floor((ground + 0.5f * dx * stretch - p.domain_min.y) / dx);
            for (float j = first;; j += 1.0f) {
                const float y = p.domain_min.y + (j + 0.5f) * dx;
                const float above = (y - ground) / stretch;
                if (above > thickness) break;
                if (above > 0.5f * dx) s.particles.add({x, y, z}, {0.0f, 0.0f, 0.0f}, p.rho0, mass, ParticleKind::fluid);
            }
        }
    return s;
}

// Water released at the head of a valley (default x 2..25 m over the whole width, 3 m deep
// above the lowest ground there) runs down it; the shipped valley falls 1 in 10 along x and
// leaves the domain at x+ (open). Newtonian: weakly compressible SPH with laminar viscosity.
Scene river(const SceneOptions& o) {
    Scene s;
    SphParams& p = s.params;
    p.dx_m = o.dx_m > 0.0f ? o.dx_m : 0.2f;
    set_smoothing(p, o);
    p.viscosity = Viscosity::laminar;  // water's, SphParams::laminar_nu
    domain_over_terrain(p, o.terrain, 5.0f);
    p.faces = {Face::wall, Face::open, Face::wall, Face::open, Face::wall, Face::wall};
    p.terrain_contact.tile_m = o.terrain_tile_m;
    const auto [x0, z0, x1, z1] = release_zone(o, p, {p.domain_min.x + 2.0f, p.domain_min.z, p.domain_min.x + 25.0f,
                                                      p.domain_max.z});
    float lowest = p.domain_max.y;
    for (float x = x0; x <= x1; x += p.dx_m)
        for (float z = z0; z <= z1; z += p.dx_m) lowest = std::min(lowest, terrain_at(p, x, z));
    const float level = lowest + (o.thickness_m > 0.0f ? o.thickness_m : 3.0f);
    p.c0 = default_c0(o, std::sqrt(2.0f * 9.81f * (level - (p.domain_min.y + 5.0f))));
    fill(s.particles, {x0, lowest, z0}, {x1, level, z1}, p.dx_m, ParticleKind::fluid, p.rho0, p.lattice_mass_kg(),
         [&](Vec3f q) { return q.y > terrain_at(p, q.x, q.z) + 0.5f * p.dx_m; });
    set_hydrostatic_density(s.particles, p, level);
    return s;
}

enum class HeightImage { png, exr, raw };

// By the first bytes, whatever the file is called: the PNG signature, the OpenEXR magic.
HeightImage height_image_kind(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError("terrain: cannot open " + path + ": " + std::strerror(errno));
    char head[8] = {};
    in.read(head, sizeof head);
    const auto starts_with = [&](std::string_view magic) {
        return std::size_t(in.gcount()) >= magic.size() && std::memcmp(head, magic.data(), magic.size()) == 0;
    };
    if (starts_with("\x89PNG\r\n\x1a\n")) return HeightImage::png;
    if (starts_with("\x76\x2f\x31\x01")) return HeightImage::exr;
    return HeightImage::raw;
}

}  // namespace

HeightField load_height_field(const std::string& path, std::span<const int> raw_size, float cell_m, float scale_m,
                              float offset_m, float x0_m, float z0_m) {
    const HeightImage kind = height_image_kind(path);
    if (kind != HeightImage::raw && !raw_size.empty())
        throw UsageError("terrain: " + path + " is " + (kind == HeightImage::png ? "a PNG" : "an OpenEXR") +
                         " image with its own size; a sample count (--terrain-size) is for raw files");
    if (kind == HeightImage::png) return load_png_height_field(path, cell_m, scale_m, offset_m, x0_m, z0_m);
    if (kind == HeightImage::exr) return load_exr_height_field(path, cell_m, scale_m, offset_m, x0_m, z0_m);
    if (raw_size.size() != 2)
        throw UsageError("terrain: " + path +
                         " is neither PNG nor OpenEXR, so it is raw 16-bit samples: give their count NX,NZ "
                         "(--terrain-size)");
    return load_raw_height_field(path, raw_size[0], raw_size[1], cell_m, scale_m, offset_m, x0_m, z0_m);
}

HeightField load_raw_height_field(const std::string& path, int nx, int nz, float cell_m, float scale_m, float offset_m,
                                  float x0_m, float z0_m) {
    if (nx < 2 || nz < 2 || !(cell_m > 0.0f))
        throw UsageError("terrain: need at least 2 x 2 samples and a positive cell size");
    require_host_memory("--terrain-size " + std::to_string(nx) + "," + std::to_string(nz), double(nx) * double(nz),
                        2.0 + sizeof(float));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError("terrain: cannot open " + path + ": " + std::strerror(errno));
    std::vector<unsigned char> bytes(std::size_t(nx) * std::size_t(nz) * 2);
    in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
    if (std::size_t(in.gcount()) != bytes.size())
        throw IoError("terrain: " + path + " holds fewer than " + std::to_string(nx) + " x " + std::to_string(nz) +
                      " 16-bit samples");
    HeightField t;
    t.nx = nx;
    t.nz = nz;
    t.cell_m = cell_m;
    t.x0_m = x0_m;
    t.z0_m = z0_m;
    t.height_m.resize(std::size_t(nx) * std::size_t(nz));
    for (std::size_t i = 0; i < t.height_m.size(); ++i)
        t.height_m[i] = offset_m + scale_m * float(bytes[2 * i] | (bytes[2 * i + 1] << 8));
    return t;
}

void set_hydrostatic_density(ParticleSet& set, const SphParams& p, float surface_y_m) {
    const TaitEos eos = TaitEos::from_sound_speed(p.rho0, p.c0, p.gamma);
    const float g = std::sqrt(p.gravity.x * p.gravity.x + p.gravity.y * p.gravity.y + p.gravity.z * p.gravity.z);
    for (std::size_t i = 0; i < set.size(); ++i) {
        const float depth = std::max(0.0f, surface_y_m - set.position[i].y);
        set.density[i] = eos.density(p.rho0 * g * depth);
    }
}

// Sandvik (2021)'s pool benchmark (section 6.3): a 150 x 150 x 75 m pool (x, z, y), h = 0.6 m,
// particles h apart and heavy (mass rho0 / W_poly6(0): each at rest density with no neighbour
// inside h, so the neighbour count stays the same at every size), filling layers of 250 x 250
// from the floor: N = 256k ... 4096k (--particles). A snow model (--model; default the Newtonian
// one). The rheology's defaults are those of docs/SNOW.md: mu 1 Pa s, mu_s 500 Pa s, tau_y
// 100 Pa, n 1; the gas constant gives a sound speed of 10 x the free-fall speed from the fill
// height.
Scene pool(const SceneOptions& o) {
    Scene s;
    SphParams& p = s.params;
    p.model = o.model.empty() ? Model::newtonian_muller : parse_model(o.model, "--model");
    if (p.model == Model::wcsph) throw UsageError("pool: a snow model (newtonian-muller, bingham, herschel-bulkley, power-law)");
    p.h_m = 0.6f;
    p.dx_m = o.dx_m > 0.0f ? o.dx_m : p.h_m;
    p.domain_min = {0.0f, 0.0f, 0.0f};
    p.domain_max = {150.0f, 75.0f, 150.0f};
    p.faces = {Face::wall, Face::wall, Face::wall, Face::open, Face::wall, Face::wall};
    const std::int64_t n = o.particles > 0 ? o.particles : 1024000;
    const int per_row = int(std::floor(150.0f / p.dx_m));
    const std::int64_t per_layer = std::int64_t(per_row) * per_row;
    const std::int64_t layers = (n + per_layer - 1) / per_layer;
    const float fill_height = float(layers) * p.dx_m;
    if (fill_height > 75.0f) throw UsageError("pool: " + std::to_string(n) + " particles do not fit at dx " + format_g(p.dx_m));
    Rheology& r = p.rheology;
    r.mu = 1.0f;
    r.mu_solid = 500.0f;
    r.yield_stress = 100.0f;
    const float c = 10.0f * std::sqrt(2.0f * 9.81f * fill_height);
    r.gas_constant = c * c;
    const float m = muller_lattice_mass(p.rho0, p.dx_m, p.h_m);
    for (std::int64_t k = 0; k < n; ++k) {
        const std::int64_t layer = k / per_layer, in_layer = k % per_layer;
        const float x = (float(in_layer % per_row) + 0.5f) * p.dx_m, z = (float(in_layer / per_row) + 0.5f) * p.dx_m;
        s.particles.add({x, (float(layer) + 0.5f) * p.dx_m, z}, {0.0f, 0.0f, 0.0f}, p.rho0, m, ParticleKind::fluid);
    }
    return s;
}

const std::vector<SceneInfo>& scene_list() {
    static const std::vector<SceneInfo> list{
        {"dam-break", "Martin & Moyce (1952) n^2=2 column collapse, quasi-2D (--width a, default 0.05715 m)"},
        {"dam-break-obstacle", "DualSPHysics's 3D dam break against a square column (tank 1.6 x 0.4 x 0.67 m)"},
        {"still-tank", "water at rest in a tank, hydrostatic start (--width = depth, default 0.1 m; --periodic)"},
        {"box", "a block of fluid (--box) in a domain of repulsive walls (--domain)"},
        {"sphere", "a ball of fluid (--center, --radius) in a domain of repulsive walls (--domain)"},
        {"column", "a vertical cylinder of fluid on the floor (--center x,_,z, --radius, --height)"},
        {"coastal", "a coastal section like Werner (2015)'s: 200 x 110 x 200 m, terrain, wave maker; 6.08M particles at dx 0.55 m"},
        {"inclined-plane", "a 4 x 3 x 8 m box, floor rising along z, water to 1 m: 60,800 particles at dx 0.05 m, x8 per halving of --dx"},
        {"avalanche", "a snow slab released on a hillside (--terrain, --release, --thickness), h = 0.2 m"},
        {"river", "water released at the head of a valley (--terrain, --release, --thickness) runs down it"},
        {"pool", "Sandvik (2021)'s pool: 150 x 150 x 75 m, h 0.6 m, --particles N (default 1024000), --model"},
    };
    return list;
}

Scene make_scene(std::string_view name, const SceneOptions& o) {
    if (o.dx_m < 0.0f || o.width_m < 0.0f || o.hdx < 0.0f || o.coefh < 0.0f)
        throw UsageError("dx, width, hdx and coefh must not be negative");
    Scene s;
    if (name == "dam-break")
        s = dam_break(o);
    else if (name == "dam-break-obstacle")
        s = dam_break_obstacle(o);
    else if (name == "still-tank")
        s = still_tank(o);
    else if (name == "box")
        s = box(o);
    else if (name == "sphere")
        s = sphere(o);
    else if (name == "column")
        s = column(o);
    else if (name == "coastal")
        s = coastal(o);
    else if (name == "inclined-plane")
        s = inclined_plane(o);
    else if (name == "avalanche")
        s = avalanche(o);
    else if (name == "river")
        s = river(o);
    else if (name == "pool")
        s = pool(o);
    else
        throw UsageError("unknown scene '" + std::string(name) + "' (sph-init --list shows them)");
    if (s.particles.size() == 0) throw UsageError("scene '" + std::string(name) + "' has no particles at this dx");
    validate(s.params);
    return s;
}

}  // namespace partikel::sph
