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
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/units.hpp"
#include "core/backend.hpp"
#include "core/staged_copy.hpp"
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

class Simulation {
public:
    virtual ~Simulation() = default;

    // Advance one step. Throws NumericalError when the state becomes unusable (NaN, runaway,
    // time step below its floor), naming the particle and the quantity that failed.
    virtual void step() = 0;
    virtual std::int64_t step_count() const = 0;
    virtual double time() const = 0;     // model time unit
    virtual double last_dt() const = 0;  // model time unit; 0 before the first step
    virtual std::size_t size() const = 0;
    virtual const Backend& backend() const = 0;
    // Seconds per unit of time() (1 for SI models; the N-body unit of time otherwise).
    virtual double time_unit_si() const { return 1.0; }

    // The diagnostics table's columns, and their values for the current state (one pass over the
    // particles and one synchronisation).
    virtual std::vector<DiagnosticsColumn> diagnostics_columns() const = 0;
    virtual std::vector<double> diagnostics() = 0;

    // Frames: the most bytes each captured buffer can hold (for sizing the staging once), what to
    // capture now, and the frame built from the host copies of a capture. build_frame runs on the
    // writer thread while step() runs: it must read only its arguments and state that never
    // changes after construction.
    virtual std::vector<std::size_t> frame_buffer_capacity() const = 0;
    virtual FrameCapture frame_capture() = 0;
    virtual fmt::Frame build_frame(std::span<const std::span<const std::byte>> host, const FrameCapture& capture) const = 0;
};

}  // namespace partikel::run
