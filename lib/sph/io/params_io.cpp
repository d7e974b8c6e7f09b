#include "sph/io/params_io.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <variant>

#include "base/error.hpp"
#include "base/units.hpp"
#include "formats/attributes.hpp"
#include "formats/held.hpp"

namespace partikel::sph {

namespace {

// Every parameter a frame carries, once: its attribute key and where it lives in SphParams.
struct RealParam {
    const char* key;
    float& (*field)(SphParams&);
};
struct IntParam {
    const char* key;
    int& (*field)(SphParams&);
};
struct VectorParam {
    const char* key;
    Vec3f& (*field)(SphParams&);
};
struct NamedParam {  // an enumeration, as its name
    const char* key;
    std::string (*write)(const SphParams&);
    void (*read)(SphParams&, const std::string&);
};

#define PK_FIELD(member) [](SphParams& p) -> decltype(auto) { return (p.member); }
const RealParam kReals[] = {
    {"sph.dx", PK_FIELD(dx_m)},
    {"sph.h", PK_FIELD(h_m)},
    {"sph.rho0", PK_FIELD(rho0)},
    {"sph.c0", PK_FIELD(c0)},
    {"sph.gamma", PK_FIELD(gamma)},
    {"sph.alpha", PK_FIELD(alpha)},
    {"sph.laminar_nu", PK_FIELD(laminar_nu)},
    {"sph.sps_smagorinsky", PK_FIELD(sps_smagorinsky)},
    {"sph.sps_blin", PK_FIELD(sps_blin)},
    {"sph.xsph_epsilon", PK_FIELD(xsph_epsilon)},
    {"sph.diffusion_delta", PK_FIELD(diffusion_delta)},
    {"sph.cfl", PK_FIELD(cfl)},
    {"sph.dt_max", PK_FIELD(dt_max_s)},
    {"sph.dt_min", PK_FIELD(dt_min_s)},
    {"sph.runaway_speed", PK_FIELD(runaway_speed)},
    {"sph.density_min", PK_FIELD(density_min)},
    {"sph.density_max", PK_FIELD(density_max)},
    {"sph.wall_stiffness", PK_FIELD(wall_stiffness)},
    {"sph.wall_damping", PK_FIELD(wall_damping)},
    {"sph.wave_maker.amplitude", PK_FIELD(wave_maker.amplitude_m)},
    {"sph.wave_maker.period", PK_FIELD(wave_maker.period_s)},
    {"sph.boundary_motion.period", PK_FIELD(boundary_motion.period_s)},
    {"sph.boundary_motion.duration", PK_FIELD(boundary_motion.duration_s)},
    {"sph.terrain.stiffness", PK_FIELD(terrain_contact.stiffness)},
    {"sph.terrain.damping", PK_FIELD(terrain_contact.damping)},
    {"sph.terrain.friction", PK_FIELD(terrain_contact.friction)},
    {"sph.terrain.friction_height", PK_FIELD(terrain_contact.friction_height_m)},
    {"sph.terrain.tile", PK_FIELD(terrain_contact.tile_m)},
    {"sph.dt_fixed", PK_FIELD(dt_fixed_s)},
    {"snow.gas_constant", PK_FIELD(rheology.gas_constant)},
    {"snow.mu", PK_FIELD(rheology.mu)},
    {"snow.mu_solid", PK_FIELD(rheology.mu_solid)},
    {"snow.yield_stress", PK_FIELD(rheology.yield_stress)},
    {"snow.power_n", PK_FIELD(rheology.power_n)},
    {"snow.xsph_phi", PK_FIELD(rheology.xsph_phi)},
    {"snow.max_speed", PK_FIELD(rheology.max_speed)},
    {"snow.max_acceleration", PK_FIELD(rheology.max_acceleration)},
    {"snow.mode_control", PK_FIELD(rheology.mode_control)},
};
const IntParam kInts[] = {
    {"sph.shepard_every", PK_FIELD(shepard_every)},
    {"sph.verlet_euler_every", PK_FIELD(verlet_euler_every)},
    {"sph.wave_maker.face", PK_FIELD(wave_maker.face)},
};
const VectorParam kVectors[] = {
    {"sph.gravity", PK_FIELD(gravity)},
    {"domain.min", PK_FIELD(domain_min)},
    {"domain.max", PK_FIELD(domain_max)},
    {"sph.boundary_motion.amplitude", PK_FIELD(boundary_motion.amplitude_m)},
    {"sph.boundary_motion.velocity", PK_FIELD(boundary_motion.velocity_m_s)},
};
#undef PK_FIELD
const NamedParam kNamed[] = {
    {"sph.kernel", [](const SphParams& p) { return std::string(to_string(p.kernel)); },
     [](SphParams& p, const std::string& s) { p.kernel = parse_kernel(s); }},
    {"sph.density", [](const SphParams& p) { return std::string(to_string(p.density)); },
     [](SphParams& p, const std::string& s) { p.density = parse_density_scheme(s); }},
    {"sph.diffusion", [](const SphParams& p) { return std::string(to_string(p.diffusion)); },
     [](SphParams& p, const std::string& s) { p.diffusion = parse_diffusion(s); }},
    {"sph.viscosity", [](const SphParams& p) { return std::string(to_string(p.viscosity)); },
     [](SphParams& p, const std::string& s) { p.viscosity = parse_viscosity(s); }},
    {"sph.boundary", [](const SphParams& p) { return std::string(to_string(p.boundary)); },
     [](SphParams& p, const std::string& s) { p.boundary = parse_boundary(s); }},
    {"sph.boundary_velocity", [](const SphParams& p) { return std::string(to_string(p.boundary_velocity)); },
     [](SphParams& p, const std::string& s) { p.boundary_velocity = parse_boundary_velocity(s); }},
    {"sph.integrator", [](const SphParams& p) { return std::string(to_string(p.integrator)); },
     [](SphParams& p, const std::string& s) { p.integrator = parse_integrator(s); }},
    {"sph.faces", [](const SphParams& p) { return faces_to_string(p.faces); },
     [](SphParams& p, const std::string& s) { p.faces = parse_faces(s); }},
    {"sph.terrain.law", [](const SphParams& p) { return std::string(to_string(p.terrain_contact.law)); },
     [](SphParams& p, const std::string& s) { p.terrain_contact.law = parse_terrain_law(s); }},
    {"sph.model", [](const SphParams& p) { return std::string(to_string(p.model)); },
     [](SphParams& p, const std::string& s) { p.model = parse_model(s); }},
    {"snow.stress_form", [](const SphParams& p) { return std::string(to_string(p.rheology.stress_form)); },
     [](SphParams& p, const std::string& s) { p.rheology.stress_form = parse_stress_form(s); }},
};

const fmt::AttributeValue* find(const fmt::Frame& frame, const char* key) {
    auto it = frame.attributes.find(key);
    return it == frame.attributes.end() ? nullptr : &it->second;
}

}  // namespace

void write_attributes(const SphParams& params, fmt::Frame& frame) {
    SphParams p = params;  // the accessors are shared with reading
    auto& a = frame.attributes;
    for (const auto& r : kReals) a[r.key] = double(r.field(p));
    for (const auto& r : kInts) a[r.key] = std::int64_t(r.field(p));
    for (const auto& r : kVectors) {
        const Vec3f v = r.field(p);
        a[r.key] = std::vector<double>{v.x, v.y, v.z};
    }
    for (const auto& r : kNamed) a[r.key] = r.write(p);
    if (!p.terrain.empty()) {
        a["sph.terrain.nx"] = std::int64_t(p.terrain.nx);
        a["sph.terrain.nz"] = std::int64_t(p.terrain.nz);
        a["sph.terrain.x0"] = double(p.terrain.x0_m);
        a["sph.terrain.z0"] = double(p.terrain.z0_m);
        a["sph.terrain.cell"] = double(p.terrain.cell_m);
        // The heights are the same in every frame: a held group, stored once per file.
        fmt::Group& g = frame.add_group(std::string(kTerrainGroup), p.terrain.height_m.size());
        fmt::Column& heights = g.add_column("height", ScalarType::f32, 1, units::length);
        std::copy(p.terrain.height_m.begin(), p.terrain.height_m.end(), heights.values<float>().begin());
        fmt::mark_held(frame, kTerrainGroup);
    }
}

SphParams read_attributes(const fmt::Frame& frame, SphParams p) {
    // Each value within what its field holds (formats/attributes.hpp); SphParams::validate
    // judges the physics after.
    for (const auto& r : kReals)
        if (const auto v = fmt::real_attribute(frame, r.key)) r.field(p) = static_cast<float>(*v);
    for (const auto& r : kInts)
        if (const auto v = fmt::integer_attribute(frame, r.key)) r.field(p) = static_cast<int>(*v);
    for (const auto& r : kVectors)
        if (const auto v = fmt::vector_attribute(frame, r.key, 3)) r.field(p) = {float((*v)[0]), float((*v)[1]), float((*v)[2])};
    for (const auto& r : kNamed)
        if (const auto text = fmt::text_attribute(frame, r.key)) {
            try {
                r.read(p, *text);
            } catch (const UsageError& e) {  // a name the file holds, not one the user typed
                throw FormatError(std::string("attribute ") + r.key + ": " + e.what());
            }
        }
    // Frames before sph.viscosity switched the laminar term on with sph.laminar_nu > 0.
    if (!find(frame, "sph.viscosity")) {
        const auto nu = fmt::real_attribute(frame, "sph.laminar_nu");
        p.viscosity = nu && *nu > 0.0 ? Viscosity::laminar : Viscosity::artificial;
    }
    const fmt::Group* group = frame.find_group(kTerrainGroup);
    const auto* legacy = find(frame, "sph.terrain.height");  // frames before held groups
    if (group || legacy || find(frame, "sph.terrain.nx")) {
        for (const auto& [key, out] : {std::pair{"sph.terrain.nx", &p.terrain.nx}, std::pair{"sph.terrain.nz", &p.terrain.nz}}) {
            const auto v = fmt::integer_attribute(frame, key, 0);
            if (!v) throw FormatError(std::string("terrain without attribute ") + key);
            *out = static_cast<int>(*v);
        }
        for (const auto& [key, out] : {std::pair{"sph.terrain.x0", &p.terrain.x0_m}, std::pair{"sph.terrain.z0", &p.terrain.z0_m},
                                       std::pair{"sph.terrain.cell", &p.terrain.cell_m}})
            if (const auto v = fmt::real_attribute(frame, key)) *out = static_cast<float>(*v);
        if (group) {
            const fmt::Column* heights = group->find("height");
            if (!heights || heights->type() != ScalarType::f32 || heights->components() != 1)
                throw FormatError("group terrain has no f32 column 'height'");
            const auto values = heights->values<float>();
            p.terrain.height_m.assign(values.begin(), values.end());
        } else if (legacy) {
            auto* h = std::get_if<std::vector<double>>(legacy);
            if (!h) throw FormatError("attribute sph.terrain.height is not a vector");
            p.terrain.height_m.assign(h->begin(), h->end());
        } else {
            throw FormatError("the frame names a terrain (sph.terrain.nx) but holds no group terrain");
        }
        for (std::size_t i = 0; i < p.terrain.height_m.size(); ++i)
            if (!std::isfinite(p.terrain.height_m[i]))
                throw FormatError("terrain: height " + std::to_string(i) + " is not a finite number");
        if (p.terrain.height_m.size() != std::size_t(std::max(p.terrain.nx, 0)) * std::size_t(std::max(p.terrain.nz, 0)))
            throw FormatError("terrain: " + std::to_string(p.terrain.height_m.size()) + " heights for " +
                              std::to_string(p.terrain.nx) + " x " + std::to_string(p.terrain.nz) + " samples");
    }
    return p;
}

void SphParamOverrides::apply(SphParams& p) const {
    if (alpha) p.alpha = *alpha;
    if (c0) p.c0 = *c0;
    if (viscosity) p.viscosity = parse_viscosity(*viscosity, "--viscosity");
    if (laminar_nu) {
        // One switch for the laminar term (--viscosity); its viscosity alone would do nothing.
        if (p.viscosity == Viscosity::artificial)
            throw UsageError("--laminar-nu needs --viscosity laminar or laminar-sps (the frame's viscosity is artificial)");
        p.laminar_nu = *laminar_nu;
    }
    if (sps_cs) p.sps_smagorinsky = *sps_cs;
    if (sps_ci) p.sps_blin = *sps_ci;
    if (gravity.size() == 3) p.gravity = {gravity[0], gravity[1], gravity[2]};
    if (kernel) p.kernel = parse_kernel(*kernel, "--kernel");
    if (density) p.density = parse_density_scheme(*density, "--density");
    if (shepard_every) p.shepard_every = *shepard_every;
    if (xsph) p.xsph_epsilon = *xsph;
    if (diffusion) p.diffusion = parse_diffusion(*diffusion, "--diffusion");
    if (delta) p.diffusion_delta = *delta;
    if (integrator) p.integrator = parse_integrator(*integrator, "--integrator");
    if (boundary) p.boundary = parse_boundary(*boundary, "--boundary");
    if (boundary_velocity) p.boundary_velocity = parse_boundary_velocity(*boundary_velocity, "--boundary-velocity");
    if (verlet_euler_every) p.verlet_euler_every = *verlet_euler_every;
    if (cfl) p.cfl = *cfl;
    if (dt_max) p.dt_max_s = *dt_max;
    if (density_limits.size() == 2) {
        p.density_min = density_limits[0];
        p.density_max = density_limits[1];
    }
    if (faces) p.faces = parse_faces(*faces, "--faces");
    if (wall_stiffness) p.wall_stiffness = *wall_stiffness;
    if (wall_damping) p.wall_damping = *wall_damping;
    if (wave_face) p.wave_maker.face = *wave_face;
    if (wave_amplitude) p.wave_maker.amplitude_m = *wave_amplitude;
    if (wave_period) p.wave_maker.period_s = *wave_period;
    if (terrain_law) p.terrain_contact.law = parse_terrain_law(*terrain_law, "--terrain-law");
    if (terrain_stiffness) p.terrain_contact.stiffness = *terrain_stiffness;
    if (terrain_damping) p.terrain_contact.damping = *terrain_damping;
    if (terrain_friction) p.terrain_contact.friction = *terrain_friction;
    if (terrain_friction_height) p.terrain_contact.friction_height_m = *terrain_friction_height;
    if (terrain_tile) p.terrain_contact.tile_m = *terrain_tile;
    if (model) p.model = parse_model(*model, "--model");
    if (stress_form) p.rheology.stress_form = parse_stress_form(*stress_form, "--stress-form");
    if (dt) p.dt_fixed_s = *dt;
    if (gas_constant) p.rheology.gas_constant = *gas_constant;
    if (mu) p.rheology.mu = *mu;
    if (mu_solid) p.rheology.mu_solid = *mu_solid;
    if (yield_stress) p.rheology.yield_stress = *yield_stress;
    if (power_n) p.rheology.power_n = *power_n;
    if (xsph_phi) p.rheology.xsph_phi = *xsph_phi;
    if (max_speed) p.rheology.max_speed = *max_speed;
    if (max_acceleration) p.rheology.max_acceleration = *max_acceleration;
    if (mode_control) p.rheology.mode_control = *mode_control;
}

}  // namespace partikel::sph
