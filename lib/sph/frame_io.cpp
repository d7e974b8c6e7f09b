#include "sph/frame_io.hpp"

#include <algorithm>

#include "base/error.hpp"
#include "sph/eos.hpp"

namespace partikel::sph {

namespace {

template <class T, class Get> void fill_column(fmt::Group& g, std::string_view name, std::size_t count, Get get) {
    auto values = g.add_well_known(name).values<T>();
    for (std::size_t i = 0; i < count; ++i) get(values, i);
}

void add_group(fmt::Frame& frame, const char* name, const ParticleSet& p, const PreviousStep& previous,
               const std::vector<std::uint32_t>& rows, const TaitEos& eos, bool with_kind) {
    const std::size_t n = rows.size();
    fmt::Group& g = frame.add_group(name, n);
    fill_column<float>(g, "position", n, [&](auto v, std::size_t i) {
        const Vec3f x = p.position[rows[i]];
        v[3 * i] = x.x, v[3 * i + 1] = x.y, v[3 * i + 2] = x.z;
    });
    fill_column<float>(g, "velocity", n, [&](auto v, std::size_t i) {
        const Vec3f x = p.velocity[rows[i]];
        v[3 * i] = x.x, v[3 * i + 1] = x.y, v[3 * i + 2] = x.z;
    });
    fill_column<float>(g, "density", n, [&](auto v, std::size_t i) { v[i] = p.density[rows[i]]; });
    fill_column<float>(g, "pressure", n, [&](auto v, std::size_t i) { v[i] = eos.pressure(p.density[rows[i]]); });
    fill_column<float>(g, "mass", n, [&](auto v, std::size_t i) { v[i] = p.mass[rows[i]]; });
    fill_column<std::uint64_t>(g, "id", n, [&](auto v, std::size_t i) { v[i] = p.id[rows[i]]; });
    if (with_kind)
        fill_column<std::uint8_t>(g, "kind", n, [&](auto v, std::size_t i) { v[i] = std::uint8_t(p.kind[rows[i]]); });
    auto order = g.add_column("order", fmt::ScalarType::u32, 1).values<std::uint32_t>();
    std::copy(rows.begin(), rows.end(), order.begin());
    if (previous.empty()) return;
    auto vel_prev =
        g.add_column("velocity_previous", fmt::ScalarType::f32, 3, fmt::well_known_column("velocity")->unit)
            .values<float>();
    for (std::size_t i = 0; i < n; ++i) {
        const Vec3f v = previous.velocity[rows[i]];
        vel_prev[3 * i] = v.x, vel_prev[3 * i + 1] = v.y, vel_prev[3 * i + 2] = v.z;
    }
    auto rho_prev =
        g.add_column("density_previous", fmt::ScalarType::f32, 1, fmt::well_known_column("density")->unit)
            .values<float>();
    for (std::size_t i = 0; i < n; ++i) rho_prev[i] = previous.density[rows[i]];
}

template <class T> std::span<const T> optional_column(const fmt::Group& g, std::string_view name, std::size_t comps) {
    const fmt::Column* c = g.find(name);
    if (!c) return {};
    if (c->type() != fmt::scalar_type_of<T>() || c->components() != comps)
        throw FormatError("group \"" + g.name() + "\": column \"" + std::string(name) + "\" has type " +
                          std::string(fmt::scalar_name(c->type())) + " x " + std::to_string(c->components()) +
                          ", expected " + std::string(fmt::scalar_name(fmt::scalar_type_of<T>())) + " x " +
                          std::to_string(comps));
    return c->values<T>();
}

}  // namespace

fmt::Frame make_frame(const ParticleSet& particles, const SphParams& params, std::int64_t step, double time_s,
                      double dt_s, const PreviousStep& previous) {
    if (!previous.empty() &&
        (previous.velocity.size() != particles.size() || previous.density.size() != particles.size()))
        throw UsageError("make_frame: the previous step has " + std::to_string(previous.velocity.size()) +
                         " velocities and " + std::to_string(previous.density.size()) + " densities for " +
                         std::to_string(particles.size()) + " particles");
    fmt::Frame frame;
    frame.step = step;
    frame.time = time_s;
    frame.dt = dt_s;
    write_attributes(params, frame);
    std::vector<std::uint32_t> fluid, boundary;
    for (std::size_t i = 0; i < particles.size(); ++i)
        (particles.kind[i] == ParticleKind::fluid ? fluid : boundary).push_back(std::uint32_t(i));
    const TaitEos eos = TaitEos::from_sound_speed(params.rho0, params.c0, params.gamma);
    add_group(frame, "fluid", particles, previous, fluid, eos, false);
    if (!boundary.empty()) add_group(frame, "boundary", particles, previous, boundary, eos, true);
    return frame;
}

fmt::Frame make_frame(const SolverFrame& state, const SphParams& params) {
    return make_frame(state.particles, params, state.step, state.time_s, state.dt_s, state.previous);
}

SimulationFrame read_frame(const fmt::Frame& frame, const SphParams& defaults) {
    SimulationFrame out;
    out.params = read_attributes(frame, defaults);
    out.step = frame.step;
    out.time_s = frame.time * frame.time_unit_si;
    const SphParams& p = out.params;
    ParticleSet& set = out.particles;
    std::vector<std::uint32_t> order;
    bool have_order = true;
    PreviousStep& previous = out.previous;
    bool have_previous = true;
    for (const char* name : {"fluid", "boundary"}) {
        const fmt::Group* g = frame.find_group(name);
        if (!g) {
            if (std::string_view(name) == "fluid") throw FormatError("frame has no \"fluid\" group");
            continue;
        }
        const std::size_t n = g->count();
        const fmt::Column* pos_col = g->find("position");
        if (!pos_col) throw FormatError("group \"" + g->name() + "\" has no position column");
        auto pos = optional_column<float>(*g, "position", 3);
        auto vel = optional_column<float>(*g, "velocity", 3);
        auto rho = optional_column<float>(*g, "density", 1);
        auto mass = optional_column<float>(*g, "mass", 1);
        auto ids = optional_column<std::uint64_t>(*g, "id", 1);
        auto kinds = optional_column<std::uint8_t>(*g, "kind", 1);
        auto ord = optional_column<std::uint32_t>(*g, "order", 1);
        auto vel_prev = optional_column<float>(*g, "velocity_previous", 3);
        auto rho_prev = optional_column<float>(*g, "density_previous", 1);
        have_order = have_order && !ord.empty();
        have_previous = have_previous && g->find("velocity_previous") && g->find("density_previous");
        const bool fluid = std::string_view(name) == "fluid";
        for (std::size_t i = 0; i < n; ++i) {
            set.position.push_back({pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]});
            set.velocity.push_back(vel.empty() ? Vec3f{0, 0, 0} : Vec3f{vel[3 * i], vel[3 * i + 1], vel[3 * i + 2]});
            set.density.push_back(rho.empty() ? p.rho0 : rho[i]);
            set.mass.push_back(mass.empty() ? p.lattice_mass_kg() : mass[i]);
            set.id.push_back(ids.empty() ? set.id.size() : ids[i]);
            ParticleKind k = fluid ? ParticleKind::fluid : ParticleKind::boundary;
            if (!fluid && !kinds.empty() && kinds[i] == std::uint8_t(ParticleKind::moving_boundary))
                k = ParticleKind::moving_boundary;
            set.kind.push_back(k);
            if (!ord.empty()) order.push_back(ord[i]);
            if (have_previous) {
                previous.velocity.push_back({vel_prev[3 * i], vel_prev[3 * i + 1], vel_prev[3 * i + 2]});
                previous.density.push_back(rho_prev[i]);
            }
        }
    }
    if (!have_previous || previous.velocity.size() != set.size()) previous = PreviousStep{};
    // Put particles back in their solver slots when "order" is a permutation.
    if (have_order && order.size() == set.size()) {
        std::vector<char> seen(set.size(), 0);
        bool permutation = true;
        for (auto o : order) {
            if (o >= set.size() || seen[o]) {
                permutation = false;
                break;
            }
            seen[o] = 1;
        }
        if (permutation) {
            ParticleSet sorted;
            const std::size_t n = set.size();
            sorted.position.resize(n);
            sorted.velocity.resize(n);
            sorted.density.resize(n);
            sorted.mass.resize(n);
            sorted.id.resize(n);
            sorted.kind.resize(n);
            for (std::size_t i = 0; i < n; ++i) {
                const auto o = order[i];
                sorted.position[o] = set.position[i];
                sorted.velocity[o] = set.velocity[i];
                sorted.density[o] = set.density[i];
                sorted.mass[o] = set.mass[i];
                sorted.id[o] = set.id[i];
                sorted.kind[o] = set.kind[i];
            }
            set = std::move(sorted);
            if (!previous.empty()) {
                PreviousStep sorted_previous;
                sorted_previous.velocity.resize(n);
                sorted_previous.density.resize(n);
                for (std::size_t i = 0; i < n; ++i) {
                    sorted_previous.velocity[order[i]] = previous.velocity[i];
                    sorted_previous.density[order[i]] = previous.density[i];
                }
                previous = std::move(sorted_previous);
            }
        }
    }
    return out;
}

}  // namespace partikel::sph
