#include "nbody/io/simulation.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <algorithm>
#include <string>

#include "base/error.hpp"
#include "nbody/fields.hpp"
#include "nbody/partition.hpp"

namespace partikel::nbody {

NbodySimulation::NbodySimulation(const Backend& backend, const StartState& start, SimulationOptions options,
                                 const dist::Communicator& ranks)
    : ranks_(ranks),
      params_(start.params),
      options_(options),
      solver_(backend, start.params, start.bodies, start.step, start.time, options.solver, ranks) {
    for (int f = 0; f < field::count; ++f)
        if ((kNbodyFields[f].flags & kFieldWrite) || (f == field::acceleration && options.write_acceleration) ||
            (f == field::potential && options.write_potential))
            written_.push_back(f);
}

void NbodySimulation::step() { solver_.step(); }

double NbodySimulation::time_unit_si() const { return params_.units.has_si() ? params_.units.time_si() : 1.0; }

std::vector<run::DiagnosticsColumn> NbodySimulation::diagnostics_columns() const {
    const UnitSystem& u = params_.units;
    std::vector<run::DiagnosticsColumn> columns = {
        {"time", u.time()},
        {"kinetic_energy", u.energy()},
        {"potential_energy", u.energy()},
        {"total_energy", u.energy()},
        {"energy_drift", units::none},
        {"momentum_x", u.momentum()},
        {"momentum_y", u.momentum()},
        {"momentum_z", u.momentum()},
        {"angular_momentum_x", u.angular_momentum()},
        {"angular_momentum_y", u.angular_momentum()},
        {"angular_momentum_z", u.angular_momentum()},
        {"virial_ratio", units::none},
        {"lagrangian_radius_10", u.length()},
        {"lagrangian_radius_50", u.length()},
        {"lagrangian_radius_90", u.length()},
    };
    if (ranks_.size() > 1) {
        columns.push_back({"imbalance", units::none});
        columns.push_back({"migrated", units::none});
    }
    return columns;
}

std::vector<double> NbodySimulation::diagnostics() {
    const Diagnostics d = solver_.diagnostics();
    if (!initial_energy_) initial_energy_ = d.total;
    const double e0 = *initial_energy_;
    const double drift = e0 != 0.0 ? (d.total - e0) / std::fabs(e0) : 0.0;
    std::vector<double> row = {d.time,
                               d.kinetic,
                               d.potential,
                               d.total,
                               drift,
                               d.momentum.x,
                               d.momentum.y,
                               d.momentum.z,
                               d.angular_momentum.x,
                               d.angular_momentum.y,
                               d.angular_momentum.z,
                               d.virial_ratio,
                               d.lagrangian_radius[0],
                               d.lagrangian_radius[1],
                               d.lagrangian_radius[2]};
    if (ranks_.size() > 1) {
        row.push_back(solver_.imbalance());
        row.push_back(double(solver_.migrated()));
    }
    return row;
}

std::vector<std::size_t> NbodySimulation::frame_buffer_capacity() const {
    std::vector<std::size_t> bytes;
    for (int f : written_) bytes.push_back(solver_.capacity() * field_element_bytes(kNbodyFields[f]));
    return bytes;
}

run::FrameCapture NbodySimulation::frame_capture() {
    if (options_.write_potential) solver_.compute_potential();
    run::FrameCapture c;
    for (int f : written_) c.buffers.push_back(solver_.field_bytes(f));
    c.step = solver_.step_count();
    c.time = solver_.time();
    c.dt = solver_.last_dt();
    c.count = solver_.size();
    return c;
}

// The bodies of captured host buffers, and the acceleration column's records ((a, phi);
// empty when neither is written).
struct HostBodies {
    Bodies bodies;
    std::vector<Vec4f> accel;
};

namespace {

// `written`: the fields of the buffers, in capture order.
HostBodies host_bodies(std::span<const std::span<const std::byte>> host, std::size_t n, const std::vector<int>& written,
                       const SimulationOptions& options) {
    if (host.size() != written.size()) throw UsageError("nbody: a frame capture with the wrong number of buffers");
    std::array<std::span<const std::byte>, field::count> columns{};
    for (std::size_t i = 0; i < written.size(); ++i) {
        const int f = written[i];
        if (host[i].size() < n * field_element_bytes(kNbodyFields[f]))
            throw UsageError("nbody: a captured buffer is too short");
        columns[std::size_t(f)] = host[i];
    }
    auto records = [&](int f, auto type_tag) {
        using T = decltype(type_tag);
        std::vector<T> out(n);
        if (n) std::memcpy(out.data(), columns[std::size_t(f)].data(), n * sizeof(T));
        return out;
    };
    HostBodies h;
    Bodies& b = h.bodies;
    b.position = records(field::position, Vec3d{});
    b.velocity = records(field::velocity, Vec3d{});
    b.id = records(field::id, std::uint64_t{});
    const std::vector<float> mass = records(field::mass, float{});
    b.mass.assign(mass.begin(), mass.end());
    if (options.write_acceleration) h.accel = records(field::acceleration, Vec4f{});
    if (options.write_potential) {
        const std::vector<Vec4f> potential = records(field::potential, Vec4f{});
        if (h.accel.empty()) h.accel = potential;  // acceleration not asked for: only .w is written
        else
            for (std::size_t i = 0; i < n; ++i) h.accel[i].w = potential[i].w;
    }
    return h;
}

}  // namespace

fmt::Frame NbodySimulation::frame_of(const HostBodies& h, const run::FrameCapture& capture) const {
    fmt::Frame frame;
    if (h.accel.empty()) {
        frame = make_frame(h.bodies, params_, capture.step, capture.time, capture.dt);
    } else {
        frame = make_frame(h.bodies, params_, capture.step, capture.time, capture.dt, &h.accel, options_.write_potential);
        if (!options_.write_acceleration) frame.group(kBodiesGroup).remove_column("acceleration");
    }
    for (const auto& [key, value] : capture.attributes) frame.attributes[key] = value;
    return frame;
}

fmt::Frame NbodySimulation::build_frame(std::span<const std::span<const std::byte>> host,
                                        const run::FrameCapture& capture) const {
    return frame_of(host_bodies(host, capture.count, written_, options_), capture);
}

fmt::Frame NbodySimulation::build_frame(std::span<const run::RankFrame> ranks, const run::FrameCapture& capture) const {
    std::vector<HostBodies> parts;
    std::size_t n = 0;
    for (const run::RankFrame& r : ranks) {
        parts.push_back(host_bodies(r.buffers, r.count, written_, options_));
        n += r.count;
    }
    // (id, part, row) in id order.
    struct Row {
        std::uint64_t id;
        std::uint32_t part;
        std::uint32_t row;
    };
    std::vector<Row> order;
    order.reserve(n);
    for (std::size_t p = 0; p < parts.size(); ++p)
        for (std::size_t i = 0; i < parts[p].bodies.size(); ++i)
            order.push_back({parts[p].bodies.id[i], std::uint32_t(p), std::uint32_t(i)});
    std::sort(order.begin(), order.end(), [](const Row& a, const Row& b) { return a.id < b.id; });
    HostBodies all;
    all.bodies.resize(n);
    if (!parts.empty() && !parts[0].accel.empty()) all.accel.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        const HostBodies& from = parts[order[k].part];
        const std::size_t i = order[k].row;
        all.bodies.position[k] = from.bodies.position[i];
        all.bodies.velocity[k] = from.bodies.velocity[i];
        all.bodies.mass[k] = from.bodies.mass[i];
        all.bodies.id[k] = from.bodies.id[i];
        if (!all.accel.empty()) all.accel[k] = from.accel[i];
    }
    return frame_of(all, capture);
}

