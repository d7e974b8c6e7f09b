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
};

fmt::Frame make_frame(const ParticleSet& particles, const BeamParameters& parameters, std::int64_t turn, double time_s);
void add_beam_attributes(const BeamParameters& parameters, fmt::Frame& frame);

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
