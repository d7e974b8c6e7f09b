// Modified dynamic boundary conditions (docs/SPH.md, "Boundaries"): still water on an mdbc floor.
//
// Reference: hydrostatics. The floor's top layer of boundary particles lies dx/2 below the wall
// surface (y = 0), so mdbc, which extrapolates the fluid's density to it, must give it
// P = rho0 |g| (H + dx/2), H the depth of the water (the weight per area is rho0 |g| H0 exactly,
// H0 the initial depth, and the density differs from rho0 by 0.5% at most). Pressures are averaged
// over the floor's top layer and over the last 0.1 s (the acoustic ringing that alpha = 0.01
// damps slowly). The fluid must stay off the wall: no particle nearer the surface than dx/2 (its
// lattice position), up to the compression of the bottom layer.
//
// The dam break with an obstacle (sph-init dam-break-obstacle) at DualSPHysics's layout, one layer
// of wall particles and a hollow column of one layer: with mdbc no fluid particle may leave the
// tank or enter the column past their wall particles (dx/2 behind the wall surfaces: the depth
// past the surfaces is reported), none may be removed by the density
// limits, and the speeds near the column must stay physical: at most the dam-break front's
// 2 sqrt(g H) = 3.4 m/s (Ritter's solution, H = 0.3 m) with a margin for the impact's jets.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "sph/eos.hpp"
#include "sph/io/scenes.hpp"
#include "sph/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

struct FloorResult {
    double floor_pressure_Pa = 0.0;   // time mean over the floor's top layer
    double expected_Pa = 0.0;         // rho0 |g| (H0 + dx/2)
    double nearest_fluid_m = 1e30;    // smallest height of a fluid particle above the wall surface
    double max_speed = 0.0;           // m/s at the end
    std::uint64_t removed = 0;
};

// The periodic still tank (floor only) of depth 0.1 m at dx = 5 mm, walls of `layers` layers.
FloorResult still_water_on_mdbc(int layers, double settle_s, double average_s) {
    SceneOptions o;
    o.width_m = 0.1f;
    o.dx_m = 0.005f;
    o.periodic = true;
    o.boundary_layers = layers;
    Scene scene = make_scene("still-tank", o);
    SphParams& p = scene.params;
    p.boundary = BoundaryScheme::mdbc;
    const TaitEos eos = TaitEos::from_sound_speed(p.rho0, p.c0, p.gamma);
    Solver solver(Backend::cpu(0), p, scene.particles);
    FloorResult r;
    r.expected_Pa = double(p.rho0) * 9.81 * (double(o.width_m) + 0.5 * double(o.dx_m));
    double sum_P = 0.0;
    std::size_t samples = 0;
    while (solver.time() < settle_s + average_s) {
        solver.step();
        if (solver.step_count() % 20 != 0) continue;
        const ParticleSet out = solver.download();
        for (std::size_t i = 0; i < out.size(); ++i) {
            const double y = out.position[i].y;
            if (out.kind[i] == ParticleKind::fluid) {
                r.nearest_fluid_m = std::min(r.nearest_fluid_m, y);
            } else if (solver.time() >= settle_s && y > -double(o.dx_m)) {
                sum_P += eos.pressure(out.density[i]);
                ++samples;
            }
        }
    }
    r.floor_pressure_Pa = sum_P / double(samples);
    r.max_speed = solver.diagnostics().max_speed;
    r.removed = solver.removed();
    return r;
}

void check_still_water(int layers) {
    const FloorResult r = still_water_on_mdbc(layers, 0.2, 0.1);
    const double error = std::fabs(r.floor_pressure_Pa / r.expected_Pa - 1.0);
    MESSAGE(layers, " layer(s): floor pressure ", r.floor_pressure_Pa, " Pa against rho0 g (H + dx/2) = ",
            r.expected_Pa, " Pa (", 100.0 * error, "%); nearest fluid particle ", r.nearest_fluid_m / 0.005,
            " dx above the wall; max speed ", r.max_speed, " m/s");
    CHECK(error < 0.01);
    CHECK(r.nearest_fluid_m >= 0.49 * 0.005);
    CHECK(r.removed == 0);
    CHECK(r.max_speed < 0.01);
}

}  // namespace

// One layer: the virtual layers behind it complete the kernel's support (without them the first
// fluid layer sank a full spacing into the floor by 0.4 s; docs/SPH.md).
TEST_CASE("still water on an mdbc floor of one layer: hydrostatic wall pressure, no particle nearer than dx/2") {
    check_still_water(1);
}

// Two layers, the second within the support of h = 1.5 dx, the virtual layer behind it the rest.
TEST_CASE("still water on an mdbc floor of two layers: hydrostatic wall pressure, no particle nearer than dx/2") {
    check_still_water(2);
}

