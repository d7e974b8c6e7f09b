#include "pic/reference.hpp"

#include <cmath>
#include <cstdio>

#include "base/error.hpp"

namespace partikel::pic {

ParticleSpecies proton(double kinetic_energy_eV) {
    return {.Z = 1, .A = 1, .mass_kg = constants::proton_mass_kg, .kinetic_energy_per_nucleon_eV = kinetic_energy_eV};
}

ParticleSpecies ion(int Z, int A, double kinetic_energy_per_nucleon_eV) {
    return {.Z = Z, .A = A, .mass_kg = 0.0, .kinetic_energy_per_nucleon_eV = kinetic_energy_per_nucleon_eV};
}

double ReferenceParticle::classical_radius_m() const {
    return charge_C * charge_C / (4.0 * constants::pi * constants::epsilon0_F_per_m * rest_energy_J());
}

ReferenceParticle make_reference(const ParticleSpecies& s) {
    if (s.Z < 1) throw UsageError("beam: charge state Z must be at least 1, got " + std::to_string(s.Z));
    if (s.A < 1) throw UsageError("beam: mass number A must be at least 1, got " + std::to_string(s.A));
    if (s.mass_kg < 0.0) throw UsageError("beam: negative particle mass");
    if (!(s.kinetic_energy_per_nucleon_eV > 0.0) || !std::isfinite(s.kinetic_energy_per_nucleon_eV))
        throw UsageError("beam: kinetic energy per nucleon must be positive");
    using namespace constants;
    ReferenceParticle r{};
    r.charge_C = s.Z * e_C;
    r.mass_kg = s.mass_kg > 0.0 ? s.mass_kg : (s.Z == 1 && s.A == 1 ? proton_mass_kg : s.A * atomic_mass_kg);
    const double kinetic_J = s.kinetic_energy_per_nucleon_eV * e_C * s.A;
    r.gamma = 1.0 + kinetic_J / r.rest_energy_J();
    // beta from gamma - 1 directly: no cancellation at low energy
    const double gm1 = kinetic_J / r.rest_energy_J();
    r.beta = std::sqrt(gm1 * (gm1 + 2.0)) / r.gamma;
    r.momentum_kg_m_per_s = r.gamma * r.beta * r.mass_kg * c_m_per_s;
    return r;
}

std::string describe(const ParticleSpecies& s, const ReferenceParticle& r) {
    char text[200];
    std::snprintf(text, sizeof text, "Z=%d A=%d (%.6g kg), %.6g MeV/u: gamma %.8g, beta %.8g, Brho %.6g T m", s.Z, s.A,
                  r.mass_kg, s.kinetic_energy_per_nucleon_eV * 1e-6, r.gamma, r.beta, r.rigidity_T_m());
    return text;
}

}  // namespace partikel::pic
