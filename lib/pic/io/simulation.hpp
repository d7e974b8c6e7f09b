// Beam tracking as a run::Simulation (run/simulation.hpp): a step is one turn, time is in
// seconds (turns times the revolution period), frames are the beam (pic/io/frame_io.hpp), and
// the diagnostics table has one row per call:
//
//   turn, time_s, alive, lost, newly_lost (since the previous row), mean_{x,xp,y,yp,z,delta},
//   rms_{x,xp,y,yp,z,delta}, emittance_{x,y,z} (rms, on centred moments: m rad, and m for
//   (z, delta)), and with tune probes tune_x, tune_y (the median of the probes' tunes over the
//   first 2^k turns recorded, the largest such 2^k >= 16 so far, or over every turn once the
//   recording is complete; NaN before 16). So a tune is measured once per doubling of the
//   record, whatever the table's cadence: the probes cost a few FFTs in all, not a scan of
//   the whole record at every row.
//
// Several ranks (setup.tracker.ranks): each rank tracks its block of the beam (scatter_start),
// the table is the whole beam's on every rank, and frames hold every rank's rows in rank order:
// the beam's own order, so a frame of N ranks has the rows of a frame of one.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
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
    // `start`: this rank's macroparticles (collective over setup.tracker.ranks).
    TrackingSimulation(const Backend& backend, TrackingSetup setup, const ParticleSet& start, std::int64_t start_turn = 0);

    dist::Communicator communicator() const override { return setup_.tracker.ranks; }
    void step() override;
    std::int64_t step_count() const override { return turn_; }
    double time() const override { return double(turn_) * revolution_period_s_; }
    double last_dt() const override { return turn_ > start_turn_ ? revolution_period_s_ : 0.0; }
    std::size_t size() const override { return tracker_.global_size(); }
    const Backend& backend() const override { return tracker_.backend(); }

    // NumericalError when the moments of the alive particles are not finite.
    std::vector<run::DiagnosticsColumn> diagnostics_columns() const override;
    std::vector<double> diagnostics() override;

    std::vector<std::size_t> frame_buffer_capacity() const override;
    run::FrameCapture frame_capture() override;
    fmt::Frame build_frame(std::span<const std::span<const std::byte>> host, const run::FrameCapture& capture) const override;
    fmt::Frame build_frame(std::span<const run::RankFrame> ranks, const run::FrameCapture& capture) const override;

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
    std::size_t tune_turns_ = 0;  // turns the tunes below were measured over (0: none yet)
    double tunes_[2] = {NAN, NAN};
};

// The start of a run on `ranks`: rank 0 calls `on_root` (the beam generated or read, with its
// parameters and turn), cuts the macroparticles into one block of rows per rank (sizes
// differing by at most one, in row order) and sends each rank its block with the parameters
// (as a frame). Any beam starts any rank count; a failure on rank 0 ends every rank alike.
// One rank: on_root()'s state.
struct RankStart {
    ParticleSet particles;
    BeamParameters parameters;
    std::int64_t turn = 0;
};
RankStart scatter_start(const dist::Communicator& ranks, const std::function<RankStart()>& on_root);

}  // namespace partikel::pic::io
