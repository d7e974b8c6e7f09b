#include "pic/maps.hpp"

#include <cmath>

#include "base/error.hpp"

namespace partikel::pic {
namespace {

// x'' = -K x over a length L: the 2 x 2 block (cos/sin for K > 0, cosh/sinh for K < 0).
void focusing_block(Matrix6& m, int plane, double K, double L) {
    const int i = 2 * plane;
    double c, s_over_w, w_s;  // M11 = M22, M12, M21
    if (K > 0.0) {
        const double w = std::sqrt(K);
        c = std::cos(w * L);
        s_over_w = std::sin(w * L) / w;
        w_s = -w * std::sin(w * L);
    } else if (K < 0.0) {
        const double w = std::sqrt(-K);
        c = std::cosh(w * L);
        s_over_w = std::sinh(w * L) / w;
        w_s = w * std::sinh(w * L);
    } else {
        c = 1.0;
        s_over_w = L;
        w_s = 0.0;
    }
    m(i, i) = c;
    m(i, i + 1) = s_over_w;
    m(i + 1, i) = w_s;
    m(i + 1, i + 1) = c;
}

}  // namespace

double Lattice::circumference_m() const {
    double c = 0.0;
    for (const Element& e : elements) c += e.length_m;
    return c;
}

MapContext map_context(const Lattice& lattice, const ReferenceParticle& reference) {
    return {reference, lattice.circumference_m(), lattice.gamma_t};
}

Matrix6 element_map(const Element& e, const MapContext& context) {
    Matrix6 m = Matrix6::identity();
    const double L = e.length_m;
    const double gamma = context.reference.gamma;
    // Path length difference from the velocity difference: dz = L delta / gamma^2.
    m(4, 5) = L / (gamma * gamma);
    if (context.gamma_t && L > 0.0) m(4, 5) -= L / (*context.gamma_t * *context.gamma_t);
    switch (e.kind) {
        case ElementKind::drift:
            m(0, 1) = L;
            m(2, 3) = L;
            break;
        case ElementKind::quadrupole:
            focusing_block(m, 0, e.k1_per_m2, L);
            focusing_block(m, 1, -e.k1_per_m2, L);
            break;
        case ElementKind::constant_focusing:
            focusing_block(m, 0, e.k1_per_m2, L);
            focusing_block(m, 1, e.k1_per_m2, L);
            break;
        case ElementKind::sbend: {
            const double a = e.angle_rad;
            if (a == 0.0) {
                m(0, 1) = L;
                m(2, 3) = L;
                break;
            }
            const double rho = L / a, c = std::cos(a), s = std::sin(a);
            m(0, 0) = c;
            m(0, 1) = rho * s;
            m(0, 5) = rho * (1.0 - c);
            m(1, 0) = -s / rho;
            m(1, 1) = c;
            m(1, 5) = s;
            m(2, 3) = L;
            // z falls behind by the extra path, integral of x / rho over the bend.
            m(4, 0) = -s;
            m(4, 1) = -rho * (1.0 - c);
            m(4, 5) -= rho * (a - s);
            break;
        }
        case ElementKind::multipole:
            m(1, 0) = -e.knl[1];
            m(3, 2) = e.knl[1];
            break;
        case ElementKind::rf_cavity: {
            // delta += A [sin(phi_s - 2 pi h z / C) - sin(phi_s)], A = q V / (beta^2 E0)
            const ReferenceParticle& r = context.reference;
            const double A = r.charge_C * e.voltage_V / (r.beta * r.beta * r.total_energy_J());
            const double k = 2.0 * constants::pi * e.harmonic / context.circumference_m;
            m(5, 4) = -A * k * std::cos(e.phase_rad);
            break;
        }
        case ElementKind::aperture:
        case ElementKind::monitor:
        case ElementKind::marker:
            break;
    }
    return m;
}

bool exactly_linear(const Element& e) {
    if (e.aperture.active()) return false;
    switch (e.kind) {
        case ElementKind::multipole:
            for (std::size_t n = 2; n < e.knl.size(); ++n)
                if (e.knl[n] != 0.0) return false;
            return true;
        case ElementKind::rf_cavity:
        case ElementKind::aperture:
            return false;
        default:
            return true;
    }
}

Element element_part(const Element& e, double f0, double f1) {
    if (!e.thick() || !(f0 >= 0.0 && f0 < f1 && f1 <= 1.0))
        throw UsageError("element_part: " + e.name + " cannot be split at [" + std::to_string(f0) + ", " +
                         std::to_string(f1) + "]");
    Element part = e;
    part.length_m = e.length_m * (f1 - f0);
    part.angle_rad = e.angle_rad * (f1 - f0);
    if (f1 < 1.0) part.aperture = {};  // the aperture belongs to the element's exit
    return part;
}

}  // namespace partikel::pic
