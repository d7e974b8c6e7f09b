#include "pic/io/frame_io.hpp"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "base/error.hpp"
#include "formats/attributes.hpp"

namespace partikel::pic::io {
namespace {

template <class T> void put(fmt::Group& g, int field, const std::vector<T>& values) {
    const FieldSpec& s = kBeamFields[field];
    fmt::Column& c = g.add_column(std::string(s.name), s.type, s.components, s.unit);
    if (!values.empty()) std::memcpy(c.raw().data(), values.data(), values.size() * sizeof(T));
}

template <class T> void get(const fmt::Group& g, int field, std::vector<T>& out, bool required) {
    const FieldSpec& s = kBeamFields[field];
    const fmt::Column* c = g.find(s.name);
    if (!c) {
        if (required) throw FormatError("group \"beam\": no column \"" + std::string(s.name) + "\"");
        return;
    }
    if (c->components() != 1)
        throw FormatError("group \"beam\": column \"" + std::string(s.name) + "\" must have one component");
    const bool float_wanted = std::is_floating_point_v<T>;
    if (is_float(c->type()) != float_wanted)
        throw FormatError("group \"beam\": column \"" + std::string(s.name) + "\" has type " +
                          std::string(scalar_name(c->type())) + ", expected " + (float_wanted ? "a float" : "an integer"));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(c->as_double(i));
}

}  // namespace

void add_beam_attributes(const BeamParameters& p, fmt::Frame& frame) {
    frame.attributes["pic.Z"] = std::int64_t(p.species.Z);
    frame.attributes["pic.A"] = std::int64_t(p.species.A);
    frame.attributes["pic.mass_kg"] = make_reference(p.species).mass_kg;
    frame.attributes["pic.kinetic_energy_per_nucleon_eV"] = p.species.kinetic_energy_per_nucleon_eV;
    frame.attributes["pic.intensity"] = p.intensity;
    frame.attributes["pic.coasting"] = std::int64_t(p.coasting ? 1 : 0);
    frame.attributes["pic.circumference_m"] = p.circumference_m;
}

void add_beam_physics_records(const BeamParameters& parameters, fmt::Group& g) {
    const double p0 = make_reference(parameters.species).momentum_kg_m_per_s;
    g.add_column("position", ScalarType::f64, 3, units::length);
    g.add_column("momentum", ScalarType::f64, 3, units::momentum);
    g.add_column("weight", ScalarType::f64, 1, units::none);
    // Spans after the last column is added (adding may move the columns, not their values).
    const auto column = [&](std::string_view name) { return g.find(name)->values<double>(); };
    const auto x = column("x"), xp = column("xp"), y = column("y"), yp = column("yp"), z = column("z"),
               delta = column("delta");
    const auto position = column("position"), momentum = column("momentum"), weight = column("weight");
    const auto n = static_cast<std::int64_t>(g.count());
    const double ions = n > 0 ? parameters.intensity / double(n) : 0.0;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
        const std::size_t k = std::size_t(i);
        const double pz = p0 * (1.0 + delta[k]) / std::sqrt(1.0 + xp[k] * xp[k] + yp[k] * yp[k]);
        position[3 * k] = x[k];
        position[3 * k + 1] = y[k];
        position[3 * k + 2] = z[k];
        momentum[3 * k] = xp[k] * pz;
        momentum[3 * k + 1] = yp[k] * pz;
        momentum[3 * k + 2] = pz;
        weight[k] = ions;
    }
}

fmt::Frame make_frame(const ParticleSet& p, const BeamParameters& parameters, std::int64_t turn, double time_s) {
    fmt::Frame frame;
    frame.step = turn;
    frame.time = time_s;
    add_beam_attributes(parameters, frame);
    fmt::Group& g = frame.add_group(kBeamGroup, p.size());
    put(g, f_x, p.x);
    put(g, f_xp, p.xp);
    put(g, f_y, p.y);
    put(g, f_yp, p.yp);
    put(g, f_z, p.z);
    put(g, f_delta, p.delta);
    put(g, f_id, p.id);
    put(g, f_status, p.status);
    put(g, f_lost_turn, p.lost_turn);
    put(g, f_lost_element, p.lost_element);
    if (parameters.beam_physics_records) add_beam_physics_records(parameters, g);
    return frame;
}

StartState read_frame(const fmt::Frame& frame) {
    const fmt::Group* g = frame.find_group(kBeamGroup);
    if (!g) throw FormatError("the frame has no group \"beam\"");
    StartState s;
    s.turn = frame.step;
    s.time_s = frame.time * frame.time_unit_si;
    ParticleSet& p = s.particles;
    p.resize(g->count());
    get(*g, f_x, p.x, true);
    get(*g, f_xp, p.xp, true);
    get(*g, f_y, p.y, true);
    get(*g, f_yp, p.yp, true);
    get(*g, f_z, p.z, true);
    get(*g, f_delta, p.delta, true);
    get(*g, f_id, p.id, false);
    get(*g, f_status, p.status, false);
    get(*g, f_lost_turn, p.lost_turn, false);
    get(*g, f_lost_element, p.lost_element, false);
    for (std::int32_t& status : p.status)
        if (status != kAlive) status = kLost;
    // Each value within what the beam holds (formats/attributes.hpp): a charge state or mass
    // number of 2^40 must not wrap, an intensity of inf or a NaN energy must not be tracked.
    const auto Z = fmt::integer_attribute(frame, "pic.Z", 1);
    if (Z) {
        BeamParameters b;
        b.species.Z = int(*Z);
        b.species.A = int(fmt::integer_attribute(frame, "pic.A", 1).value_or(1));
        b.species.mass_kg = fmt::real_attribute(frame, "pic.mass_kg", 0.0, DBL_MAX).value_or(0.0);
        const auto energy = fmt::real_attribute(frame, "pic.kinetic_energy_per_nucleon_eV", DBL_MIN, DBL_MAX);
        if (!energy) throw FormatError("pic.Z without pic.kinetic_energy_per_nucleon_eV");
        b.species.kinetic_energy_per_nucleon_eV = *energy;
        b.intensity = fmt::real_attribute(frame, "pic.intensity", 0.0, DBL_MAX).value_or(0.0);
        b.coasting = fmt::integer_attribute(frame, "pic.coasting", 0, 1).value_or(1) != 0;
        b.circumference_m = fmt::real_attribute(frame, "pic.circumference_m", 0.0, DBL_MAX).value_or(0.0);
        s.parameters = b;
    }
    return s;
}

}  // namespace partikel::pic::io
