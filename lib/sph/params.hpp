// Parameters of the weakly compressible SPH solver (Werner 2015, chapter 3; docs/SPH.md).
// SI units throughout; each field says its unit. Frames carry them as "sph.*" attributes
// (sph/io/params_io.hpp) so that sph-step continues from sph-init output or its own frames.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/vec.hpp"
#include "sph/kernel.hpp"

namespace partikel::sph {

enum class DensityScheme { continuity, summation };
enum class Integrator { midpoint, symplectic, verlet };
enum class DensityDiffusion { none, molteni, fourtakas };
// The physical viscosity beside the artificial one (alpha, in every mode; 0: off): none
// (artificial), Lo & Shao's (2002) laminar term, or that and the sub-particle-scale turbulence
// stress of Dalrymple & Rogers (2006) (laminar_sps; DualSPHysics's laminar+SPS with alpha = 0).
enum class Viscosity { artificial, laminar, laminar_sps };
// A face of the domain: open (particles leaving are removed) or a repulsive damped wall.
// An axis whose two faces are periodic wraps around.
enum class Face { open, wall, periodic };
// Boundary particles (docs/SPH.md, "Boundaries"): DualSPHysics's dynamic boundary conditions
// (dbc: density by the continuity equation), or the modified ones of English et al. (2022)
// (mdbc: density extrapolated from a ghost node mirrored into the fluid along the wall normal,
// sph/boundary.hpp ModifiedDynamicBoundary).
enum class BoundaryScheme { dbc, mdbc };
// The velocity mdbc gives boundary particles in the pair terms: the wall's own (English et al.
// 2022), no-slip (2 v_wall - v_ghost) or free-slip (v_ghost with its normal component taken
// relative to the wall reversed).
enum class BoundaryVelocity { wall, no_slip, free_slip };
// The physics a run integrates: weakly compressible SPH (Werner 2015; docs/SPH.md), or one of the
// snow models of Sandvik (2021; docs/SNOW.md): Mueller et al.'s (2003) Newtonian fluid, or the
// stress-tensor path with a rheology (Bingham, Herschel-Bulkley, power law).
enum class Model { wcsph, newtonian_muller, bingham, herschel_bulkley, power_law };
// The snow models' stress divergence: sum_b m_b (tau_a/rho_a^2 + tau_b/rho_b^2) . grad W
// (momentum-conserving), or Sandvik's (2021, eq. 4.13) (1/rho_a) sum_b m_b (tau_a + tau_b)/rho_b . grad W.
enum class StressForm { momentum, sandvik };

// Material and integration parameters of the snow models (Sandvik 2021, Table 4.3). Stress
// tensors use |D| = sqrt(tr(D^2)/2) (docs/SNOW.md): in simple shear |D| = |du/dy|/2, so that
// the Bingham law gives the textbook shear stress tau_y + mu du/dy.
struct Rheology {
    float gas_constant = 1000.0f;  // k of p = k max(rho - rho0, 0), m^2/s^2 (Pa m^3/kg); sound speed sqrt(k)
    float mu = 1e-3f;              // viscosity mu (Newtonian, Bingham plastic viscosity, power-law consistency), Pa s (Pa s^n)
    float mu_solid = 500.0f;       // "solid" viscosity mu_s below yield; also caps the power law's mu |D|^(n-1), Pa s
    float yield_stress = 0.0f;     // tau_y, Pa
    float power_n = 1.0f;          // flow index n (power law, Herschel-Bulkley)
    float xsph_phi = 0.0f;         // XSPH phi of the velocity update, 0..1
    float max_speed = 0.0f;        // m/s, caps |v| of the half-step velocity; 0: off
    float max_acceleration = 0.0f; // m/s^2, caps |a|; 0: off
    StressForm stress_form = StressForm::momentum;
    // Strength of the zero-energy-mode control of the stress divergence (docs/SNOW.md); 0: off.
    float mode_control = 1.0f;
};

// A face moving sinusoidally along its normal: offset(t) = amplitude sin(2 pi t / period).
struct WaveMaker {
    int face = -1;  // 0..5 = x-, x+, y-, y+, z-, z+; -1: none
    float amplitude_m = 0.0f;
    float period_s = 1.0f;
};

// Prescribed motion of boundary particles of kind moving_boundary:
// displacement(t) = amplitude sin(2 pi t / period) + velocity min(t, duration),
// an oscillation (a piston) and a steady travel that stops (a gate lifted away).
struct BoundaryMotion {
    Vec3f amplitude_m{0.0f, 0.0f, 0.0f};
    float period_s = 1.0f;
    Vec3f velocity_m_s{0.0f, 0.0f, 0.0f};
    float duration_s = 0.0f;
};

// A height field y = height(x, z) on a regular grid, bounding the fluid from below (the contact
// law and the sampling: TerrainContact).
struct HeightField {
    std::vector<float> height_m;  // nx * nz values, row-major in z (index = iz * nx + ix)
    int nx = 0, nz = 0;
    float x0_m = 0.0f, z0_m = 0.0f, cell_m = 1.0f;
    bool empty() const { return height_m.empty(); }
};

// How particles meet the terrain (sph/boundary.hpp, docs/SPH.md "Terrain"):
// repulsive: the walls' law, K = wall_stiffness (c0/h)^2, D = wall_damping 2 sqrt(K);
// penalty: Sandvik (2021, eq. 4.24, its damping sign corrected) with constants of its own,
//     a = K_s d n - K_d (v . n) n for a penetration depth d > 0.
// Either law adds the friction of Sandvik (2021, eq. 4.25), a = -K_f (v - n (v . n)), to particles
// less than friction_height above the ground (or below it). Accelerations (per unit mass), as
// Sandvik applies them.
enum class TerrainLaw { repulsive, penalty };
struct TerrainContact {
    TerrainLaw law = TerrainLaw::repulsive;
    float stiffness = 2000.0f;       // K_s (penalty), 1/s^2
    float damping = 100.0f;          // K_d (penalty), 1/s
    float friction = 0.0f;           // K_f, 1/s; 0: no friction
    float friction_height_m = 0.0f;  // friction acts below this height above the ground
    // Sampling: 0 bilinear heights with normals from central differences at the samples,
    // interpolated bilinearly (no tile edges); > 0 Sandvik's tiles of this edge: one height per
    // tile (the mean of its four corners) and one normal (central differences across the tile).
    float tile_m = 0.0f;
};

struct SphParams {
    // Resolution and material
    float dx_m = 0.01f;                 // initial particle spacing
    float h_m = 0.015f;                 // smoothing length (support 2h)
    float rho0 = 1000.0f;               // reference density, kg/m^3
    float c0 = 100.0f;                  // numerical sound speed, m/s (Werner 2015: 100)
    float gamma = 7.0f;                 // Tait exponent
    float alpha = 0.01f;                // Monaghan artificial viscosity (Werner 2015: 0.01)
    Viscosity viscosity = Viscosity::artificial;
    float laminar_nu = 1e-6f;           // kinematic viscosity of the laminar modes (Lo & Shao), m^2/s; water at 20 C
    float sps_smagorinsky = 0.12f;      // Cs of the SPS eddy viscosity (Cs dx)^2 |S| (Dalrymple & Rogers 2006)
    float sps_blin = 0.0066f;           // CI of the SPS isotropic stress (2/3) CI dx^2 |S|^2 (Blin et al. 2002)
    Vec3f gravity{0.0f, -9.81f, 0.0f};  // m/s^2, y up
    KernelKind kernel = KernelKind::wendland_c2;  // wcsph; the snow models use Mueller's kernels of support h
    Model model = Model::wcsph;
    Rheology rheology;  // the snow models

