// Initial macroparticle distributions (the init_pic_xy choices of PATRIC): waterbag, KV,
// semi-Gaussian and Gaussian in the transverse planes, matched to the lattice's Twiss functions
// and dispersion at s = 0 (or mismatched on purpose); coasting or bunched longitudinally.
// The moments of each: docs/PIC.md, "Beam".
#pragma once

#include <cstddef>
#include <cstdint>

#include "pic/beam.hpp"
#include "pic/optics.hpp"
#include "pic/reference.hpp"

namespace partikel::pic {

enum class Distribution { waterbag, kv, semi_gaussian, gaussian };
enum class Longitudinal { coasting, elliptic, gaussian };

inline constexpr double kMmMrad = 1e-6;  // one mm mrad in m rad

struct BeamSpec {
    ParticleSpecies species;
    double intensity = 2e11;                  // ions in the ring (coasting) or in the bunch
    std::size_t macroparticles = 100000;
    Distribution transverse = Distribution::waterbag;
    double emittance_x_m = 12.5 * kMmMrad;    // rms, m rad
    double emittance_y_m = 12.5 * kMmMrad;
    double mismatch_x = 1.0;                  // rms size / matched rms size (emittance kept)
    double mismatch_y = 1.0;
    double offset_x_m = 0.0, offset_y_m = 0.0;  // centroid
    double momentum_spread = 1e-2;            // rms of delta
    Longitudinal longitudinal = Longitudinal::coasting;
    double bunch_length_m = 0.0;              // bunched: 4 x the rms length
    std::uint64_t seed = 1;
};

// UsageError for non-positive emittances or mismatch factors, a negative spread, or a bunched
// beam without a length. Coasting beams fill [-C/2, C/2) uniformly.
ParticleSet generate_beam(const BeamSpec& spec, const Twiss& start, double circumference_m);

}  // namespace partikel::pic
