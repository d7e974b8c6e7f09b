// What a simulating program's model gives the run loop (run/run_loop.hpp): a state on a backend
// that steps, reports diagnostics, and hands out what a frame of it holds.
//
// A model's io layer (lib/<model>/io) implements Simulation over its physics (lib/<model>),
// constructed from a start frame (run/start_frame.hpp); the program then calls
// run::run_simulation and nothing else: cadence, overlapped frame output, diagnostics table,
// provenance, progress, interrupts and numerical failures are handled once, there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/units.hpp"
#include "core/backend.hpp"
#include "core/staged_copy.hpp"
#include "dist/communicator.hpp"
#include "formats/frame.hpp"

namespace partikel::run {

// One column of the diagnostics table: its name (units are part of the name by convention,
// "time_s", "kinetic_J") and its unit for machine readers.
struct DiagnosticsColumn {
    std::string name;
    Unit unit;
};

// What a frame of the current state holds, at the moment of capture: the backend buffers to
// copy (valid until the next step() or change of state) and whatever the host needs to turn the
// copies into a frame later (step, time, counts, attributes).
struct FrameCapture {
    std::vector<DeviceBytes> buffers;
    std::int64_t step = 0;
    double time = 0.0;  // in the model's time unit (time_unit_si seconds)
    double dt = 0.0;
    std::size_t count = 0;                                                       // particles
    std::map<std::string, fmt::AttributeValue, std::less<>> attributes;         // added to the frame
};

// One rank's host copies of a capture (FrameCapture::buffers, in order) and its particles.
struct RankFrame {
    std::vector<std::span<const std::byte>> buffers;
    std::size_t count = 0;
};

class Simulation {
public:
    virtual ~Simulation() = default;

    // The ranks the state is spread over (dist/communicator.hpp): the run loop takes every
    // decision with them (stop, interrupt), reduces nothing itself (diagnostics() returns the
    // values of the whole state on every rank), gathers frames on rank 0 and logs there. One
    // rank unless the model splits its particles.
    virtual dist::Communicator communicator() const { return dist::Communicator::single(); }

    // Advance one step. Throws NumericalError when the state becomes unusable (NaN, runaway,
    // time step below its floor), naming the particle and the quantity that failed.
    virtual void step() = 0;
    // step(), and the ranks' agreement on whether the run stops after it: `vote` returns this
    // rank's (a signal number, 0 for none) when asked; every rank returns the largest vote of
    // any rank. The default steps, then all-reduces the vote; a model may carry the vote in a
    // collective its step takes anyway (SphSimulation: the Δt all-reduce).
    virtual std::int32_t step_and_vote(const std::function<std::int32_t()>& vote);
    virtual std::int64_t step_count() const = 0;
    virtual double time() const = 0;     // model time unit
    virtual double last_dt() const = 0;  // model time unit; 0 before the first step
    virtual std::size_t size() const = 0;  // particles of the whole state (every rank's)
    virtual const Backend& backend() const = 0;
    // Seconds per unit of time() (1 for SI models; the N-body unit of time otherwise).
    virtual double time_unit_si() const { return 1.0; }
    // The unit of time() in words, for the progress rate ("simulated s per wall s").
    virtual std::string time_unit_name() const { return "s"; }

    // The diagnostics table's columns, and their values for the current state (one pass over the
    // particles and one synchronisation; with several ranks, a collective call returning the
    // whole state's values on every rank).
    virtual std::vector<DiagnosticsColumn> diagnostics_columns() const = 0;
    virtual std::vector<double> diagnostics() = 0;

    // Frames: the most bytes each captured buffer can hold (for sizing the staging once), what to
    // capture now, and the frame built from the host copies of a capture. build_frame runs on the
    // writer thread while step() runs: it must read only its arguments and state that never
    // changes after construction.
    virtual std::vector<std::size_t> frame_buffer_capacity() const = 0;
    virtual FrameCapture frame_capture() = 0;
    virtual fmt::Frame build_frame(std::span<const std::span<const std::byte>> host, const FrameCapture& capture) const = 0;
    // With several ranks: the frame of every rank's capture (rank order; `capture` is rank 0's,
    // whose step, time and attributes every rank shares), built on rank 0 by the writer thread.
    // The default builds one rank's frame and refuses several.
    virtual fmt::Frame build_frame(std::span<const RankFrame> ranks, const FrameCapture& capture) const;
};

}  // namespace partikel::run
