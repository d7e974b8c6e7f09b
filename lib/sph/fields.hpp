// The SPH solver's per-particle state, defined once (core/fields.hpp): every array the solver
// holds on the device, what each is, its unit, and what happens to it when particles are
// reordered into cell order (every grid build, and between the stages of a step), removed,
// written to frames and restored on restart. The solver allocates the fields its scheme needs;
// frames (sph/io/frame_io.hpp) write and read the fields marked so. Adding a field is a line
// here plus its physics.
#pragma once

#include <cstdint>

#include "base/units.hpp"
#include "core/fields.hpp"

namespace partikel::sph {

namespace field {
enum : int {
    // The state (cell order at every point of a step).
    position,           // m
    velocity,           // m/s
    density,            // kg/m^3
    mass,               // kg
    id,                 // the particle's identity, kept through reorders and restarts
    kind,               // ParticleKind
    // The midpoint and symplectic schemes: the state at the start of the step, while the
    // predictor's half-step state is in the fields above.
    position_start,
    velocity_start,
    density_start,
    // Verlet: the previous step's velocity and density (what the next step starts from).
    velocity_previous,
    density_previous,
    // mdbc: a boundary particle's vector d n to the wall surface (ParticleSet::boundary_normal);
    // its ghost node lies at position + 2 d n.
    boundary_normal,  // m
    // mdbc: the virtual wall layers behind a boundary particle (sph/boundary.hpp,
    // VirtualLayerScan): xyz the steps along the axes (m), w how many layers (0: none). Derived
    // from the normals and the boundary particles' positions at the start of a run.
    virtual_layers,
    // mdbc: grad rho at the ghost node (kg/m^4; 0 unless first order), for the virtual layers'
    // densities; written by every mdbc pass.
    wall_density_gradient,
    // mdbc with the no-slip or free-slip velocity: G_b, the virtual layers' velocity v_b + G_b o
    // (1/s, 3 x 3 by rows; ModifiedDynamicBoundary); written by every mdbc pass.
    wall_velocity_gradient,
    // The rates of the last rates pass, and its time-step limits.
    acceleration,       // m/s^2
    density_rate,       // kg/(m^3 s)
    xsph_velocity,      // m/s, XSPH correction (scaled by epsilon)
    dt_limit,           // s, this particle's limit on dt (eqs. 3.33, 3.34)
    // Neighbour records (rates.hpp, NeighborRecords), derived from the state.
    record_position_mass,     // position, mass signed by kind
    record_velocity_density,  // velocity, density
    record_pressure_term,     // P / rho^2 (WCSPH), lambda p (snow models: MullerDensity)
    // The snow models (docs/SNOW.md): the leapfrog's half-step velocity v_{n+1/2}, and the
    // strain rate |D|, the yielded flag and the stress tensor of the last stress pass (reordered
    // with the particles, so that a frame written after the step shows them on the right ones).
    velocity_half,  // m/s
    kernel_correction,  // 1, the kernel-gradient correction L (symmetric, SymTensor)
    strain_rate,    // 1/s, |D| = sqrt(tr(D^2)/2)
    yielded,        // 1: above the yield stress (flowing), 0: solid
    stress,         // Pa, symmetric tensor (SymTensor): xx, yy, zz, yz, xz, xy
    corrected_stress,  // Pa, tau L (3 x 3 by rows): the stress the force pass differentiates
    velocity_gradient,    // 1/s, grad v (3 x 3 by rows)
    effective_viscosity,  // Pa s, mu_eff of the rheology
    // Laminar+SPS viscosity: the SPS stress tau/rho^2 of the last velocity-gradient pass
    // (SpsClosure, SymTensor; 0 on boundary particles).
    sps_stress,  // m^5/(kg s^2)
    count
};
}  // namespace field

inline constexpr unsigned kStateFlags = kFieldGather | kFieldCompact | kFieldWrite | kFieldRestore;

inline constexpr FieldSpec kSphFields[field::count] = {
    {"position", ScalarType::f32, 3, units::length, kStateFlags},
    {"velocity", ScalarType::f32, 3, units::velocity, kStateFlags},
    {"density", ScalarType::f32, 1, units::density, kStateFlags},
    {"mass", ScalarType::f32, 1, units::mass, kStateFlags},
    {"id", ScalarType::u64, 1, units::none, kStateFlags},
    {"kind", ScalarType::u8, 1, units::none, kStateFlags},
    {"position_start", ScalarType::f32, 3, units::length, kFieldGatherInStep},
    {"velocity_start", ScalarType::f32, 3, units::velocity, kFieldGatherInStep},
    {"density_start", ScalarType::f32, 1, units::density, kFieldGatherInStep},
    {"velocity_previous", ScalarType::f32, 3, units::velocity, kStateFlags},
    {"density_previous", ScalarType::f32, 1, units::density, kStateFlags},
    {"boundary_normal", ScalarType::f32, 3, units::length, kStateFlags},
    {"virtual_layers", ScalarType::f32, 4, units::none, kFieldGather | kFieldCompact},
    {"wall_density_gradient", ScalarType::f32, 3, units::none, kFieldScratch},
    {"wall_velocity_gradient", ScalarType::f32, 9, units::rate, kFieldScratch},
    {"acceleration", ScalarType::f32, 3, units::acceleration, kFieldScratch},
    {"density_rate", ScalarType::f32, 1, units::density_rate, kFieldScratch},
    {"xsph_velocity", ScalarType::f32, 3, units::velocity, kFieldScratch},
    {"dt_limit", ScalarType::f32, 1, units::time, kFieldScratch},
    {"record_position_mass", ScalarType::f32, 4, units::none, 0},
    {"record_velocity_density", ScalarType::f32, 4, units::none, 0},
    {"record_pressure_term", ScalarType::f32, 1, units::none, 0},
    {"velocity_half", ScalarType::f32, 3, units::velocity, kStateFlags},
    {"kernel_correction", ScalarType::f32, 6, units::none, kFieldScratch},
    {"strain_rate", ScalarType::f32, 1, units::rate, kFieldGather | kFieldCompact | kFieldWrite},
    {"yielded", ScalarType::u8, 1, units::none, kFieldGather | kFieldCompact | kFieldWrite},
    {"stress", ScalarType::f32, 6, units::pressure, kFieldGather | kFieldCompact | kFieldWrite},
    {"corrected_stress", ScalarType::f32, 9, units::pressure, kFieldScratch},
    {"velocity_gradient", ScalarType::f32, 9, units::rate, kFieldScratch},
    {"effective_viscosity", ScalarType::f32, 1, units::none, kFieldScratch},
    {"sps_stress", ScalarType::f32, 6, units::none, kFieldScratch},
};

// Bit masks of fields (FieldArrays' `present`).
constexpr std::uint64_t field_bit(int f) { return std::uint64_t{1} << f; }
inline constexpr std::uint64_t kStateFields = field_bit(field::position) | field_bit(field::velocity) |
                                              field_bit(field::density) | field_bit(field::mass) |
                                              field_bit(field::id) | field_bit(field::kind);
inline constexpr std::uint64_t kStepStartFields =
    field_bit(field::position_start) | field_bit(field::velocity_start) | field_bit(field::density_start);
inline constexpr std::uint64_t kPreviousStepFields =
    field_bit(field::velocity_previous) | field_bit(field::density_previous);
inline constexpr std::uint64_t kRateFields = field_bit(field::acceleration) | field_bit(field::density_rate) |
                                             field_bit(field::xsph_velocity) | field_bit(field::dt_limit);
inline constexpr std::uint64_t kStressFields =
    field_bit(field::strain_rate) | field_bit(field::yielded) | field_bit(field::stress) | field_bit(field::corrected_stress) |
    field_bit(field::velocity_gradient) | field_bit(field::effective_viscosity) | field_bit(field::kernel_correction);
inline constexpr std::uint64_t kRecordFields = field_bit(field::record_position_mass) |
                                               field_bit(field::record_velocity_density) |
                                               field_bit(field::record_pressure_term);

}  // namespace partikel::sph
