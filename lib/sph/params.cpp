#include "sph/params.hpp"

#include <cmath>
#include <limits>

#include "base/error.hpp"
#include "base/vec.hpp"
#include "base/log.hpp"
#include "sph/snow.hpp"

namespace partikel::sph {

float smoothing_length_hdx(float dx_m, float hdx) { return hdx * dx_m; }
float smoothing_length_coefh(float dx_m, float coefh) { return coefh * std::sqrt(3.0f) * dx_m; }

namespace {

// "--kernel must be wendland or cubic (got 'foo')", naming the flag or attribute `source`.
template <class E, std::size_t N>
E parse_enum(std::string_view s, const std::array<std::pair<std::string_view, E>, N>& names, std::string_view source) {
    for (const auto& [name, value] : names)
        if (name == s) return value;
    std::string list;
    for (std::size_t i = 0; i < N; ++i) list += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(names[i].first);
    throw UsageError(std::string(source) + " must be " + list + " (got '" + std::string(s) + "')");
}
template <class E, std::size_t N>
std::string_view enum_name(E v, const std::array<std::pair<std::string_view, E>, N>& names) {
    for (const auto& [name, value] : names)
        if (value == v) return name;
    return "?";
}

constexpr std::array<std::pair<std::string_view, KernelKind>, 2> kKernels{
    {{"wendland", KernelKind::wendland_c2}, {"cubic", KernelKind::cubic_spline}}};
constexpr std::array<std::pair<std::string_view, DensityScheme>, 2> kDensity{
    {{"continuity", DensityScheme::continuity}, {"summation", DensityScheme::summation}}};
constexpr std::array<std::pair<std::string_view, Integrator>, 3> kIntegrators{
    {{"midpoint", Integrator::midpoint}, {"symplectic", Integrator::symplectic}, {"verlet", Integrator::verlet}}};
constexpr std::array<std::pair<std::string_view, DensityDiffusion>, 3> kDiffusion{
    {{"none", DensityDiffusion::none},
     {"molteni", DensityDiffusion::molteni},
     {"fourtakas", DensityDiffusion::fourtakas}}};
constexpr std::array<std::pair<std::string_view, Viscosity>, 3> kViscosity{
    {{"artificial", Viscosity::artificial}, {"laminar", Viscosity::laminar}, {"laminar-sps", Viscosity::laminar_sps}}};
constexpr std::array<std::pair<std::string_view, BoundaryScheme>, 2> kBoundarySchemes{
    {{"dbc", BoundaryScheme::dbc}, {"mdbc", BoundaryScheme::mdbc}}};
constexpr std::array<std::pair<std::string_view, BoundaryVelocity>, 3> kBoundaryVelocities{
    {{"wall", BoundaryVelocity::wall}, {"no-slip", BoundaryVelocity::no_slip}, {"free-slip", BoundaryVelocity::free_slip}}};
constexpr std::array<std::pair<std::string_view, Face>, 3> kFaces{
    {{"open", Face::open}, {"wall", Face::wall}, {"periodic", Face::periodic}}};
constexpr std::array<std::pair<std::string_view, TerrainLaw>, 2> kTerrainLaws{
    {{"repulsive", TerrainLaw::repulsive}, {"penalty", TerrainLaw::penalty}}};

constexpr std::array<std::pair<std::string_view, Model>, 5> kModels{{{"wcsph", Model::wcsph},
                                                                     {"newtonian-muller", Model::newtonian_muller},
                                                                     {"bingham", Model::bingham},
                                                                     {"herschel-bulkley", Model::herschel_bulkley},
                                                                     {"power-law", Model::power_law}}};
constexpr std::array<std::pair<std::string_view, StressForm>, 2> kStressForms{
    {{"momentum", StressForm::momentum}, {"sandvik", StressForm::sandvik}}};

}  // namespace

float muller_lattice_mass(float rho0, float dx_m, float h_m) {
    const MullerKernels kernel(h_m);
    const int reach = int(std::floor(h_m / dx_m));
    double sum = 0.0;
    for (int i = -reach; i <= reach; ++i)
        for (int j = -reach; j <= reach; ++j)
            for (int k = -reach; k <= reach; ++k)
                sum += kernel.poly6(float(i * i + j * j + k * k) * dx_m * dx_m);
    return float(rho0 / sum);
}

float sound_speed(const SphParams& p) { return p.model == Model::wcsph ? p.c0 : std::sqrt(p.rheology.gas_constant); }
std::string_view to_string(Model v) { return enum_name(v, kModels); }
std::string_view to_string(StressForm v) { return enum_name(v, kStressForms); }
Model parse_model(std::string_view s, std::string_view source) { return parse_enum(s, kModels, source); }
StressForm parse_stress_form(std::string_view s, std::string_view source) {
    return parse_enum(s, kStressForms, source);
}

std::string_view to_string(KernelKind v) { return enum_name(v, kKernels); }
std::string_view to_string(DensityScheme v) { return enum_name(v, kDensity); }
std::string_view to_string(Integrator v) { return enum_name(v, kIntegrators); }
std::string_view to_string(DensityDiffusion v) { return enum_name(v, kDiffusion); }
std::string_view to_string(Face v) { return enum_name(v, kFaces); }
std::string_view to_string(Viscosity v) { return enum_name(v, kViscosity); }
Viscosity parse_viscosity(std::string_view s, std::string_view source) { return parse_enum(s, kViscosity, source); }

double viscous_dt_limit(const SphParams& p) {
    if (p.viscosity == Viscosity::artificial || p.laminar_nu <= 0.0f) return std::numeric_limits<double>::infinity();
    return 0.125 * double(p.h_m) * double(p.h_m) / double(p.laminar_nu);
}
std::string_view to_string(BoundaryScheme v) { return enum_name(v, kBoundarySchemes); }
std::string_view to_string(BoundaryVelocity v) { return enum_name(v, kBoundaryVelocities); }
BoundaryScheme parse_boundary(std::string_view s, std::string_view source) {
    return parse_enum(s, kBoundarySchemes, source);
}
BoundaryVelocity parse_boundary_velocity(std::string_view s, std::string_view source) {
    return parse_enum(s, kBoundaryVelocities, source);
}
std::string_view to_string(TerrainLaw v) { return enum_name(v, kTerrainLaws); }
TerrainLaw parse_terrain_law(std::string_view s, std::string_view source) {
    return parse_enum(s, kTerrainLaws, source);
}
KernelKind parse_kernel(std::string_view s, std::string_view source) { return parse_enum(s, kKernels, source); }
DensityScheme parse_density_scheme(std::string_view s, std::string_view source) {
    return parse_enum(s, kDensity, source);
}
Integrator parse_integrator(std::string_view s, std::string_view source) {
    return parse_enum(s, kIntegrators, source);
}
DensityDiffusion parse_diffusion(std::string_view s, std::string_view source) {
    return parse_enum(s, kDiffusion, source);
}

std::array<Face, 6> parse_faces(std::string_view s, std::string_view source) {
    std::vector<Face> faces;
    std::size_t start = 0;
    while (start <= s.size()) {
        std::size_t comma = s.find(',', start);
        if (comma == std::string_view::npos) comma = s.size();
        faces.push_back(parse_enum(s.substr(start, comma - start), kFaces, source));
        start = comma + 1;
    }
    if (faces.size() == 1) faces.assign(6, faces[0]);
    if (faces.size() != 6)
        throw UsageError(std::string(source) + " must be one face kind or six (x-,x+,y-,y+,z-,z+) (got '" + std::string(s) + "')");
    std::array<Face, 6> out{};
    for (int f = 0; f < 6; ++f) out[f] = faces[f];
    return out;
}

std::string faces_to_string(const std::array<Face, 6>& faces) {
    std::string s;
    for (int f = 0; f < 6; ++f) s += (f ? "," : "") + std::string(to_string(faces[f]));
    return s;
}

void validate(const SphParams& p) {
    // Each value names the attribute frames keep it in (sph-step's flags of the same name are
    // bounded where they are parsed, so these speak of the frame): "sph.cfl must be ... (got 5)".
    auto require = [](bool ok, const std::string& what) {
        if (!ok) throw UsageError(what);
    };
    const auto got = [](double v) { return " (got " + format_g(v) + ")"; };
    require(p.dx_m > 0, "sph.dx must be > 0" + got(p.dx_m));
    require(p.h_m > 0, "sph.h must be > 0" + got(p.h_m));
    require(p.rho0 > 0, "sph.rho0 must be > 0" + got(p.rho0));
    require(p.c0 > 0, "sph.c0 (--c0) must be > 0" + got(p.c0));
    require(p.gamma >= 1, "sph.gamma must be >= 1" + got(p.gamma));
    require(p.alpha >= 0, "sph.alpha (--alpha) must be >= 0" + got(p.alpha));
    require(p.laminar_nu >= 0, "sph.laminar_nu (--laminar-nu) must be >= 0" + got(p.laminar_nu));
    require(p.viscosity != Viscosity::laminar || p.laminar_nu > 0,
            "sph.laminar_nu (--laminar-nu) must be > 0 with sph.viscosity laminar" + got(p.laminar_nu));
    require(p.viscosity == Viscosity::artificial || !is_snow_model(p),
            "sph.viscosity (--viscosity) must be artificial with a snow model (its viscosity is the rheology's)");
    require(p.sps_smagorinsky >= 0 && p.sps_blin >= 0,
            "sph.sps_smagorinsky and sph.sps_blin (--sps-cs, --sps-ci) must be >= 0 (got " + format_g(p.sps_smagorinsky) +
                ", " + format_g(p.sps_blin) + ")");
    require(p.cfl > 0 && p.cfl <= 1, "sph.cfl (--cfl) must be > 0 and <= 1" + got(p.cfl));
    require(p.dt_max_s >= p.dt_min_s, "sph.dt_max (--dt-max) must be >= sph.dt_min, " + format_g(p.dt_min_s) + " s" + got(p.dt_max_s));
    require(p.shepard_every >= 0, "sph.shepard_every (--shepard-every) must be >= 0" + got(p.shepard_every));
    require(p.verlet_euler_every >= 1, "sph.verlet_euler_every (--verlet-euler-every) must be >= 1" + got(p.verlet_euler_every));
    require(p.xsph_epsilon >= 0 && p.xsph_epsilon <= 1, "sph.xsph_epsilon (--xsph) must be in 0..1" + got(p.xsph_epsilon));
    require((p.density_min == 0 && p.density_max == 0) || (p.density_min < p.rho0 && p.rho0 < p.density_max),
            "sph.density_min and sph.density_max (--density-limits) must enclose sph.rho0 " + format_g(p.rho0) +
                ", or both be 0 (off) (got " + format_g(p.density_min) + ", " + format_g(p.density_max) + ")");
    // The neighbour search squares distances in float (base/vec.hpp, kMaxCoordinate).
    require(kernel_support(p) <= kMaxCoordinate, "the kernel support (h times its radius) must be at most 1e18 m" + got(kernel_support(p)));
    for (int axis = 0; axis < 3; ++axis) {
        const std::string name = std::string(1, "xyz"[axis]);
        require(p.domain_max[axis] > p.domain_min[axis],
                "domain.max must exceed domain.min along " + name + " (got " + format_g(p.domain_min[axis]) + " to " +
                    format_g(p.domain_max[axis]) + ")");
        require(std::fabs(p.domain_min[axis]) <= kMaxCoordinate && std::fabs(p.domain_max[axis]) <= kMaxCoordinate,
                "the domain must lie within +-1e18 m along " + name);
        bool lo = p.faces[2 * axis] == Face::periodic, hi = p.faces[2 * axis + 1] == Face::periodic;
        require(lo == hi, "sph.faces (--faces) must make both faces along " + name + " periodic, or neither");
        if (lo)
            require(p.domain_max[axis] - p.domain_min[axis] >= 3.0f * kernel_support(p),
                    "a periodic axis must be at least three kernel supports long (" + name + ": " +
                        format_g(p.domain_max[axis] - p.domain_min[axis]) + " m, support " + format_g(kernel_support(p)) + " m)");
    }
    if (p.wave_maker.face >= 0) {
        require(p.wave_maker.face < 6 && p.faces[p.wave_maker.face] == Face::wall,
                "sph.wave_maker.face (--wave-face) must be a wall face (0..5 = x-..z+)" + got(p.wave_maker.face));
        require(p.wave_maker.period_s > 0, "sph.wave_maker.period (--wave-period) must be > 0" + got(p.wave_maker.period_s));
    }
    require(p.dt_fixed_s >= 0, "sph.dt_fixed (--dt) must be >= 0 (0: adaptive)" + got(p.dt_fixed_s));
    require(!(is_snow_model(p) && p.boundary == BoundaryScheme::mdbc),
            "sph.boundary (--boundary) mdbc is for the WCSPH model; the snow models have walls of their own (docs/SNOW.md)");
    if (is_snow_model(p)) {
        const Rheology& r = p.rheology;
        require(r.gas_constant > 0, "snow.gas_constant (--gas-constant) must be > 0" + got(r.gas_constant));
        require(r.mu >= 0, "snow.mu (--mu) must be >= 0" + got(r.mu));
        require(r.mu_solid >= 0, "snow.mu_solid (--mu-solid) must be >= 0" + got(r.mu_solid));
        require(r.yield_stress >= 0, "snow.yield_stress (--yield-stress) must be >= 0" + got(r.yield_stress));
        require(r.power_n > 0, "snow.power_n (--power-n) must be > 0" + got(r.power_n));
        require(r.xsph_phi >= 0 && r.xsph_phi <= 1, "snow.xsph_phi (--xsph-phi) must be in 0..1" + got(r.xsph_phi));
        require(r.max_speed >= 0, "snow.max_speed (--max-speed) must be >= 0 (0: off)" + got(r.max_speed));
        require(r.max_acceleration >= 0, "snow.max_acceleration (--max-acceleration) must be >= 0 (0: off)" + got(r.max_acceleration));
    }
    require(p.boundary_motion.period_s > 0, "sph.boundary_motion.period must be > 0" + got(p.boundary_motion.period_s));
    require(p.boundary_motion.duration_s >= 0, "sph.boundary_motion.duration must be >= 0" + got(p.boundary_motion.duration_s));
    if (!p.terrain.empty())
        require(p.terrain.nx >= 2 && p.terrain.nz >= 2 &&
                    p.terrain.height_m.size() == std::size_t(p.terrain.nx) * std::size_t(p.terrain.nz) &&
                    p.terrain.cell_m > 0,
                "terrain: need nx, nz >= 2, nx * nz heights and a positive cell size");
    const TerrainContact& c = p.terrain_contact;
    require(c.stiffness >= 0 && c.damping >= 0 && c.friction >= 0 && c.friction_height_m >= 0 && c.tile_m >= 0,
            "terrain stiffness, damping, friction, friction height and tile size must not be negative");
}

}  // namespace partikel::sph
