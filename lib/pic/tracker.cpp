#include "pic/tracker.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <span>

#include "base/error.hpp"
#include "core/dispatch.hpp"
#include "pic/track.hpp"

namespace partikel::pic {

double geometry_factor(const ParticleSet& p, double pipe_radius_m, const dist::Communicator& ranks) {
    std::array<double, 5> sums{};  // n, x, y, x^2, y^2
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (p.status[i] != kAlive) continue;
        sums[0] += 1.0;
        sums[1] += p.x[i];
        sums[2] += p.y[i];
        sums[3] += p.x[i] * p.x[i];
        sums[4] += p.y[i] * p.y[i];
    }
    if (ranks.size() > 1) ranks.allreduce(std::span<double>(sums), dist::ReduceOp::sum);
    const auto [n, sx, sy, sxx, syy] = sums;
    if (n < 2.0) throw UsageError("longitudinal space charge: too few particles to size the beam");
    const double vx = sxx / n - (sx / n) * (sx / n), vy = syy / n - (sy / n) * (sy / n);
    const double a = 2.0 * std::sqrt(std::sqrt(std::max(vx, 0.0) * std::max(vy, 0.0)));
    if (!(pipe_radius_m > 0.0))
        throw UsageError("longitudinal space charge needs a pipe radius or a geometry factor");
    if (!(a > 0.0 && a < pipe_radius_m))
        throw UsageError("longitudinal space charge: the beam (radius " + std::to_string(a) +
                         " m) does not fit in the pipe (radius " + std::to_string(pipe_radius_m) + " m)");
    return 1.0 + 2.0 * std::log(pipe_radius_m / a);
}

Tracker::Tracker(const Backend& backend, const Lattice& lattice, const ParticleSpecies& species, double intensity,
                 const ParticleSet& initial, bool coasting, const TrackerOptions& options)
    : backend_(backend), lattice_(lattice), reference_(make_reference(species)), options_(options),
      global_size_(options.ranks.size() > 1 ? options.ranks.allreduce<std::uint64_t>(initial.size(), dist::ReduceOp::sum)
                                            : initial.size()),
      coasting_(coasting),
      macro_charge_C_(global_size_ > 0 ? reference_.charge_C * intensity / double(global_size_) : 0.0),
      beam_(backend, initial), profile_(backend, options.profile), turn_(options.first_turn) {
    if (!(intensity >= 0.0) || !std::isfinite(intensity)) throw UsageError("beam: the intensity must not be negative");
    dist::Communicator& ranks = options_.ranks;
    if (ranks.size() > 1) ranks.bind_device(backend);
    const SpaceChargeOptions& sc = options.space_charge;
    const MapContext context = map_context(lattice, reference_);
    program_ = compile_program(lattice, context, sc.kicks_per_turn);
    ops_ = DeviceBuffer<TrackOp>(backend, std::max<std::size_t>(program_.ops.size(), 1));
    ops_.copy_from_host(program_.ops);
    losses_ = DeviceBuffer<std::uint64_t>(backend, std::max<std::size_t>(lattice.elements.size(), 1));
    losses_.fill_zero();
    moments_ = DeviceBuffer<BeamMoments>(backend, 1);
    workspace_.reserve(backend, with_exec(backend, [&](const auto& e) { return moments_scratch_bytes(e, initial.size()); }));
    if (sc.kicks_per_turn > 0) {
        if (sc.longitudinal)
            geometry_factor_ = sc.geometry_factor > 0.0 ? sc.geometry_factor
                                                        : pic::geometry_factor(initial, sc.pipe_radius_m, ranks);
        space_charge_ = std::make_unique<SpaceChargeSolver>(backend, sc, reference_, lattice.circumference_m(), coasting,
                                                            macro_charge_C_, initial.size(), geometry_factor_, ranks);
    }
    if (options.probes > 0) {
        if (options.probes > global_size_) throw UsageError("tracker: more probes than particles");
        if (options.probe_turns < 1) throw UsageError("tracker: probes need a number of turns to record");
        // This rank's rows among the beam's first `probes` (the ranks hold blocks in rank order).
        std::size_t first_row = 0;
        if (ranks.size() > 1) {
            const auto sizes = ranks.allgather<std::uint64_t>(initial.size());
            for (int r = 0; r < ranks.rank(); ++r) first_row += sizes[std::size_t(r)];
        }
        std::vector<std::uint32_t> index;
        for (std::size_t i = first_row; i < std::min(options.probes, first_row + initial.size()); ++i)
            index.push_back(std::uint32_t(i - first_row));
        probe_index_ = DeviceBuffer<std::uint32_t>(backend, index.size());
        probe_index_.copy_from_host(index);
        probe_history_ = DeviceBuffer<Coordinates>(backend, index.size() * std::size_t(options.probe_turns));
    }
}