StartState scatter_start(const dist::Communicator& ranks, const std::function<StartState()>& read_on_root) {
    if (ranks.size() == 1) return read_on_root();
    const std::size_t size = std::size_t(ranks.size());
    StartState mine;
    std::vector<Bodies> shares(size);
    ranks.collectively([&] {
        if (!ranks.root()) return;
        StartState all = read_on_root();
        const std::vector<std::uint32_t> owner = curve_owners(all.bodies.position, ranks.size());
        for (std::size_t i = 0; i < all.bodies.size(); ++i) {
            Bodies& b = shares[owner[i]];
            b.position.push_back(all.bodies.position[i]);
            b.velocity.push_back(all.bodies.velocity[i]);
            b.mass.push_back(all.bodies.mass[i]);
            b.id.push_back(all.bodies.id[i]);
        }
        mine.params = all.params;
        mine.step = all.step;
        mine.time = all.time;
    });
    ranks.bcast_value(mine.params);
    ranks.bcast_value(mine.step);
    ranks.bcast_value(mine.time);
    // Counts, then the arrays.
    std::vector<std::uint64_t> counts(size, 0);
    for (std::size_t r = 0; r < size; ++r) counts[r] = shares[r].size();
    ranks.bcast(std::as_writable_bytes(std::span<std::uint64_t>(counts)));
    const std::size_t n = counts[std::size_t(ranks.rank())];
    if (!ranks.root()) mine.bodies.resize(n);
    else mine.bodies = std::move(shares[0]);
    std::vector<dist::SendBytes> sends;
    std::vector<dist::ReceiveBytes> receives;
    auto each_array = [](Bodies& b, auto&& f) {
        f(b.position.data(), b.position.size() * sizeof(Vec3d));
        f(b.velocity.data(), b.velocity.size() * sizeof(Vec3d));
        f(b.mass.data(), b.mass.size() * sizeof(double));
        f(b.id.data(), b.id.size() * sizeof(std::uint64_t));
    };
    if (ranks.root()) {
        for (std::size_t r = 1; r < size; ++r)
            each_array(shares[r], [&](const void* data, std::size_t bytes) { sends.push_back({int(r), data, bytes}); });
    } else {
        each_array(mine.bodies, [&](void* data, std::size_t bytes) { receives.push_back({0, data, bytes}); });
    }
    ranks.exchange_host(sends, receives);
    return mine;
}

}  // namespace partikel::nbody
