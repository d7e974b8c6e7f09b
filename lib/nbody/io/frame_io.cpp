#include "nbody/io/frame_io.hpp"

#include <cfloat>
#include <cmath>
#include <string>

#include "base/error.hpp"
#include "base/log.hpp"
#include "base/vec.hpp"
#include "formats/attributes.hpp"

namespace partikel::nbody {

namespace {

// Values of a column as double, `components` per row; f32 or f64.
std::vector<double> column_values(const fmt::Group& g, const fmt::Column& c, std::uint32_t components) {
    if (c.components() != components || (c.type() != fmt::ScalarType::f32 && c.type() != fmt::ScalarType::f64))
        throw FormatError("group \"" + g.name() + "\": column \"" + c.name() + "\" is " +
                          std::string(fmt::scalar_name(c.type())) + " x " + std::to_string(c.components()) +
                          ", expected f32 or f64 x " + std::to_string(components));
    std::vector<double> out(c.count() * components);
    if (c.type() == fmt::ScalarType::f32) {
        auto v = c.values<float>();
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = v[i];
    } else {
        auto v = c.values<double>();
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = v[i];
    }
    return out;
}

// Factor from the column's unit to the model unit `model` (the same dimension, or none).
double to_model_unit(const fmt::Group& g, const fmt::Column& c, const Unit& model, const UnitSystem& units) {
    const Unit& u = c.unit();
    if (u.dimension == units::none.dimension) return 1.0;  // dimensionless values are model units
    if (!units.has_si())
        throw FormatError("group \"" + g.name() + "\": column \"" + c.name() + "\" is in " + fmt::unit_symbol(u) +
                          ", but the run uses N-body units, which have no SI meaning: give the column dimensionless (a CSV "
                          "comment # unit: " + c.name() + " 0 0 0 0 0 0 0 1), or run in astro units (nbody-run --units astro)");
    if (u.dimension != model.dimension)
        throw FormatError("group \"" + g.name() + "\": column \"" + c.name() + "\" is in " + fmt::unit_symbol(u) +
                          ", expected the dimension of " + fmt::unit_symbol(Unit{model.dimension, 1.0}));
    return u.si_factor / model.si_factor;
}

}  // namespace

void write_attributes(const NbodyParams& p, fmt::Frame& frame) {
    auto& a = frame.attributes;
    a["nbody.units"] = std::string(unit_system_name(p.units.kind));
    a["nbody.G"] = p.units.G;
    a["nbody.method"] = std::string(force_method_name(p.method));
    a["nbody.dt"] = p.dt;
    a["nbody.softening"] = double(p.softening);
    a["nbody.theta"] = double(p.theta);
    a["nbody.leaf_capacity"] = std::int64_t(p.leaf_capacity);
    a["nbody.max_depth"] = std::int64_t(p.max_depth);
    a["nbody.quadrupole"] = std::int64_t(p.quadrupole ? 1 : 0);
}

NbodyParams read_attributes(const fmt::Frame& frame, const NbodyParams& defaults) {
    NbodyParams p = defaults;
    try {
        if (const auto units = fmt::text_attribute(frame, "nbody.units")) p.units = parse_unit_system(*units);
        if (const auto method = fmt::text_attribute(frame, "nbody.method")) p.method = parse_force_method(*method);
    } catch (const UsageError& e) {
        throw FormatError(std::string("frame attributes: ") + e.what());
    }
    // Each value within what its field holds (formats/attributes.hpp); validate() judges the rest.
    p.units.G = fmt::real_attribute(frame, "nbody.G", -DBL_MAX, DBL_MAX).value_or(p.units.G);
    p.dt = fmt::real_attribute(frame, "nbody.dt", -DBL_MAX, DBL_MAX).value_or(p.dt);
    p.softening = float(fmt::real_attribute(frame, "nbody.softening").value_or(p.softening));
    p.theta = float(fmt::real_attribute(frame, "nbody.theta").value_or(p.theta));
    p.leaf_capacity = int(fmt::integer_attribute(frame, "nbody.leaf_capacity").value_or(p.leaf_capacity));
    p.max_depth = int(fmt::integer_attribute(frame, "nbody.max_depth").value_or(p.max_depth));
    p.quadrupole = fmt::integer_attribute(frame, "nbody.quadrupole", 0, 1).value_or(p.quadrupole ? 1 : 0) != 0;
    return p;
}

fmt::Frame make_frame(const Bodies& b, const NbodyParams& p, std::int64_t step, double time, double dt,
                      const std::vector<Vec4f>* accelerations, bool with_potential) {
    const std::size_t n = b.size();
    if (accelerations && accelerations->size() != n)
        throw UsageError("make_frame: " + std::to_string(accelerations->size()) + " accelerations for " +
                         std::to_string(n) + " bodies");
    fmt::Frame frame;
    frame.step = step;
    frame.time = time;
    frame.dt = dt;
    frame.time_unit_si = p.units.has_si() ? p.units.time_si() : 1.0;
    write_attributes(p, frame);
    fmt::Group& g = frame.add_group(kBodiesGroup, n);
    auto vec3 = [&](const char* name, const Unit& unit, auto get) {
        fmt::Column& c = g.add_well_known(name);
        c.set_unit(unit);
        auto v = c.values<float>();
        for (std::size_t i = 0; i < n; ++i) {
            const auto x = get(i);
            v[3 * i] = float(x.x), v[3 * i + 1] = float(x.y), v[3 * i + 2] = float(x.z);
        }
    };
    vec3("position", p.units.length(), [&](std::size_t i) { return b.position[i]; });
    vec3("velocity", p.units.velocity(), [&](std::size_t i) { return b.velocity[i]; });
    fmt::Column& mass = g.add_well_known("mass");
    mass.set_unit(p.units.mass());
    auto m = mass.values<float>();
    for (std::size_t i = 0; i < n; ++i) m[i] = float(b.mass[i]);
    auto id = g.add_well_known("id").values<std::uint64_t>();
    for (std::size_t i = 0; i < n; ++i) id[i] = b.id[i];
    if (accelerations) {
        vec3("acceleration", p.units.acceleration(), [&](std::size_t i) { return (*accelerations)[i]; });
        if (with_potential) {
            fmt::Column& phi = g.add_well_known("potential");
            phi.set_unit(p.units.specific_energy());
            auto v = phi.values<float>();
            for (std::size_t i = 0; i < n; ++i) v[i] = (*accelerations)[i].w;
        }
    }
    return frame;
}

StartState read_start(const fmt::Frame& frame, const NbodyParams& defaults) {
    StartState s;
    s.params = read_attributes(frame, defaults);
    s.step = frame.step;
    s.time = frame.time;
    const UnitSystem& units = s.params.units;
    const fmt::Group* g = frame.find_group(kBodiesGroup);
    if (!g) throw FormatError(std::string("frame has no \"") + kBodiesGroup + "\" group");
    const std::size_t n = g->count();
    if (n < 2)
        throw FormatError("group \"" + g->name() + "\" has " + std::to_string(n) +
                          (n == 1 ? " body" : " bodies") + "; an N-body run needs at least two");
    const fmt::Column* pos = g->find("position");
    if (!pos) throw FormatError("group \"" + g->name() + "\" has no position column");
    const fmt::Column* mass = g->find("mass");
    if (!mass) throw FormatError("group \"" + g->name() + "\" has no mass column");
    const fmt::Column* vel = g->find("velocity");
    const fmt::Column* ids = g->find("id");
    const std::vector<double> x = column_values(*g, *pos, 3), m = column_values(*g, *mass, 1);
    const std::vector<double> v = vel ? column_values(*g, *vel, 3) : std::vector<double>(3 * n, 0.0);
    const double fx = to_model_unit(*g, *pos, units.length(), units);
    const double fm = to_model_unit(*g, *mass, units.mass(), units);
    const double fv = vel ? to_model_unit(*g, *vel, units.velocity(), units) : 1.0;
    if (ids && (ids->type() != fmt::ScalarType::u64 || ids->components() != 1))
        throw FormatError("group \"" + g->name() + "\": column \"id\" must be u64 x 1");
    s.bodies.resize(n);
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        auto where = [&](const char* column) {
            return "group \"" + g->name() + "\", row " + std::to_string(i) + ": " + column;
        };
        s.bodies.position[i] = Vec3d{fx * x[3 * i], fx * x[3 * i + 1], fx * x[3 * i + 2]};
        s.bodies.velocity[i] = Vec3d{fv * v[3 * i], fv * v[3 * i + 1], fv * v[3 * i + 2]};
        s.bodies.mass[i] = fm * m[i];
        s.bodies.id[i] = ids ? ids->values<std::uint64_t>()[i] : std::uint64_t(i);
        for (int k = 0; k < 3; ++k) {
            if (!std::isfinite(s.bodies.position[i][k])) throw FormatError(where("position is not finite"));
            if (std::fabs(s.bodies.position[i][k]) > kMaxCoordinate)
                throw FormatError(where("position") + " " + format_g(s.bodies.position[i][k]) +
                                  " lies beyond +-1e18 (model length units), where squared distances overflow float");
            if (!std::isfinite(s.bodies.velocity[i][k])) throw FormatError(where("velocity is not finite"));
        }
        if (!std::isfinite(s.bodies.mass[i])) throw FormatError(where("mass is not finite"));
        if (s.bodies.mass[i] < 0.0) throw FormatError(where("mass is negative"));
        total += s.bodies.mass[i];
    }
    if (!(total > 0.0)) throw FormatError("group \"" + g->name() + "\": the total mass is zero");
    return s;
}

}  // namespace partikel::nbody
