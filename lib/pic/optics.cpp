#include "pic/optics.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "base/error.hpp"
#include "pic/maps.hpp"

namespace partikel::pic {
namespace {

// Periodic beta and alpha of one plane of a one-turn matrix (rows/cols i, i+1).
void periodic_plane(const Matrix6& m, int i, const char* plane, double& beta, double& alpha) {
    const double c = 0.5 * (m(i, i) + m(i + 1, i + 1));
    if (!(std::abs(c) < 1.0)) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "the lattice is unstable in %s: half the trace of the one-turn matrix is %.6g, outside (-1, 1): "
                      "no real tune",
                      plane, c);
        throw UsageError(text);
    }
    const double s = std::copysign(std::sqrt(1.0 - c * c), m(i, i + 1));
    beta = m(i, i + 1) / s;
    alpha = (m(i, i) - m(i + 1, i + 1)) / (2.0 * s);
}

// Twiss of one plane through the 2 x 2 block at (i, i); returns the phase advance.
double propagate_plane(const Matrix6& m, int i, double& beta, double& alpha) {
    const double C = m(i, i), S = m(i, i + 1), Cp = m(i + 1, i), Sp = m(i + 1, i + 1);
    const double gamma = (1.0 + alpha * alpha) / beta;
    const double dmu = std::atan2(S, C * beta - S * alpha);
    const double b1 = C * C * beta - 2.0 * C * S * alpha + S * S * gamma;
    const double a1 = -C * Cp * beta + (C * Sp + S * Cp) * alpha - S * Sp * gamma;
    beta = b1;
    alpha = a1;
    return dmu < 0.0 ? dmu + 2.0 * constants::pi : dmu;
}

}  // namespace

Optics compute_optics(const Lattice& lattice, const ReferenceParticle& reference) {
    const MapContext context = map_context(lattice, reference);
    std::vector<Matrix6> maps;
    maps.reserve(lattice.elements.size());
    Optics o;
    o.one_turn = Matrix6::identity();
    Matrix6 without_rf = Matrix6::identity();
    for (const Element& e : lattice.elements) {
        maps.push_back(element_map(e, context));
        o.one_turn = maps.back() * o.one_turn;
        if (e.kind != ElementKind::rf_cavity) without_rf = maps.back() * without_rf;
    }
    const Matrix6& m = o.one_turn;
    periodic_plane(m, 0, "x", o.start.beta_x_m, o.start.alpha_x);
    periodic_plane(m, 2, "y", o.start.beta_y_m, o.start.alpha_y);
    // (I - Mx) (D, D') = (M16, M26)
    {
        const double a = 1.0 - without_rf(0, 0), b = -without_rf(0, 1), c = -without_rf(1, 0), d = 1.0 - without_rf(1, 1);
        const double det = a * d - b * c;
        o.start.dispersion_m = (d * without_rf(0, 5) - b * without_rf(1, 5)) / det;
        o.start.dispersion_prime = (-c * without_rf(0, 5) + a * without_rf(1, 5)) / det;
    }
    const double C = lattice.circumference_m();
    o.slip_factor = -(without_rf(4, 0) * o.start.dispersion_m + without_rf(4, 1) * o.start.dispersion_prime +
                      without_rf(4, 5)) / C;
    o.momentum_compaction = o.slip_factor + 1.0 / (reference.gamma * reference.gamma);
    const double cs = 0.5 * (m(4, 4) + m(5, 5));
    if (std::abs(cs) < 1.0 && m(5, 4) != 0.0) o.synchrotron_tune = std::acos(cs) / (2.0 * constants::pi);

    Twiss t = o.start;
    double s = 0.0;
    for (std::size_t k = 0; k < lattice.elements.size(); ++k) {
        const Matrix6& e = maps[k];
        t.phase_x_rad += propagate_plane(e, 0, t.beta_x_m, t.alpha_x);
        t.phase_y_rad += propagate_plane(e, 2, t.beta_y_m, t.alpha_y);
        const double D = t.dispersion_m, Dp = t.dispersion_prime;
        if (lattice.elements[k].kind != ElementKind::rf_cavity) {
            t.dispersion_m = e(0, 0) * D + e(0, 1) * Dp + e(0, 5);
            t.dispersion_prime = e(1, 0) * D + e(1, 1) * Dp + e(1, 5);
        }
        s += lattice.elements[k].length_m;
        if (lattice.elements[k].kind == ElementKind::monitor) o.monitors.push_back({k, lattice.elements[k].name, s, t});
    }
    o.tune_x = t.phase_x_rad / (2.0 * constants::pi);
    o.tune_y = t.phase_y_rad / (2.0 * constants::pi);
    return o;
}

std::string format_optics(const Lattice& lattice, const Optics& o) {
    std::ostringstream out;
    char line[400];
    std::snprintf(line, sizeof line, "lattice: %s\n%zu elements, circumference %.9g m\n", lattice.name.c_str(),
                  lattice.elements.size(), lattice.circumference_m());
    out << line << "one-turn matrix (x, x', y, y', z, delta; m, rad):\n";
    for (int i = 0; i < 6; ++i) {
        out << " ";
        for (int j = 0; j < 6; ++j) {
            std::snprintf(line, sizeof line, " %15.8e", o.one_turn(i, j));
            out << line;
        }
        out << "\n";
    }
    std::snprintf(line, sizeof line,
                  "tunes: Qx = %.10f, Qy = %.10f\n"
                  "at s = 0: beta_x = %.8g m, alpha_x = %.8g, beta_y = %.8g m, alpha_y = %.8g, D = %.8g m, D' = %.8g\n"
                  "slip factor eta = %.8g, momentum compaction = %.8g",
                  o.tune_x, o.tune_y, o.start.beta_x_m, o.start.alpha_x, o.start.beta_y_m, o.start.alpha_y,
                  o.start.dispersion_m, o.start.dispersion_prime, o.slip_factor, o.momentum_compaction);
    out << line;
    if (o.momentum_compaction > 0.0) {
        std::snprintf(line, sizeof line, ", gamma_t = %.8g", 1.0 / std::sqrt(o.momentum_compaction));
        out << line;
    }
    out << "\n";
    if (o.synchrotron_tune) {
        std::snprintf(line, sizeof line, "synchrotron tune: Qs = %.8g\n", *o.synchrotron_tune);
        out << line;
    }
    if (!o.monitors.empty()) {
        out << "monitors:\n  name                 s_m         beta_x_m    alpha_x     beta_y_m    alpha_y     D_m         mu_x/2pi    mu_y/2pi\n";
        for (const auto& mon : o.monitors) {
            std::snprintf(line, sizeof line, "  %-16s %11.6f %11.6f %11.6f %11.6f %11.6f %11.6f %11.6f %11.6f\n",
                          mon.name.c_str(), mon.s_m, mon.twiss.beta_x_m, mon.twiss.alpha_x, mon.twiss.beta_y_m,
                          mon.twiss.alpha_y, mon.twiss.dispersion_m, mon.twiss.phase_x_rad / (2.0 * constants::pi),
                          mon.twiss.phase_y_rad / (2.0 * constants::pi));
            out << line;
        }
    }
    return out.str();
}

}  // namespace partikel::pic
