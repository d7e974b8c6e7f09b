// SPH parameters <-> frame attributes ("sph.h", "sph.c0", ..., "domain.min", "domain.max"), so
// that sph-step continues from sph-init's output or from one of its own frames. A terrain's
// heights travel as the held group "terrain" (column "height", f32, m; formats/held.hpp), stored
// once per file, its size and placement as "sph.terrain.*" attributes.
#pragma once

#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "formats/frame.hpp"
#include "sph/params.hpp"

namespace partikel::sph {

inline constexpr std::string_view kTerrainGroup = "terrain";

void write_attributes(const SphParams& params, fmt::Frame& frame);
// Reads every "sph.*" attribute present, keeping `defaults` for the rest. FormatError for an
// attribute of the wrong type.
SphParams read_attributes(const fmt::Frame& frame, SphParams defaults = {});

// Parameters given on a command line over those a frame carries: each set field replaces the
// frame's value (sph-step's physics and boundary flags).
struct SphParamOverrides {
    std::optional<float> alpha, c0, cfl, laminar_nu, xsph, delta, wall_stiffness, wall_damping;
    std::optional<float> wave_amplitude, wave_period, dt_max;
    std::optional<std::string> terrain_law;
    std::optional<float> terrain_stiffness, terrain_damping, terrain_friction, terrain_friction_height, terrain_tile;
    std::optional<int> shepard_every, verlet_euler_every, wave_face;
    std::optional<std::string> kernel, density, diffusion, integrator, faces, viscosity;
    std::optional<float> sps_cs, sps_ci;
    std::optional<std::string> boundary, boundary_velocity;  // BoundaryScheme, BoundaryVelocity
    std::vector<float> gravity, density_limits;  // 3 and 2 values when given
    // The snow models (SphParams::model, Rheology) and a fixed time step.
    std::optional<std::string> model, stress_form;
    std::optional<float> dt, gas_constant, mu, mu_solid, yield_stress, power_n, xsph_phi, max_speed, max_acceleration,
        mode_control;

    // UsageError for a name that parses to nothing (kernel, integrator, ...).
    void apply(SphParams& params) const;
};

}  // namespace partikel::sph