    // Density
    // continuity: d rho/dt integrated, Shepard filter every shepard_every steps; summation:
    // rho_a = sum m_b W_ab / sum (m_b/rho_b) W_ab at every stage (see ShepardFilter).
    DensityScheme density = DensityScheme::continuity;
    int shepard_every = 30;     // steps between Shepard filters (continuity); 0: never
    float xsph_epsilon = 0.0f;  // XSPH velocity smoothing (summation scheme uses it), 0..1
    DensityDiffusion diffusion = DensityDiffusion::none;
    float diffusion_delta = 0.1f;  // delta of the density diffusion term

    // Time integration
    Integrator integrator = Integrator::midpoint;
    int verlet_euler_every = 40;  // Verlet: an Euler step every N steps
    float cfl = 0.3f;             // dt = cfl * min(dt_cv, dt_f) (Werner 2015, eq. 3.35: 0.3)
    float dt_max_s = 1e-2f;       // upper bound on dt
    float dt_min_s = 1e-9f;       // a smaller dt stops the run (NumericalError)
    float dt_fixed_s = 0.0f;      // > 0: this time step every step instead of the adaptive one
    float runaway_speed = 0.0f;   // m/s; a faster particle stops the run; 0: 5 * c0
    // Fluid particles whose density leaves [density_min, density_max] are removed after the
    // step and counted with those that left the domain (DualSPHysics's RhopOut, 700..1300
    // kg/m^3 there); both 0: off.
    float density_min = 0.0f;  // kg/m^3
    float density_max = 0.0f;  // kg/m^3

