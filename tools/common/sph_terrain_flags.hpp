// The terrain contact flags of sph-init and sph-step (docs/SPH.md, "Terrain"): each given flag
// replaces the scene's or the frame's value.
#pragma once

#include <CLI/CLI.hpp>

#include "common/number_checks.hpp"
#include "sph/io/params_io.hpp"

namespace partikel::tools {

inline void add_terrain_contact_flags(CLI::App& app, sph::SphParamOverrides& o, bool with_tile) {
    const char* group = "Terrain contact";
    app.add_option("--terrain-law", o.terrain_law, "repulsive (the walls' law) or penalty (Sandvik 2021)")->group(group);
    app.add_option("--terrain-stiffness", o.terrain_stiffness, "Penalty K_s [1/s^2] (default 2000)")
        ->check(finite_non_negative())
        ->group(group);
    app.add_option("--terrain-damping", o.terrain_damping, "Penalty K_d [1/s] (default 100)")
        ->check(finite_non_negative())
        ->group(group);
    app.add_option("--terrain-friction", o.terrain_friction, "Friction K_f [1/s] (0: none)")
        ->check(finite_non_negative())
        ->group(group);
    app.add_option("--terrain-friction-height", o.terrain_friction_height, "Friction within this height of the ground [m]")
        ->check(finite_non_negative())
        ->group(group);
    if (with_tile)
        app.add_option("--terrain-tile", o.terrain_tile, "Sample the terrain in tiles of this edge [m] (0: bilinear)")
            ->check(finite_non_negative())
            ->group(group);
}

}  // namespace partikel::tools
