// Unit systems of the N-body model: what one model unit of length, mass and velocity is, and the
// gravitational constant G in those units. Kernels and integrators work in model units; frames
// record the SI meaning of each column (base/units.hpp) where there is one.
//
//   nbody  Henon units (Henon 1971; Heggie & Mathieu, "Standardised units and time scales",
//          1986): G = 1, and initial conditions built for total mass 1 and total energy -1/4.
//          Dimensionless: columns carry no SI factor.
//   astro  length 1 kpc, mass 1e10 solar masses, velocity 1 km/s, so G = 43007.1 and the time
//          unit is 1 kpc / (1 km/s) = 0.9778 Gyr (Springel, "The cosmological simulation code
//          GADGET-2", 2005: the same units and constants, 1 kpc = 3.085678e19 m,
//          1 solar mass = 1.989e30 kg, G = 6.672e-11 m^3 kg^-1 s^-2).
#pragma once

#include <string>
#include <string_view>

#include "base/units.hpp"

namespace partikel::nbody {

enum class UnitSystemKind { nbody, astro };

struct UnitSystem {
    UnitSystemKind kind = UnitSystemKind::nbody;
    double G = 1.0;            // gravitational constant in model units
    double length_si = 0.0;    // m per model length unit (0: no SI meaning)
    double mass_si = 0.0;      // kg per model mass unit
    double velocity_si = 0.0;  // m/s per model velocity unit

    bool has_si() const { return length_si > 0.0; }
    double time_si() const { return has_si() ? length_si / velocity_si : 0.0; }  // s per model time unit

    // Column and table units: the SI dimension and factor of one model unit (units::none in
    // Henon units, where values are dimensionless).
    Unit length() const;
    Unit mass() const;
    Unit time() const;
    Unit velocity() const;
    Unit acceleration() const;
    Unit energy() const;
    Unit specific_energy() const;  // potential per unit mass
    Unit momentum() const;
    Unit angular_momentum() const;
};

UnitSystem nbody_units();
UnitSystem astro_units();

std::string_view unit_system_name(UnitSystemKind kind);  // "nbody", "astro"
// "nbody" (also "henon") or "astro"; UsageError otherwise.
UnitSystem parse_unit_system(std::string_view name);

// Astrophysical conversions for building initial conditions in astro units.
inline constexpr double kMyrPerAstroTime = 977.7923542981722;  // 1 kpc / (1 km/s) in Myr (Julian years)

}  // namespace partikel::nbody
