// Beam tracking as a run::Simulation (run/simulation.hpp): a step is one turn, time is in
// seconds (turns times the revolution period), frames are the beam (pic/io/frame_io.hpp), and
// the diagnostics table has one row per call:
//
//   turn, time_s, alive, lost, newly_lost (since the previous row), mean_{x,xp,y,yp,z,delta},
//   rms_{x,xp,y,yp,z,delta}, emittance_{x,y,z} (rms, on centred moments: m rad, and m for
//   (z, delta)), and with tune probes tune_x, tune_y (the median of the probes' tunes over the
//   turns recorded so far; NaN before 16).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "pic/io/frame_io.hpp"
#include "pic/lattice.hpp"
#include "pic/optics.hpp"
#include "pic/tracker.hpp"
#include "run/simulation.hpp"

namespace partikel::pic::io {

struct TrackingSetup {
    Lattice lattice;
    BeamParameters beam;              // beam.circumference_m is taken from the lattice
    TrackerOptions tracker;           // probes and probe_turns: tune probes (the first particles)
};

class TrackingSimulation final : public run::Simulation {
public:
    TrackingSimulation(const Backend& backend, TrackingSetup setup, const ParticleSet& start, std::int64_t start_turn = 0);

    void step() override;
    std::int64_t step_count() const override { return turn_; }
    double time() const override { return double(turn_) * revolution_period_s_; }
    double last_dt() const override { return turn_ > start_turn_ ? revolution_period_s_ : 0.0; }
    std::size_t size() const override { return tracker_.size(); }
    const Backend& backend() const override { return tracker_.backend(); }

    // NumericalError when the moments of the alive particles are not finite.
    std::vector<run::DiagnosticsColumn> diagnostics_columns() const override;
    std::vector<double> diagnostics() override;

    std::vector<std::size_t> frame_buffer_capacity() const override;
    run::FrameCapture frame_capture() override;
    fmt::Frame build_frame(std::span<const std::span<const std::byte>> host, const run::FrameCapture& capture) const override;

    Tracker& tracker() { return tracker_; }
    double revolution_period_s() const { return revolution_period_s_; }

private:
    TrackingSetup setup_;
    Tracker tracker_;
    std::optional<Optics> optics_;  // for the tune probes' normalisation (when the lattice is stable)
    double revolution_period_s_;
    std::int64_t start_turn_;
    std::int64_t turn_;
    double previous_lost_ = 0.0;
};

}  // namespace partikel::pic::io
