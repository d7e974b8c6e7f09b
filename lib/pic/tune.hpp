// Tunes from turn-by-turn data: the frequency of the strongest line of the normalised complex
// signal X - i P (Courant-Snyder coordinates, so the betatron line has no mirror image), with a
// Hann window and the peak refined by golden-section search, as in the refined FFT of Bartolini
// et al. ("Algorithms for a precise determination of the betatron tune", EPAC 1996).
#pragma once

#include <span>

namespace partikel::pic {

// Fractional tune in [0, 1) of positions u and slopes u' seen every turn at a point with Twiss
// beta (m) and alpha. NaN for fewer than 8 turns or a signal without oscillation.
double fractional_tune(std::span<const double> u, std::span<const double> up, double beta_m, double alpha);

}  // namespace partikel::pic
