// First-order maps of the elements on (x, x', y, y', z, delta), z > 0 ahead of the reference
// particle, delta = (p - p0)/p0. Derivations: docs/PIC.md, "Element maps".
#pragma once

#include <optional>

#include "pic/lattice.hpp"
#include "pic/matrix6.hpp"
#include "pic/reference.hpp"

namespace partikel::pic {

// What maps depend on besides the element.
struct MapContext {
    ReferenceParticle reference;
    double circumference_m = 0.0;   // rf cavities: the harmonic's wavelength is C / h
    std::optional<double> gamma_t;  // lattices without bends: smooth momentum compaction
};
MapContext map_context(const Lattice& lattice, const ReferenceParticle& reference);

// The element's map. Thick elements add -L/gamma_t^2 to M56 when the context has gamma_t. Thin
// multipoles give their quadrupole part, rf cavities their slope d(delta)/dz at z = 0;
// apertures, monitors and markers are the identity.
Matrix6 element_map(const Element& element, const MapContext& context);

// True when the element's map is its whole action on every particle (no nonlinear kick, no
// aperture check), so that it may be fused with its neighbours into one matrix.
bool exactly_linear(const Element& element);

// The part of a thick element from fraction f0 to f1 of its length (0 <= f0 < f1 <= 1):
// drifts, quadrupoles, constant focusing and sector dipoles (the angle scales with the length).
Element element_part(const Element& element, double f0, double f1);

}  // namespace partikel::pic
