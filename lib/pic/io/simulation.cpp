#include "pic/io/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/error.hpp"
#include "pic/tune.hpp"
#include "run/start_frame.hpp"

namespace partikel::pic::io {
namespace {

TrackingSetup resolved(TrackingSetup s, std::int64_t start_turn) {
    s.beam.circumference_m = s.lattice.circumference_m();
    s.tracker.first_turn = start_turn;
    return s;
}

}  // namespace

TrackingSimulation::TrackingSimulation(const Backend& backend, TrackingSetup setup, const ParticleSet& start,
                                       std::int64_t start_turn)
    : setup_(resolved(std::move(setup), start_turn)),
      tracker_(backend, setup_.lattice, setup_.beam.species, setup_.beam.intensity, start, setup_.beam.coasting,
               setup_.tracker),
      revolution_period_s_(setup_.beam.circumference_m / tracker_.reference().velocity_m_per_s()),
      start_turn_(start_turn),
      turn_(start_turn) {
    if (setup_.tracker.probes > 0) optics_ = compute_optics(setup_.lattice, tracker_.reference());
    for (std::int32_t s : start.status) previous_lost_ += s != kAlive;
    const dist::Communicator& ranks = setup_.tracker.ranks;
    if (ranks.size() > 1) previous_lost_ = ranks.allreduce(previous_lost_, dist::ReduceOp::sum);
}

void TrackingSimulation::step() {
    tracker_.track_turn();
    ++turn_;
}

std::vector<run::DiagnosticsColumn> TrackingSimulation::diagnostics_columns() const {
    std::vector<run::DiagnosticsColumn> c = {
        {"turn", units::none},         {"time_s", units::time},       {"alive", units::none},
        {"lost", units::none},         {"newly_lost", units::none},   {"mean_x_m", units::length},
        {"mean_xp", units::none},      {"mean_y_m", units::length},   {"mean_yp", units::none},
        {"mean_z_m", units::length},   {"mean_delta", units::none},   {"rms_x_m", units::length},
        {"rms_xp", units::none},       {"rms_y_m", units::length},    {"rms_yp", units::none},
        {"rms_z_m", units::length},    {"rms_delta", units::none},    {"emittance_x_m", units::length},
        {"emittance_y_m", units::length}, {"emittance_z_m", units::length},
    };
    if (setup_.tracker.probes > 0) {
        c.push_back({"tune_x", units::none});
        c.push_back({"tune_y", units::none});
    }
    return c;
}

std::vector<double> TrackingSimulation::diagnostics() {
    const BeamMoments m = tracker_.moments();
    for (double v : m.mean)
        if (!std::isfinite(v))
            throw NumericalError("turn " + std::to_string(turn_) + ": the beam's centroid is not finite");
    const double lost = double(tracker_.global_size()) - m.n;
    std::vector<double> row = {double(turn_), time(), m.n, lost, lost - previous_lost_};
    previous_lost_ = lost;
    for (double v : m.mean) row.push_back(v);
    for (int v : {m_xx, m_xpxp, m_yy, m_ypyp, m_zz, m_dd}) row.push_back(std::sqrt(m.variance(v)));
    for (int plane = 0; plane < 3; ++plane) row.push_back(m.emittance(plane));
    if (setup_.tracker.probes > 0) {
        // The turns to measure over: all once the record is complete, else the largest power
        // of two recorded (at least 16); measured again only when that grows.
        const std::size_t recorded = tracker_.probe_turns_recorded();
        std::size_t turns = recorded == std::size_t(setup_.tracker.probe_turns) ? recorded : 0;
        for (std::size_t p = 16; p <= recorded && turns == 0; p *= 2)
            if (2 * p > recorded) turns = p;
        if (turns > tune_turns_) {
            tune_turns_ = turns;
            const std::size_t probes = setup_.tracker.probes;
            const auto history = tracker_.probe_history(turns);
            for (int plane = 0; plane < 2; ++plane) {
                std::vector<double> tunes;
                std::vector<double> u(turns), up(turns);
                for (std::size_t k = 0; k < probes; ++k) {
                    for (std::size_t t = 0; t < turns; ++t) {
                        const Coordinates& c = history[t * probes + k];
                        u[t] = plane == 0 ? c.x : c.y;
                        up[t] = plane == 0 ? c.xp : c.yp;
                    }
                    const Twiss& tw = optics_->start;
                    const double q = fractional_tune(u, up, plane == 0 ? tw.beta_x_m : tw.beta_y_m,
                                                     plane == 0 ? tw.alpha_x : tw.alpha_y);
                    if (std::isfinite(q)) tunes.push_back(q);
                }
                std::sort(tunes.begin(), tunes.end());
                tunes_[plane] = tunes.empty() ? NAN : tunes[tunes.size() / 2];
            }
        }
        row.push_back(tunes_[0]);
        row.push_back(tunes_[1]);
    }
    return row;
}

std::vector<std::size_t> TrackingSimulation::frame_buffer_capacity() const {
    std::vector<std::size_t> bytes;
    for (int f = 0; f < beam_field_count; ++f) bytes.push_back(tracker_.size() * field_element_bytes(kBeamFields[f]));
    return bytes;
}

run::FrameCapture TrackingSimulation::frame_capture() {
    run::FrameCapture c;
    const FieldArrays& fields = tracker_.beam().fields();
    for (int f = 0; f < beam_field_count; ++f) {
        const std::size_t element = field_element_bytes(kBeamFields[f]);
        c.buffers.push_back({fields.raw(f, element), tracker_.size() * element});
    }
    c.step = turn_;
    c.time = time();
    c.dt = last_dt();
    c.count = tracker_.size();
    return c;
}

fmt::Frame TrackingSimulation::build_frame(std::span<const std::span<const std::byte>> host,
                                           const run::FrameCapture& capture) const {
    const run::RankFrame one{{host.begin(), host.end()}, capture.count};
    return build_frame(std::span<const run::RankFrame>(&one, 1), capture);
}

fmt::Frame TrackingSimulation::build_frame(std::span<const run::RankFrame> ranks, const run::FrameCapture& capture) const {
    std::size_t count = 0;
    for (const run::RankFrame& r : ranks) {
        if (r.buffers.size() != std::size_t(beam_field_count))
            throw UsageError("build_frame: a capture of the beam has 10 buffers");
        count += r.count;
    }
    fmt::Frame frame;
    frame.step = capture.step;
    frame.time = capture.time;
    frame.dt = capture.dt;
    frame.attributes = capture.attributes;
    add_beam_attributes(setup_.beam, frame);
    fmt::Group& g = frame.add_group(kBeamGroup, count);
    for (int f = 0; f < beam_field_count; ++f) {
        const FieldSpec& s = kBeamFields[f];
        fmt::Column& c = g.add_column(std::string(s.name), s.type, s.components, s.unit);
        const std::size_t element = field_element_bytes(s);
        std::size_t offset = 0;
        for (const run::RankFrame& r : ranks) {
            const std::span<const std::byte> bytes = r.buffers[std::size_t(f)];
            if (bytes.size() != r.count * element)
                throw UsageError("build_frame: buffer " + std::string(s.name) + " has the wrong size");
            if (!bytes.empty()) std::memcpy(c.raw().data() + offset, bytes.data(), bytes.size());
            offset += bytes.size();
        }
    }
    if (setup_.beam.beam_physics_records) add_beam_physics_records(setup_.beam, g);
    return frame;
}

RankStart scatter_start(const dist::Communicator& ranks, const std::function<RankStart()>& on_root) {
    if (ranks.size() == 1) return on_root();
    bool beam_physics = false;
    const fmt::Frame frame = run::scatter_frames(ranks, [&] {
        const RankStart all = on_root();
        beam_physics = all.parameters.beam_physics_records;
        std::vector<fmt::Frame> frames;
        BeamParameters parameters = all.parameters;
        parameters.beam_physics_records = false;  // derived when frames are written
        for (int r = 0; r < ranks.size(); ++r)
            frames.push_back(make_frame(rank_block(all.particles, r, ranks.size()), parameters, all.turn, 0.0));
        return frames;
    });
    std::uint8_t records = beam_physics ? 1 : 0;
    ranks.bcast_value(records, 0);
    StartState start = read_frame(frame);
    if (!start.parameters) throw FormatError("scatter_start: a rank's frame lost its parameters");
    RankStart mine{std::move(start.particles), *start.parameters, start.turn};
    mine.parameters.beam_physics_records = records != 0;
    return mine;
}

}  // namespace partikel::pic::io
