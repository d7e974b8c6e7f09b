// The N-body solver's per-body state, defined once (core/fields.hpp): every per-body array the
// solver holds on the device, and what happens to it when the bodies are reordered along the
// tree's curve (every step), written to frames and restored on restart. Values are in the run's
// model units (nbody/units.hpp); frames (nbody/io/frame_io.hpp) give them the run's units.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/units.hpp"
#include "core/fields.hpp"

namespace partikel::nbody {

namespace field {
enum : int {
    // The state, integrated in double precision (docs/NBODY.md).
    position,      // model length
    velocity,      // model velocity
    mass,          // model mass
    id,            // the body's identity, kept through reorders and restarts
    // (x, y, z, m) in single precision: what the force sums read, derived from position and
    // mass by the reorder (or by the drift, for the direct sum, which never reorders).
    body,
    // The force evaluations: (a, 0) of the step's, and (a, phi) of the potential pass.
    acceleration,  // model acceleration
    potential,     // (model acceleration, model potential per unit mass)
    count
};
}  // namespace field

inline constexpr unsigned kStateFlags = kFieldGather | kFieldCompact | kFieldWrite | kFieldRestore;

inline constexpr FieldSpec kNbodyFields[field::count] = {
    {"position", ScalarType::f64, 3, units::none, kStateFlags},
    {"velocity", ScalarType::f64, 3, units::none, kStateFlags},
    {"mass", ScalarType::f32, 1, units::none, kStateFlags},
    {"id", ScalarType::u64, 1, units::none, kStateFlags},
    {"body", ScalarType::f32, 4, units::none, 0},
    // Both are recomputed after every reorder: a step's forces follow its reorder, and the
    // potential pass runs on the state it describes.
    {"acceleration", ScalarType::f32, 4, units::none, kFieldScratch},
    {"potential", ScalarType::f32, 4, units::none, kFieldScratch},
};

inline constexpr std::uint64_t kAllFields = (std::uint64_t{1} << field::count) - 1;

// Bytes of a body that moves to another rank: the fields kept across reorders.
inline std::size_t migrating_bytes() {
    std::size_t bytes = 0;
    for (const FieldSpec& f : kNbodyFields)
        if (f.flags & kFieldGather) bytes += field_element_bytes(f);
    return bytes;
}

}  // namespace partikel::nbody
