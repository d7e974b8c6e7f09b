// Bodies on the host: what initial conditions build, what a frame holds and what the solver
// uploads and downloads. Positions and velocities are double: the solver integrates in double
// precision (forces are single precision), see docs/NBODY.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/vec.hpp"

namespace partikel::nbody {

struct Bodies {
    std::vector<Vec3d> position;  // model length unit
    std::vector<Vec3d> velocity;  // model velocity unit
    std::vector<double> mass;     // model mass unit, >= 0
    std::vector<std::uint64_t> id;

    std::size_t size() const { return position.size(); }
    void resize(std::size_t n) {
        position.resize(n);
        velocity.resize(n);
        mass.resize(n);
        id.resize(n);
    }
};

// UsageError when the arrays differ in length, there are no bodies, a position, velocity or
// mass is not finite, a mass is negative or all masses are zero. Names the first bad body.
// A rank's share of the bodies (`whole` false) may be empty or massless.
void validate(const Bodies& bodies, bool whole = true);

// Centre of mass and the total momentum moved to zero (both in double).
void move_to_centre_of_mass_frame(Bodies& bodies);

}  // namespace partikel::nbody
