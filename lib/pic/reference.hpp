// The reference (synchronous) particle of a beam: an ion of charge state Z and mass number A at
// a kinetic energy per nucleon, and the physical constants the maps and the space-charge model
// use (CODATA 2018).
#pragma once

#include <numbers>
#include <string>

namespace partikel::pic {

namespace constants {
inline constexpr double c_m_per_s = 299792458.0;
inline constexpr double e_C = 1.602176634e-19;
inline constexpr double epsilon0_F_per_m = 8.8541878128e-12;
inline constexpr double atomic_mass_kg = 1.66053906660e-27;  // u
inline constexpr double proton_mass_kg = 1.67262192369e-27;
inline constexpr double pi = std::numbers::pi;
}  // namespace constants

// What a beam is made of. mass_kg = 0 means A atomic mass units (electrons and binding energy
// neglected: 0.1 % for Ar-40 18+), except Z = 1, A = 1: a proton, with the proton's mass.
struct ParticleSpecies {
    int Z = 1;                              // charge state
    int A = 1;                              // mass number
    double mass_kg = 0.0;                   // 0: A u
    double kinetic_energy_per_nucleon_eV = 1e9;
};

ParticleSpecies proton(double kinetic_energy_eV);
// An ion of charge state Z and mass number A (mass A u) at a kinetic energy per nucleon.
ParticleSpecies ion(int Z, int A, double kinetic_energy_per_nucleon_eV);

struct ReferenceParticle {
    double charge_C;
    double mass_kg;
    double gamma;
    double beta;
    double momentum_kg_m_per_s;  // p0 = gamma beta m c
    double total_energy_J() const { return gamma * mass_kg * constants::c_m_per_s * constants::c_m_per_s; }
    double rest_energy_J() const { return mass_kg * constants::c_m_per_s * constants::c_m_per_s; }
    double velocity_m_per_s() const { return beta * constants::c_m_per_s; }
    double rigidity_T_m() const { return momentum_kg_m_per_s / charge_C; }
    // q^2 / (4 pi eps0 m c^2): the classical radius of this ion.
    double classical_radius_m() const;
};

// UsageError for Z < 1, A < 1, a negative mass or a non-positive energy.
ReferenceParticle make_reference(const ParticleSpecies& species);

// "Z=18 A=40 (6.64e-26 kg), 11.4 MeV/u: gamma 1.0122, beta 0.1555"
std::string describe(const ParticleSpecies& species, const ReferenceParticle& reference);

}  // namespace partikel::pic
