#include "sph/io/simulation.hpp"

#include <array>

#include "base/error.hpp"
#include "run/start_frame.hpp"

namespace partikel::sph {

SphSimulation::SphSimulation(const Backend& backend, const SimulationFrame& start, SolverOptions options,
                             RankOptions ranks)
    : solver_(backend, start.params, start.particles, start.step, start.time_s, options, start.previous, std::move(ranks)),
      params_(start.params) {
    for (const FieldBuffer& f : solver_.written_fields()) written_.push_back(f.field);
}

std::vector<run::DiagnosticsColumn> SphSimulation::diagnostics_columns() const {
    std::vector<run::DiagnosticsColumn> columns{{"step", units::none},
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
    if (solver_.communicator().size() > 1) columns.push_back({"imbalance", units::none});
    return columns;
}

std::vector<double> diagnostics_row(const Diagnostics& d, bool imbalance) {
    std::vector<double> row{double(d.step),
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
    if (imbalance) row.push_back(d.imbalance);
    return row;
}

std::vector<double> SphSimulation::diagnostics() {
    return diagnostics_row(solver_.diagnostics(), solver_.communicator().size() > 1);
}

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

fmt::Frame SphSimulation::build_frame(std::span<const run::RankFrame> ranks, const run::FrameCapture& capture) const {
    std::vector<HostState> states(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        states[r].count = ranks[r].count;
        for (std::size_t i = 0; i < written_.size() && i < ranks[r].buffers.size(); ++i)
            states[r].fields[static_cast<std::size_t>(written_[i])] = ranks[r].buffers[i];
    }
    return make_frame(states, params_, capture.step, capture.time, capture.dt);
}

RankStart scatter_start(const dist::Communicator& ranks, const std::function<SimulationFrame()>& read_on_root,
                        StartSlabs cut) {
    const int size = ranks.size();
    if (size == 1) return {read_on_root(), dist::SlabDecomposition::whole(0)};
    dist::SlabDecomposition slabs;
    const fmt::Frame frame = run::scatter_frames(ranks, [&] {
        SimulationFrame all = read_on_root();
        const SphParams& p = all.params;
        std::array<double, 3> lo{}, hi{};
        std::array<bool, 3> periodic{};
        for (int k = 0; k < 3; ++k) {
            lo[std::size_t(k)] = p.domain_min[k];
            hi[std::size_t(k)] = p.domain_max[k];
            periodic[std::size_t(k)] = p.faces[2 * k] == Face::periodic;
        }
        const int axis = dist::slab_axis(lo, hi, periodic);
        if (axis < 0)
            throw UsageError("every axis of the domain is periodic: a run on " + std::to_string(size) +
                             " ranks cuts a non-periodic axis into slabs");
        const ParticleSet& set = all.particles;
        std::vector<float> x(set.size());
        for (std::size_t i = 0; i < set.size(); ++i) x[i] = set.position[i][axis];
        slabs = cut == StartSlabs::equal_widths
                    ? dist::slabs_by_width(axis, lo[std::size_t(axis)], hi[std::size_t(axis)], size)
                    : dist::slabs_by_count(axis, x, size);
        dist::check_slab_width(slabs, lo[std::size_t(axis)], hi[std::size_t(axis)], halo_reach(p));
        // Each rank's particles (and previous step), in the frame's order.
        std::vector<std::vector<std::size_t>> rows(static_cast<std::size_t>(size));
        for (std::size_t i = 0; i < set.size(); ++i) rows[std::size_t(slabs.rank_of(x[i]))].push_back(i);
        std::vector<fmt::Frame> frames;
        for (int r = 0; r < size; ++r) {
            ParticleSet part;
            PreviousStep previous;
            for (const std::size_t i : rows[std::size_t(r)]) {
                part.position.push_back(set.position[i]);
                part.velocity.push_back(set.velocity[i]);
                part.density.push_back(set.density[i]);
                part.mass.push_back(set.mass[i]);
                part.id.push_back(set.id[i]);
                part.kind.push_back(set.kind[i]);
                if (!set.boundary_normal.empty()) part.boundary_normal.push_back(set.boundary_normal[i]);
                if (!all.previous.velocity.empty()) {
                    previous.velocity.push_back(all.previous.velocity[i]);
                    previous.density.push_back(all.previous.density[i]);
                }
                if (!all.previous.velocity_half.empty()) previous.velocity_half.push_back(all.previous.velocity_half[i]);
            }
            frames.push_back(make_frame(part, p, all.step, all.time_s, 0.0, previous));
        }
        return frames;
    });
    // The borders, from rank 0.
    std::vector<double> borders = slabs.borders;
    borders.resize(std::size_t(size) + 1);
    std::int32_t axis = slabs.axis;
    ranks.bcast_value(axis, 0);
    ranks.bcast(std::as_writable_bytes(std::span<double>(borders)), 0);
    return {read_frame(frame), dist::SlabDecomposition{axis, std::move(borders)}};
}

}  // namespace partikel::sph
