#include "nbody/io/simulation.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "base/error.hpp"
#include "nbody/fields.hpp"

namespace partikel::nbody {

NbodySimulation::NbodySimulation(const Backend& backend, const StartState& start, SimulationOptions options)
    : params_(start.params),
      options_(options),
      solver_(backend, start.params, start.bodies, start.step, start.time, options.solver) {
    for (int f = 0; f < field::count; ++f)
        if ((kNbodyFields[f].flags & kFieldWrite) || (f == field::acceleration && options.write_acceleration) ||
            (f == field::potential && options.write_potential))
            written_.push_back(f);
}

void NbodySimulation::step() { solver_.step(); }

double NbodySimulation::time_unit_si() const { return params_.units.has_si() ? params_.units.time_si() : 1.0; }

std::vector<run::DiagnosticsColumn> NbodySimulation::diagnostics_columns() const {
    const UnitSystem& u = params_.units;
    return {
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
}

std::vector<double> NbodySimulation::diagnostics() {
    const Diagnostics d = solver_.diagnostics();
    if (!initial_energy_) initial_energy_ = d.total;
    const double e0 = *initial_energy_;
    const double drift = e0 != 0.0 ? (d.total - e0) / std::fabs(e0) : 0.0;
    return {d.time,
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
}

std::vector<std::size_t> NbodySimulation::frame_buffer_capacity() const {
    std::vector<std::size_t> bytes;
    for (int f : written_) bytes.push_back(solver_.size() * field_element_bytes(kNbodyFields[f]));
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

fmt::Frame NbodySimulation::build_frame(std::span<const std::span<const std::byte>> host,
                                        const run::FrameCapture& capture) const {
    const std::size_t n = capture.count;
    if (host.size() != written_.size()) throw UsageError("nbody: a frame capture with the wrong number of buffers");
    std::array<std::span<const std::byte>, field::count> columns{};
    for (std::size_t i = 0; i < written_.size(); ++i) {
        const int f = written_[i];
        if (host[i].size() < n * field_element_bytes(kNbodyFields[f]))
            throw UsageError("nbody: a captured buffer is too short");
        columns[std::size_t(f)] = host[i];
    }
    auto records = [&](int f, auto type_tag) {
        using T = decltype(type_tag);
        std::vector<T> out(n);
        std::memcpy(out.data(), columns[std::size_t(f)].data(), n * sizeof(T));
        return out;
    };
    Bodies b;
    b.position = records(field::position, Vec3d{});
    b.velocity = records(field::velocity, Vec3d{});
    b.id = records(field::id, std::uint64_t{});
    const std::vector<float> mass = records(field::mass, float{});
    b.mass.assign(mass.begin(), mass.end());
    std::vector<Vec4f> accel;
    if (options_.write_acceleration) accel = records(field::acceleration, Vec4f{});
    if (options_.write_potential) {
        const std::vector<Vec4f> potential = records(field::potential, Vec4f{});
        if (accel.empty()) accel = potential;  // acceleration not asked for: only .w is written
        else
            for (std::size_t i = 0; i < n; ++i) accel[i].w = potential[i].w;
    }
    fmt::Frame frame;
    if (accel.empty()) {
        frame = make_frame(b, params_, capture.step, capture.time, capture.dt);
    } else {
        frame = make_frame(b, params_, capture.step, capture.time, capture.dt, &accel, options_.write_potential);
        if (!options_.write_acceleration) frame.group(kBodiesGroup).remove_column("acceleration");
    }
    for (const auto& [key, value] : capture.attributes) frame.attributes[key] = value;
    return frame;
}

}  // namespace partikel::nbody
