// Beams <-> the common frame model (formats/frame.hpp): group "beam" with one column per field
// of pic/beam.hpp (x, xp, y, yp, z, delta as f64 in m and rad; id; particleStatus, openPMD's
// beam-physics record, 1 alive and 0 lost; lost_turn, lost_element), and the run's parameters
// as "pic.*" attributes, so that a frame restarts a run. Frame step = turn, time in seconds.
#pragma once

#include <cstdint>
#include <optional>

#include "formats/frame.hpp"
#include "pic/beam.hpp"
#include "pic/reference.hpp"

namespace partikel::pic::io {

inline constexpr const char* kBeamGroup = "beam";

// What a frame records besides the particles.
struct BeamParameters {
    ParticleSpecies species;
    double intensity = 0.0;  // ions the macroparticles stand for
    bool coasting = true;
    double circumference_m = 0.0;
    // Also the records of openPMD's beam-physics extension (Mayes et al., openPMD-beamphysics,
    // 2020), derived from the trace-space columns: position (x, y, z; m), momentum (p_x, p_y,
    // p_z; kg m/s, with |p| = p0 (1 + delta) and x' = p_x / p_z, y' = p_y / p_z) and weight (ions
    // per macroparticle), so that an HDF5 frame reads as a beam-physics particle group.
    bool beam_physics_records = false;
};

fmt::Frame make_frame(const ParticleSet& particles, const BeamParameters& parameters, std::int64_t turn, double time_s);
void add_beam_attributes(const BeamParameters& parameters, fmt::Frame& frame);
// The beam-physics records of a group that holds the trace-space columns (see above).
void add_beam_physics_records(const BeamParameters& parameters, fmt::Group& beam);

struct StartState {
    ParticleSet particles;
    std::optional<BeamParameters> parameters;  // when the frame has the pic.* attributes
    std::int64_t turn = 0;
    double time_s = 0.0;
};

// Group "beam" is required with x, xp, y, yp, z, delta (any float type); id defaults to the
// row, particleStatus to alive, lost_turn and lost_element to -1. FormatError naming the column
// for anything missing or malformed.
StartState read_frame(const fmt::Frame& frame);

}  // namespace partikel::pic::io
