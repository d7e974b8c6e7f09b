#include "nbody/io/simulation.hpp"

#include <cmath>
#include <cstring>
#include <string>

#include "base/error.hpp"

namespace partikel::nbody {

namespace {

// Buffers of a capture, in this order (the optional ones only when written).
enum CaptureBuffer { kPosition, kVelocity, kBody, kId, kAcceleration, kPotential };

}  // namespace

NbodySimulation::NbodySimulation(const Backend& backend, const StartState& start, SimulationOptions options)
    : params_(start.params),
      options_(options),
      solver_(backend, start.params, start.bodies, start.step, start.time, options.solver) {}

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
    const std::size_t n = solver_.size();
    std::vector<std::size_t> bytes = {n * sizeof(Vec3d), n * sizeof(Vec3d), n * sizeof(Vec4f), n * sizeof(std::uint64_t)};
    if (options_.write_acceleration) bytes.push_back(n * sizeof(Vec4f));
    if (options_.write_potential) bytes.push_back(n * sizeof(Vec4f));
    return bytes;
}

run::FrameCapture NbodySimulation::frame_capture() {
    if (options_.write_potential) solver_.compute_potential();
    const Solver::DeviceView v = solver_.device_view();
    run::FrameCapture c;
    c.buffers = {{v.position, v.count * sizeof(Vec3d)},
                 {v.velocity, v.count * sizeof(Vec3d)},
                 {v.body, v.count * sizeof(Vec4f)},
                 {v.id, v.count * sizeof(std::uint64_t)}};
    if (options_.write_acceleration) c.buffers.push_back({v.acceleration, v.count * sizeof(Vec4f)});
    if (options_.write_potential) c.buffers.push_back({v.potential, v.count * sizeof(Vec4f)});
    c.step = solver_.step_count();
    c.time = solver_.time();
    c.dt = solver_.last_dt();
    c.count = v.count;
    return c;
}

fmt::Frame NbodySimulation::build_frame(std::span<const std::span<const std::byte>> host,
                                        const run::FrameCapture& capture) const {
    const std::size_t n = capture.count;
    const std::size_t expected = 4 + (options_.write_acceleration ? 1 : 0) + (options_.write_potential ? 1 : 0);
    if (host.size() != expected) throw UsageError("nbody: a frame capture with the wrong number of buffers");
    auto records = [&](std::size_t buffer, auto type_tag) {
        using T = decltype(type_tag);
        if (host[buffer].size() < n * sizeof(T)) throw UsageError("nbody: a captured buffer is too short");
        std::vector<T> out(n);
        std::memcpy(out.data(), host[buffer].data(), n * sizeof(T));
        return out;
    };
    Bodies b;
    b.position = records(kPosition, Vec3d{});
    b.velocity = records(kVelocity, Vec3d{});
    b.id = records(kId, std::uint64_t{});
    const std::vector<Vec4f> body = records(kBody, Vec4f{});
    b.mass.resize(n);
    for (std::size_t i = 0; i < n; ++i) b.mass[i] = body[i].w;
    std::size_t next = kAcceleration;
    std::vector<Vec4f> accel;
    if (options_.write_acceleration) accel = records(next++, Vec4f{});
    if (options_.write_potential) {
        const std::vector<Vec4f> potential = records(next, Vec4f{});
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
