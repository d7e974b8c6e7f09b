#include "sph/io/simulation.hpp"

namespace partikel::sph {

SphSimulation::SphSimulation(const Backend& backend, const SimulationFrame& start, SolverOptions options)
    : solver_(backend, start.params, start.particles, start.step, start.time_s, options, start.previous),
      params_(start.params) {
    for (const FieldBuffer& f : solver_.written_fields()) written_.push_back(f.field);
}

std::vector<run::DiagnosticsColumn> SphSimulation::diagnostics_columns() const {
    return {{"step", units::none},
            {"time_s", units::time},
            {"dt_s", units::time},
            {"kinetic_J", units::energy},
            {"potential_J", units::energy},
            {"total_J", units::energy},
            {"max_speed_m_s", units::velocity},
            {"min_density_kg_m3", units::density},
            {"max_density_kg_m3", units::density},
            {"fluid_max_x_m", units::length},
            {"fluid_max_y_m", units::length},
            {"fluid_max_z_m", units::length},
            {"fluid", units::none},
            {"removed", units::none},
            {"momentum_x_kg_m_s", units::momentum},
            {"momentum_y_kg_m_s", units::momentum},
            {"momentum_z_kg_m_s", units::momentum},
            {"wall_impulse_x_N_s", units::momentum},
            {"wall_impulse_y_N_s", units::momentum},
            {"wall_impulse_z_N_s", units::momentum}};
}

std::vector<double> diagnostics_row(const Diagnostics& d) {
    return {double(d.step),
            d.time_s,
            d.dt_s,
            d.kinetic_J,
            d.potential_J,
            d.kinetic_J + d.potential_J,
            d.max_speed,
            d.min_density,
            d.max_density,
            d.fluid_max.x,
            d.fluid_max.y,
            d.fluid_max.z,
            double(d.fluid_count),
            double(d.removed),
            d.momentum_kg_m_s.x,
            d.momentum_kg_m_s.y,
            d.momentum_kg_m_s.z,
            d.wall_impulse_N_s.x,
            d.wall_impulse_N_s.y,
            d.wall_impulse_N_s.z};
}

std::vector<double> SphSimulation::diagnostics() { return diagnostics_row(solver_.diagnostics()); }

run::FrameCapture SphSimulation::frame_capture() {
    run::FrameCapture c;
    for (const FieldBuffer& f : solver_.written_fields()) c.buffers.push_back(f.bytes);
    c.step = solver_.step_count();
    c.time = solver_.time();
    c.dt = solver_.last_dt();
    c.count = solver_.size();
    c.attributes["sph.removed"] = static_cast<std::int64_t>(solver_.removed());
    return c;
}

fmt::Frame SphSimulation::build_frame(std::span<const std::span<const std::byte>> host,
                                      const run::FrameCapture& capture) const {
    HostState state;
    state.count = capture.count;
    for (std::size_t i = 0; i < written_.size() && i < host.size(); ++i)
        state.fields[static_cast<std::size_t>(written_[i])] = host[i];
    return make_frame(state, params_, capture.step, capture.time, capture.dt);
}

}  // namespace partikel::sph
