// Linear optics of a ring from its first-order maps: the one-turn matrix, the periodic Twiss
// functions (Courant and Snyder, "Theory of the alternating-gradient synchrotron", 1958) and
// dispersion, tunes from the phase advance, the slip factor, and the optics at monitors.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pic/lattice.hpp"
#include "pic/matrix6.hpp"
#include "pic/reference.hpp"

namespace partikel::pic {

struct Twiss {
    double beta_x_m = 0.0, alpha_x = 0.0;
    double beta_y_m = 0.0, alpha_y = 0.0;
    double dispersion_m = 0.0, dispersion_prime = 0.0;  // horizontal
    double phase_x_rad = 0.0, phase_y_rad = 0.0;        // phase advance from the start
};

struct Optics {
    Matrix6 one_turn;            // at s = 0, every element linearised (rf: its slope at z = 0)
    double tune_x = 0.0;         // phase advance over the ring / 2 pi (with its integer part)
    double tune_y = 0.0;
    Twiss start;                 // the periodic solution at s = 0
    double slip_factor = 0.0;    // eta: one turn moves z by -eta C delta (rf cavities off)
    double momentum_compaction = 0.0;
    std::optional<double> synchrotron_tune;  // when rf makes the longitudinal motion stable
    struct Observation {
        std::size_t element;     // index in the lattice
        std::string name;
        double s_m;              // at the element's exit
        Twiss twiss;
    };
    std::vector<Observation> monitors;
};

// UsageError naming the plane when a transverse plane is unstable (|trace / 2| >= 1: no real
// tune).
Optics compute_optics(const Lattice& lattice, const ReferenceParticle& reference);

// The one-turn matrix, tunes, Twiss functions at the start and at every monitor, as text.
std::string format_optics(const Lattice& lattice, const Optics& optics);

}  // namespace partikel::pic