Tracker::~Tracker() = default;

void Tracker::track_turn() {
    const double kick_length = space_charge_ ? lattice_.circumference_m() / options_.space_charge.kicks_per_turn : 0.0;
    const bool per_kick = options_.space_charge.sharing == MapSharing::per_kick;
    BeamView view = beam_.view();
    with_exec(backend_, [&](const auto& e) {
        bool solved = false;
        for (std::size_t s = 0; s < program_.segments.size(); ++s) {
            const TrackProgram::Segment& seg = program_.segments[s];
            TrackPassArgs args;
            args.beam = view;
            args.ops = ops_.data() + seg.begin;
            args.op_count = int(seg.end - seg.begin);
            args.losses = losses_.data();
            args.turn = std::int32_t(turn_);
            if (seg.kick_before && space_charge_) {
                if (per_kick || !solved) space_charge_->solve(view, &profile_);
                solved = true;
                args.kick = space_charge_->field_map(kick_length);
                if (!options_.fuse_kicks) {
                    TrackPassArgs kick_only = args;
                    kick_only.op_count = 0;
                    auto p = profile_.phase("space charge: kick");
                    track_pass(e, kick_only);
                    args.kick = {};
                }
            }
            if (s + 1 == program_.segments.size() && coasting_) args.wrap_period_m = lattice_.circumference_m();
            if (args.op_count == 0 && !args.kick.active() && args.wrap_period_m == 0.0) continue;
            auto p = profile_.phase(args.kick.active() ? "maps + kick" : "maps");
            track_pass(e, args);
        }
        if (options_.probes > 0 && probe_turns_recorded_ < std::size_t(options_.probe_turns)) {
            if (probe_index_.size() > 0)
                record_probes(e, view, probe_index_.data(), probe_index_.size(),
                              probe_history_.data() + probe_turns_recorded_ * probe_index_.size());
            ++probe_turns_recorded_;
        }
    });
    ++turn_;
}

BeamMoments Tracker::moments() {
    auto p = profile_.phase("diagnostics");
    const BeamView view = beam_.view();
    const BeamMoments mine = with_exec(backend_, [&](const auto& e) {
        beam_moments(e, workspace_, view, moments_.data());
        return e.read_value(moments_.data());
    });
    if (options_.ranks.size() == 1) return mine;
    // In rank order on every rank: the same bits everywhere.
    const std::vector<BeamMoments> all = options_.ranks.allgather(mine);
    BeamMoments m = all[0];
    for (std::size_t r = 1; r < all.size(); ++r) m = CombineMoments{}(m, all[r]);
    return m;
}

std::vector<std::uint64_t> Tracker::losses_per_element() const {
    std::vector<std::uint64_t> counts = losses_.to_vector();
    counts.resize(lattice_.elements.size());
    if (options_.ranks.size() > 1) options_.ranks.allreduce(std::span<std::uint64_t>(counts), dist::ReduceOp::sum);
    return counts;
}

std::vector<Coordinates> Tracker::probe_history(std::size_t turns) const {
    turns = std::min(turns, probe_turns_recorded_);
    const std::size_t mine = probe_index_.size();
    std::vector<Coordinates> local(turns * mine);
    if (!local.empty()) probe_history_.copy_to_host(local);
    if (options_.ranks.size() == 1) return local;
    // Every rank's probes, rank after rank within each turn (the beam's row order).
    const auto all = options_.ranks.allgatherv(std::as_bytes(std::span<const Coordinates>(local)));
    std::vector<Coordinates> history(turns * options_.probes);
    std::size_t column = 0;
    for (const auto& bytes : all) {
        const std::size_t count = turns ? bytes.size() / sizeof(Coordinates) / turns : 0;
        for (std::size_t t = 0; t < turns; ++t)
            std::memcpy(&history[t * options_.probes + column], bytes.data() + t * count * sizeof(Coordinates),
                        count * sizeof(Coordinates));
        column += count;
    }
    return history;
}

std::size_t Tracker::device_bytes() const {
    return beam_.fields().device_bytes() + ops_.bytes() + losses_.bytes() + moments_.bytes() + workspace_.size() +
           probe_index_.bytes() + probe_history_.bytes() + (space_charge_ ? space_charge_->device_bytes() : 0);
}

}  // namespace partikel::pic