    // Domain and boundaries
    Vec3f domain_min{0.0f, 0.0f, 0.0f};
    Vec3f domain_max{1.0f, 1.0f, 1.0f};
    std::array<Face, 6> faces{Face::wall, Face::wall, Face::wall, Face::open, Face::wall, Face::wall};
    float wall_stiffness = 1.0f;  // K = wall_stiffness * (c0/h)^2, 1/s^2
    float wall_damping = 1.0f;    // D = wall_damping * 2 sqrt(K) (1: critically damped), 1/s
    BoundaryScheme boundary = BoundaryScheme::dbc;            // boundary particles' density
    BoundaryVelocity boundary_velocity = BoundaryVelocity::wall;  // mdbc: their velocity
    WaveMaker wave_maker;
    BoundaryMotion boundary_motion;
    HeightField terrain;
    TerrainContact terrain_contact;

    // Mass of a particle on the initial lattice, rho0 dx^3 (kg).
    float lattice_mass_kg() const { return rho0 * dx_m * dx_m * dx_m; }
};

// The smoothing kernel's support (m): the neighbour search radius, and how far outside the
// domain a particle may go before it is removed.
// The snow models' kernels reach h (Mueller et al. 2003), WCSPH's 2h.
inline float kernel_support(const SphParams& p) {
    return p.model == Model::wcsph ? SmoothingKernel(p.kernel, p.h_m).support() : p.h_m;
}
inline bool is_snow_model(const SphParams& p) { return p.model != Model::wcsph; }
inline bool has_stress_tensor(const SphParams& p) { return p.model != Model::wcsph && p.model != Model::newtonian_muller; }
// The numerical sound speed (m/s): c0, or sqrt(k) of the snow models' linear equation of state.
float sound_speed(const SphParams& p);
// The laminar modes' stability limit on the time step, 0.125 h^2/nu (Morris, Fox & Zhu 1997,
// "Modeling low Reynolds number incompressible flows using SPH", J. Comput. Phys. 136, 214-226);
// infinite without a laminar term.
double viscous_dt_limit(const SphParams& p);
// A faster particle stops the run (m/s): runaway_speed, or 5 c0.
inline float runaway_speed(const SphParams& p) {
    return p.runaway_speed > 0.0f ? p.runaway_speed : 5.0f * sound_speed(p);
}

// h from the spacing: hdx * dx (Werner 2015: hdx = 1.5), or coefh * sqrt(3) * dx (DualSPHysics).
float smoothing_length_hdx(float dx_m, float hdx);
float smoothing_length_coefh(float dx_m, float coefh);

// Names used by flags and attributes.
std::string_view to_string(KernelKind v);
std::string_view to_string(DensityScheme v);
std::string_view to_string(Integrator v);
std::string_view to_string(DensityDiffusion v);
std::string_view to_string(Viscosity v);
std::string_view to_string(Face v);
std::string_view to_string(TerrainLaw v);
std::string_view to_string(Model v);
std::string_view to_string(StressForm v);
std::string_view to_string(BoundaryScheme v);
std::string_view to_string(BoundaryVelocity v);
// The names back; an unknown one is a UsageError naming where it came from, `source` (a flag,
// "--kernel", or an attribute, "sph.kernel"): "--kernel must be wendland or cubic (got 'foo')".
TerrainLaw parse_terrain_law(std::string_view s, std::string_view source = "sph.terrain.law");
Model parse_model(std::string_view s, std::string_view source = "sph.model");
StressForm parse_stress_form(std::string_view s, std::string_view source = "snow.stress_form");
KernelKind parse_kernel(std::string_view s, std::string_view source = "sph.kernel");
DensityScheme parse_density_scheme(std::string_view s, std::string_view source = "sph.density");
Integrator parse_integrator(std::string_view s, std::string_view source = "sph.integrator");
DensityDiffusion parse_diffusion(std::string_view s, std::string_view source = "sph.diffusion");
Viscosity parse_viscosity(std::string_view s, std::string_view source = "sph.viscosity");
BoundaryScheme parse_boundary(std::string_view s, std::string_view source = "sph.boundary");
BoundaryVelocity parse_boundary_velocity(std::string_view s, std::string_view source = "sph.boundary_velocity");
// "wall,wall,wall,open,wall,wall" or one value for all six faces.
std::array<Face, 6> parse_faces(std::string_view s, std::string_view source = "sph.faces");
std::string faces_to_string(const std::array<Face, 6>& faces);

// Checks consistency (positive h, c0, periodic faces in pairs, ...); UsageError otherwise.
void validate(const SphParams& params);

}  // namespace partikel::sph
