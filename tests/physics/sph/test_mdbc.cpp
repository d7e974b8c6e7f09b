// Modified dynamic boundary conditions (docs/SPH.md, "Boundaries"): still water on an mdbc floor.
//
// Reference: hydrostatics. The floor's top layer of boundary particles lies dx/2 below the wall
// surface (y = 0), so mdbc, which extrapolates the fluid's density to it, must give it
// P = rho0 |g| (H + dx/2), H the depth of the water (the weight per area is rho0 |g| H0 exactly,
// H0 the initial depth, and the density differs from rho0 by 0.5% at most). Pressures are averaged
// over the floor's top layer and over the last 0.1 s (the acoustic ringing that alpha = 0.01
// damps slowly). The fluid must stay off the wall: no particle nearer the surface than dx/2 (its
// lattice position), up to the compression of the bottom layer.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "sph/eos.hpp"
#include "sph/io/scenes.hpp"
#include "sph/solver.hpp"

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

}  // namespace

TEST_CASE("still water on an mdbc floor: hydrostatic wall pressure, no particle nearer than dx/2") {
    // Two layers: the full kernel support of h = 1.5 dx (docs/SPH.md: one layer does not hold).
    const FloorResult r = still_water_on_mdbc(2, 0.2, 0.1);
    const double error = std::fabs(r.floor_pressure_Pa / r.expected_Pa - 1.0);
    MESSAGE("floor pressure ", r.floor_pressure_Pa, " Pa against rho0 g (H + dx/2) = ", r.expected_Pa, " Pa (",
            100.0 * error, "%); nearest fluid particle ", r.nearest_fluid_m / 0.005, " dx above the wall; max speed ",
            r.max_speed, " m/s");
    CHECK(error < 0.01);
    CHECK(r.nearest_fluid_m >= 0.49 * 0.005);
    CHECK(r.removed == 0);
    CHECK(r.max_speed < 0.01);
}