namespace {

struct ObstacleRun {
    double tank_depth_dx = 0.0;    // deepest a fluid particle went past a tank wall's surface, in dx
    double column_depth_dx = 0.0;  // ... into the column's box
    double max_speed = 0.0;        // m/s, every fluid particle
    double column_speed = 0.0;     // m/s, fluid particles within 2h of the column's box
    std::uint64_t removed = 0;
    std::size_t fluid = 0;
};

ObstacleRun dam_break_obstacle_one_layer(const Backend& backend, float dx, double t_end) {
    SceneOptions o;
    o.dx_m = dx;
    o.boundary_layers = 1;
    Scene scene = make_scene("dam-break-obstacle", o);
    scene.params.boundary = BoundaryScheme::mdbc;
    const Vec3f tank{1.6f, 0.4f, 0.67f}, column_lo{0.9f, 0.0f, 0.24f}, column_hi{1.02f, 0.45f, 0.36f};
    const float reach = 2.0f * scene.params.h_m;
    Solver solver(backend, scene.params, scene.particles);
    ObstacleRun r;
    r.fluid = scene.particles.count(ParticleKind::fluid);
    while (solver.time() < t_end) {
        solver.step();
        if (solver.step_count() % 10 != 0) continue;
        const ParticleSet out = solver.download();
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (out.kind[i] != ParticleKind::fluid) continue;
            const Vec3f q = out.position[i];
            const double past_tank = std::max({-q.x, q.x - tank.x, -q.y, -q.z, q.z - tank.z});
            r.tank_depth_dx = std::max(r.tank_depth_dx, past_tank / dx);
            // Inside the column's box: the distance to its nearest face.
            const double inside = std::min({q.x - column_lo.x, column_hi.x - q.x, q.z - column_lo.z, column_hi.z - q.z,
                                            column_hi.y - q.y});
            r.column_depth_dx = std::max(r.column_depth_dx, inside / dx);
            const double speed = norm(out.velocity[i]);
            r.max_speed = std::max(r.max_speed, speed);
            const bool near_column = q.x > column_lo.x - reach && q.x < column_hi.x + reach &&
                                     q.z > column_lo.z - reach && q.z < column_hi.z + reach && q.y < column_hi.y + reach;
            if (near_column) r.column_speed = std::max(r.column_speed, speed);
        }
    }
    r.removed = solver.removed();
    MESSAGE("dam break with obstacle, one layer, mdbc, dx = ", dx, " m, to t = ", solver.time(), " s: ", r.removed,
            " of ", r.fluid, " fluid particles removed; deepest past a tank wall's surface ", r.tank_depth_dx,
            " dx, into the column's box ", r.column_depth_dx, " dx; speeds up to ", r.max_speed, " m/s, ",
            r.column_speed, " m/s near the column");
    return r;
}

// Crossing a wall: passing its particles, which lie dx/2 behind its surface.
void check_obstacle(const ObstacleRun& r) {
    CHECK(r.removed == 0);
    CHECK(r.tank_depth_dx < 0.5);
    CHECK(r.column_depth_dx < 0.5);
    CHECK(r.column_speed < 4.0);
}

// The requirement at the spacing 2 CPU cores afford (5,000 steps), and on the GPU at
// DualSPHysics's own (4.5 mm, 1.04M particles, about 33,000 steps). At 3 cm it holds from the
// penetration barrier on (docs/SPH.md, "Penetration barrier"); before, one fluid particle
// downstream of the column sank into the floor from t = 1.0 s and ran away at t = 1.36 s. At
// 4.5 mm no particle is removed or crosses a wall, but a splash near the column reaches 7.9 m/s
// against the 4 m/s asked (one H200, 2026-11-28): marked should_fail, so that the gpu suite keeps
// reporting every other result; when it holds, doctest reports the case as failed and the mark goes.
void obstacle_run(const Backend& backend, float dx) { check_obstacle(dam_break_obstacle_one_layer(backend, dx, 1.5)); }

}  // namespace

#define PK_OBSTACLE_NAME "dam break with obstacle, one layer of mdbc walls: no fluid crosses a wall or is removed to t = 1.5 s"
TEST_CASE(PK_OBSTACLE_NAME " [cpu, dx = 3 cm]" * doctest::test_suite("slow")) { obstacle_run(Backend::cpu(0), 0.03f); }
TEST_CASE(PK_OBSTACLE_NAME " [cuda, dx = 3 cm]" * doctest::test_suite("gpu")) { obstacle_run(test::cuda_backend(), 0.03f); }
TEST_CASE(PK_OBSTACLE_NAME " [cuda, dx = 4.5 mm, 1.04M particles]" * doctest::test_suite("gpu") *
          doctest::should_fail()) {
    obstacle_run(test::cuda_backend(), 0.0045f);
}
