#include "sph/params.hpp"

#include <cmath>

#include "base/error.hpp"

namespace partikel::sph {

float smoothing_length_hdx(float dx_m, float hdx) { return hdx * dx_m; }
float smoothing_length_coefh(float dx_m, float coefh) { return coefh * std::sqrt(3.0f) * dx_m; }

namespace {

template <class E, std::size_t N>
E parse_enum(std::string_view s, const std::array<std::pair<std::string_view, E>, N>& names, const char* what) {
    for (const auto& [name, value] : names)
        if (name == s) return value;
    std::string list;
    for (const auto& [name, value] : names) list += (list.empty() ? "" : ", ") + std::string(name);
    throw UsageError("unknown " + std::string(what) + " '" + std::string(s) + "' (one of: " + list + ")");
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
constexpr std::array<std::pair<std::string_view, Face>, 3> kFaces{
    {{"open", Face::open}, {"wall", Face::wall}, {"periodic", Face::periodic}}};

std::vector<double> vec(Vec3f v) { return {v.x, v.y, v.z}; }

}  // namespace

std::string_view to_string(KernelKind v) { return enum_name(v, kKernels); }
std::string_view to_string(DensityScheme v) { return enum_name(v, kDensity); }
std::string_view to_string(Integrator v) { return enum_name(v, kIntegrators); }
std::string_view to_string(DensityDiffusion v) { return enum_name(v, kDiffusion); }
std::string_view to_string(Face v) { return enum_name(v, kFaces); }
KernelKind parse_kernel(std::string_view s) { return parse_enum(s, kKernels, "kernel"); }
DensityScheme parse_density_scheme(std::string_view s) { return parse_enum(s, kDensity, "density scheme"); }
Integrator parse_integrator(std::string_view s) { return parse_enum(s, kIntegrators, "integrator"); }
DensityDiffusion parse_diffusion(std::string_view s) { return parse_enum(s, kDiffusion, "density diffusion"); }

std::array<Face, 6> parse_faces(std::string_view s) {
    std::vector<Face> faces;
    std::size_t start = 0;
    while (start <= s.size()) {
        std::size_t comma = s.find(',', start);
        if (comma == std::string_view::npos) comma = s.size();
        faces.push_back(parse_enum(s.substr(start, comma - start), kFaces, "face"));
        start = comma + 1;
    }
    if (faces.size() == 1) faces.assign(6, faces[0]);
    if (faces.size() != 6)
        throw UsageError("faces: give one value or six (x-,x+,y-,y+,z-,z+), got '" + std::string(s) + "'");
    std::array<Face, 6> out{};
    for (int f = 0; f < 6; ++f) out[f] = faces[f];
    return out;
}

std::string faces_to_string(const std::array<Face, 6>& faces) {
    std::string s;
    for (int f = 0; f < 6; ++f) s += (f ? "," : "") + std::string(to_string(faces[f]));
    return s;
}

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

void validate(const SphParams& p) {
    auto require = [](bool ok, const std::string& what) {
        if (!ok) throw UsageError(what);
    };
    require(p.dx_m > 0 && p.h_m > 0, "dx and h must be positive");
    require(p.rho0 > 0 && p.c0 > 0 && p.gamma >= 1, "rho0, c0 must be positive and gamma >= 1");
    require(p.alpha >= 0 && p.laminar_nu >= 0, "viscosities must be non-negative");
    require(p.cfl > 0 && p.cfl <= 1, "cfl must be in (0, 1]");
    require(p.shepard_every >= 0 && p.verlet_euler_every >= 1, "shepard/verlet intervals must be non-negative");
    require(p.xsph_epsilon >= 0 && p.xsph_epsilon <= 1, "xsph epsilon must be in [0, 1]");
    require((p.density_min == 0 && p.density_max == 0) || (p.density_min < p.rho0 && p.rho0 < p.density_max),
            "density limits must enclose rho0 (min < rho0 < max), or both be 0 (off)");
    for (int axis = 0; axis < 3; ++axis) {
        require(p.domain_max[axis] > p.domain_min[axis], "domain.max must exceed domain.min on every axis");
        bool lo = p.faces[2 * axis] == Face::periodic, hi = p.faces[2 * axis + 1] == Face::periodic;
        require(lo == hi, "periodic faces come in pairs (both faces of an axis)");
        if (lo)
            require(p.domain_max[axis] - p.domain_min[axis] >= 3.0f * 2.0f * p.h_m,
                    "a periodic axis must be at least three kernel supports (6h) long");
    }
    if (p.wave_maker.face >= 0) {
        require(p.wave_maker.face < 6 && p.faces[p.wave_maker.face] == Face::wall,
                "the wave maker must be a wall face");
        require(p.wave_maker.period_s > 0, "wave maker period must be positive");
    }
    require(p.boundary_motion.period_s > 0, "boundary motion period must be positive");
    if (!p.terrain.empty())
        require(p.terrain.nx >= 2 && p.terrain.nz >= 2 &&
                    p.terrain.height_m.size() == std::size_t(p.terrain.nx) * std::size_t(p.terrain.nz) &&
                    p.terrain.cell_m > 0,
                "terrain: need nx, nz >= 2, nx * nz heights and a positive cell size");
}

}  // namespace partikel::sph
