// Comparisons of particle sets shared by the SPH unit tests.
#pragma once

#include <cstddef>

#include "sph/particles.hpp"

namespace partikel::sph {

// Same ids, positions, velocities and densities, bit for bit (restarts must continue exactly).
inline bool bit_identical(const ParticleSet& a, const ParticleSet& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a.id[i] != b.id[i] || a.density[i] != b.density[i]) return false;
        for (int k = 0; k < 3; ++k)
            if (a.position[i][k] != b.position[i][k] || a.velocity[i][k] != b.velocity[i][k]) return false;
    }
    return true;
}

}  // namespace partikel::sph
