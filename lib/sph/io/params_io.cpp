#include "sph/io/params_io.hpp"

#include <algorithm>
#include <variant>

#include "base/error.hpp"

namespace partikel::sph {

namespace {
std::vector<double> vec(Vec3f v) { return {v.x, v.y, v.z}; }
}  // namespace

void write_attributes(const SphParams& p, fmt::Frame& frame) {
    auto& a = frame.attributes;
    a["sph.dx"] = double(p.dx_m);
    a["sph.h"] = double(p.h_m);
    a["sph.rho0"] = double(p.rho0);
    a["sph.c0"] = double(p.c0);
    a["sph.gamma"] = double(p.gamma);
    a["sph.alpha"] = double(p.alpha);
    a["sph.laminar_nu"] = double(p.laminar_nu);
    a["sph.gravity"] = vec(p.gravity);
    a["sph.kernel"] = std::string(to_string(p.kernel));
    a["sph.density"] = std::string(to_string(p.density));
    a["sph.shepard_every"] = std::int64_t(p.shepard_every);
    a["sph.xsph_epsilon"] = double(p.xsph_epsilon);
    a["sph.diffusion"] = std::string(to_string(p.diffusion));
    a["sph.diffusion_delta"] = double(p.diffusion_delta);
    a["sph.integrator"] = std::string(to_string(p.integrator));
    a["sph.verlet_euler_every"] = std::int64_t(p.verlet_euler_every);
    a["sph.cfl"] = double(p.cfl);
    a["sph.dt_max"] = double(p.dt_max_s);
    a["sph.dt_min"] = double(p.dt_min_s);
    a["sph.runaway_speed"] = double(p.runaway_speed);
    a["sph.density_min"] = double(p.density_min);
    a["sph.density_max"] = double(p.density_max);
    a["domain.min"] = vec(p.domain_min);
    a["domain.max"] = vec(p.domain_max);
    a["sph.faces"] = faces_to_string(p.faces);
    a["sph.wall_stiffness"] = double(p.wall_stiffness);
    a["sph.wall_damping"] = double(p.wall_damping);
    a["sph.wave_maker.face"] = std::int64_t(p.wave_maker.face);
    a["sph.wave_maker.amplitude"] = double(p.wave_maker.amplitude_m);
    a["sph.wave_maker.period"] = double(p.wave_maker.period_s);
    a["sph.boundary_motion.amplitude"] = vec(p.boundary_motion.amplitude_m);
    a["sph.boundary_motion.period"] = double(p.boundary_motion.period_s);
    if (!p.terrain.empty()) {
        a["sph.terrain.nx"] = std::int64_t(p.terrain.nx);
        a["sph.terrain.nz"] = std::int64_t(p.terrain.nz);
        a["sph.terrain.x0"] = double(p.terrain.x0_m);
        a["sph.terrain.z0"] = double(p.terrain.z0_m);
        a["sph.terrain.cell"] = double(p.terrain.cell_m);
        a["sph.terrain.height"] = std::vector<double>(p.terrain.height_m.begin(), p.terrain.height_m.end());
    }
}

namespace {
struct AttributeReader {
    const fmt::Frame& frame;
    const fmt::AttributeValue* find(const char* key) const {
        auto it = frame.attributes.find(key);
        return it == frame.attributes.end() ? nullptr : &it->second;
    }
    void get(const char* key, float& out) const {
        if (auto* v = find(key)) {
            if (auto* d = std::get_if<double>(v))
                out = static_cast<float>(*d);
            else if (auto* i = std::get_if<std::int64_t>(v))
                out = static_cast<float>(*i);
            else
                throw FormatError(std::string("attribute ") + key + " is not a number");
        }
    }
    void get(const char* key, int& out) const {
        if (auto* v = find(key)) {
            if (auto* i = std::get_if<std::int64_t>(v))
                out = static_cast<int>(*i);
            else if (auto* d = std::get_if<double>(v))
                out = static_cast<int>(*d);
            else
                throw FormatError(std::string("attribute ") + key + " is not a number");
        }
    }
    void get(const char* key, Vec3f& out) const {
        if (auto* v = find(key)) {
            auto* d = std::get_if<std::vector<double>>(v);
            if (!d || d->size() != 3) throw FormatError(std::string("attribute ") + key + " is not a 3-vector");
            out = {float((*d)[0]), float((*d)[1]), float((*d)[2])};
        }
    }
    template <class F> void get_text(const char* key, F&& parse) const {
        if (auto* v = find(key)) {
            auto* s = std::get_if<std::string>(v);
            if (!s) throw FormatError(std::string("attribute ") + key + " is not text");
            parse(*s);
        }
    }
};
}  // namespace

SphParams read_attributes(const fmt::Frame& frame, SphParams p) {
    AttributeReader r{frame};
    r.get("sph.dx", p.dx_m);
    r.get("sph.h", p.h_m);
    r.get("sph.rho0", p.rho0);
    r.get("sph.c0", p.c0);
    r.get("sph.gamma", p.gamma);
    r.get("sph.alpha", p.alpha);
    r.get("sph.laminar_nu", p.laminar_nu);
    r.get("sph.gravity", p.gravity);
    r.get_text("sph.kernel", [&](const std::string& s) { p.kernel = parse_kernel(s); });
    r.get_text("sph.density", [&](const std::string& s) { p.density = parse_density_scheme(s); });
    r.get("sph.shepard_every", p.shepard_every);
    r.get("sph.xsph_epsilon", p.xsph_epsilon);
    r.get_text("sph.diffusion", [&](const std::string& s) { p.diffusion = parse_diffusion(s); });
    r.get("sph.diffusion_delta", p.diffusion_delta);
    r.get_text("sph.integrator", [&](const std::string& s) { p.integrator = parse_integrator(s); });
    r.get("sph.verlet_euler_every", p.verlet_euler_every);
    r.get("sph.cfl", p.cfl);
    r.get("sph.dt_max", p.dt_max_s);
    r.get("sph.dt_min", p.dt_min_s);
    r.get("sph.runaway_speed", p.runaway_speed);
    r.get("sph.density_min", p.density_min);
    r.get("sph.density_max", p.density_max);
    r.get("domain.min", p.domain_min);
    r.get("domain.max", p.domain_max);
    r.get_text("sph.faces", [&](const std::string& s) { p.faces = parse_faces(s); });
    r.get("sph.wall_stiffness", p.wall_stiffness);
    r.get("sph.wall_damping", p.wall_damping);
    r.get("sph.wave_maker.face", p.wave_maker.face);
    r.get("sph.wave_maker.amplitude", p.wave_maker.amplitude_m);
    r.get("sph.wave_maker.period", p.wave_maker.period_s);
    r.get("sph.boundary_motion.amplitude", p.boundary_motion.amplitude_m);
    r.get("sph.boundary_motion.period", p.boundary_motion.period_s);
    if (r.find("sph.terrain.height")) {
        r.get("sph.terrain.nx", p.terrain.nx);
        r.get("sph.terrain.nz", p.terrain.nz);
        r.get("sph.terrain.x0", p.terrain.x0_m);
        r.get("sph.terrain.z0", p.terrain.z0_m);
        r.get("sph.terrain.cell", p.terrain.cell_m);
        auto* h = std::get_if<std::vector<double>>(r.find("sph.terrain.height"));
        if (!h) throw FormatError("attribute sph.terrain.height is not a vector");
        p.terrain.height_m.assign(h->begin(), h->end());
    }
    return p;
}

void SphParamOverrides::apply(SphParams& p) const {
    if (alpha) p.alpha = *alpha;
    if (c0) p.c0 = *c0;
    if (laminar_nu) p.laminar_nu = *laminar_nu;
    if (gravity.size() == 3) p.gravity = {gravity[0], gravity[1], gravity[2]};
    if (kernel) p.kernel = parse_kernel(*kernel);
    if (density) p.density = parse_density_scheme(*density);
    if (shepard_every) p.shepard_every = *shepard_every;
    if (xsph) p.xsph_epsilon = *xsph;
    if (diffusion) p.diffusion = parse_diffusion(*diffusion);
    if (delta) p.diffusion_delta = *delta;
    if (integrator) p.integrator = parse_integrator(*integrator);
    if (verlet_euler_every) p.verlet_euler_every = *verlet_euler_every;
    if (cfl) p.cfl = *cfl;
    if (dt_max) p.dt_max_s = *dt_max;
    if (density_limits.size() == 2) {
        p.density_min = density_limits[0];
        p.density_max = density_limits[1];
    }
    if (faces) p.faces = parse_faces(*faces);
    if (wall_stiffness) p.wall_stiffness = *wall_stiffness;
    if (wall_damping) p.wall_damping = *wall_damping;
    if (wave_face) p.wave_maker.face = *wave_face;
    if (wave_amplitude) p.wave_maker.amplitude_m = *wave_amplitude;
    if (wave_period) p.wave_maker.period_s = *wave_period;
}

}  // namespace partikel::sph
