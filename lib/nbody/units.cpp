#include "nbody/units.hpp"

#include <string>

#include "base/error.hpp"

namespace partikel::nbody {

namespace {

Unit scaled(UnitDimension dimension, double si_factor, bool has_si) {
    if (!has_si) return units::none;
    return Unit{dimension, si_factor};
}

}  // namespace

Unit UnitSystem::length() const { return scaled(units::length.dimension, length_si, has_si()); }
Unit UnitSystem::mass() const { return scaled(units::mass.dimension, mass_si, has_si()); }
Unit UnitSystem::time() const { return scaled(units::time.dimension, time_si(), has_si()); }
Unit UnitSystem::velocity() const { return scaled(units::velocity.dimension, velocity_si, has_si()); }
Unit UnitSystem::acceleration() const {
    return scaled(units::acceleration.dimension, has_si() ? velocity_si / time_si() : 0.0, has_si());
}
Unit UnitSystem::energy() const {
    return scaled(units::energy.dimension, mass_si * velocity_si * velocity_si, has_si());
}
Unit UnitSystem::specific_energy() const {
    return scaled(units::specific_energy.dimension, velocity_si * velocity_si, has_si());
}
Unit UnitSystem::momentum() const { return scaled(units::momentum.dimension, mass_si * velocity_si, has_si()); }
Unit UnitSystem::angular_momentum() const {
    return scaled(units::angular_momentum.dimension, mass_si * velocity_si * length_si, has_si());
}

UnitSystem nbody_units() { return UnitSystem{}; }

UnitSystem astro_units() {
    UnitSystem u;
    u.kind = UnitSystemKind::astro;
    u.G = 43007.1;
    u.length_si = 3.085678e19;  // 1 kpc
    u.mass_si = 1.989e40;       // 1e10 solar masses
    u.velocity_si = 1.0e3;      // 1 km/s
    return u;
}

std::string_view unit_system_name(UnitSystemKind kind) {
    return kind == UnitSystemKind::astro ? "astro" : "nbody";
}

UnitSystem parse_unit_system(std::string_view name) {
    if (name == "nbody" || name == "henon") return nbody_units();
    if (name == "astro") return astro_units();
    throw UsageError("unknown unit system \"" + std::string(name) + "\" (expected nbody or astro)");
}

}  // namespace partikel::nbody
