// N-body state <-> the common frame model (formats/frame.hpp): one group "bodies" with the
// well-known columns position (f32 x 3), velocity (f32 x 3), mass (f32), id (u64), and on request
// acceleration (f32 x 3) and potential (f32, per unit mass); each column carries the unit of
// the run's unit system (none in N-body units). Parameters travel as "nbody.*" attributes
// (docs/NBODY.md lists them); the frame's time is in the model time unit, time_unit_si seconds
// per unit in astro units (1 in N-body units, which have no SI meaning).
#pragma once

#include <cstdint>
#include <vector>

#include "base/vec.hpp"
#include "formats/frame.hpp"
#include "nbody/bodies.hpp"
#include "nbody/params.hpp"

namespace partikel::nbody {

inline constexpr const char* kBodiesGroup = "bodies";

void write_attributes(const NbodyParams& params, fmt::Frame& frame);
// `defaults` overridden by the frame's nbody.* attributes; FormatError for a wrong type or an
// unknown value, UsageError (from validate) for values out of range.
NbodyParams read_attributes(const fmt::Frame& frame, const NbodyParams& defaults = {});

// A frame of `bodies`; with `accelerations` ((a, phi) per body) also the acceleration column, and
// with `with_potential` the potential column from their w.
fmt::Frame make_frame(const Bodies& bodies, const NbodyParams& params, std::int64_t step, double time, double dt,
                      const std::vector<Vec4f>* accelerations = nullptr, bool with_potential = false);

struct StartState {
    Bodies bodies;
    NbodyParams params;
    std::int64_t step = 0;
    double time = 0.0;  // model time unit
};

// The bodies and parameters of a frame to start a run from. Needs the group "bodies" with
// position and mass columns (f32 or f64), at least two bodies, finite positions, velocities and
// masses, masses >= 0 with a positive total; velocity defaults to 0 and id to the row. A column
// in SI units is converted into the model unit of the frame's unit system (from its attributes
// over `defaults`); an SI column cannot enter N-body units. FormatError naming the group, column
// and row otherwise.
StartState read_start(const fmt::Frame& frame, const NbodyParams& defaults = {});

}  // namespace partikel::nbody
