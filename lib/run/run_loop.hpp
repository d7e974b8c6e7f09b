// The run loop every simulating program shares (sph-step, nbody-run, pic-track):
//
//   run::RunOptions options = ...;                        // from the shared flags (run/flags.hpp)
//   auto writer = fmt::open_writer(path, writer_options);
//   run::RunReport report = run::run_simulation(simulation, *writer, options, provenance, log);
//
// It advances until a simulated time or a number of steps, writes a frame every T of simulated
// time or every N steps (the first state of a fresh run and the last state always), overlaps
// frame output with the next steps (run/frame_output.hpp: two frames in flight, never dropped;
// when the writer falls behind the steps wait and the progress line says so), writes the
// diagnostics table, puts provenance on every frame, shows progress with ETA (a line every
// `progress_interval_s` when stderr is not a terminal), and stops cleanly: on NumericalError the
// frames written so far are kept and the error says up to which step; on SIGINT/SIGTERM the
// frame being written is finished, the output is closed and kept, and the report says how far it
// got (its last frame is a valid restart point).
//
// On several ranks (Simulation::communicator()) every rank runs this loop in step: the cadence
// depends only on step and time (the same everywhere), an interrupt on any rank stops every rank
// after the same step, frames are gathered and written on rank 0 (`writer` is used there only:
// other ranks pass open_frame_writer's stand-in), the diagnostics table and progress are rank 0's,
// and a failure of another rank still closes rank 0's output with every frame written so far.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/log.hpp"
#include "dist/communicator.hpp"
#include "formats/reader.hpp"
#include "run/provenance.hpp"
#include "run/simulation.hpp"

namespace partikel::run {

enum class TableFormat { tsv, csv, jsonl };
TableFormat parse_table_format(const std::string& name);  // "tsv", "csv", "jsonl"; UsageError otherwise

struct RunOptions {
    // Exactly one of until (model time unit) and steps (counted from the start state).
    std::optional<double> until{};
    std::optional<std::int64_t> steps{};
    // At most one of every (model time unit) and every_steps; neither: first and last state only.
    std::optional<double> every{};
    std::optional<std::int64_t> every_steps{};
    // Diagnostics table: at every frame, and every diag_every_steps steps in between.
    std::string diag_path{};  // "" none
    TableFormat diag_format = TableFormat::tsv;
    std::optional<std::int64_t> diag_every_steps{};
    bool show_progress = false;          // a bar on a terminal (or forced by --progress)
    double progress_interval_s = 30.0;   // otherwise a log line this often (0: never)
    std::string progress_label = "run";
};

struct RunReport {
    std::int64_t first_step = 0, last_step = 0;
    double first_time = 0.0, last_time = 0.0;  // model time unit
    double wall_seconds = 0.0;
    std::size_t particles = 0;                // at the start
    std::uint64_t frames_written = 0;
    std::int64_t last_frame_step = -1;
    bool interrupted = false;                 // stopped by SIGINT/SIGTERM
    int signal = 0;                           // which (on some rank), 0 when not interrupted
    double writer_wait_seconds = 0.0;         // the steps waited this long for the frame writer
    std::string summary() const;              // one line: steps, time, wall time, particle-steps/s, frames
};

// UsageError for options that cannot make a run (checked again by run_simulation; programs
// call it before any input is read, so that a usage error comes first).
void validate(const RunOptions& options);

// Runs `simulation` as described above. UsageError for inconsistent options (checked before
// the first step); NumericalError and I/O errors propagate after the output is closed.
//
// A test hook: with PARTIKEL_TEST_FAIL_RANK=R and PARTIKEL_TEST_FAIL_STEP=S in the environment,
// rank R throws a DeviceError on its own before step S, as a rank whose GPU fails would (the
// other ranks learn it at their next wait; tests/cli/sph-step).
RunReport run_simulation(Simulation& simulation, fmt::FrameWriter& writer, const RunOptions& options,
                         const Provenance& provenance, Log& log);

// The frame writer of a run on `ranks`: the real writer on rank 0 (opened there; a failure ends
// every rank alike), a stand-in that is never written to on the others.
std::unique_ptr<fmt::FrameWriter> open_frame_writer(const dist::Communicator& ranks, const std::string& path,
                                                    const fmt::WriterOptions& options);

}  // namespace partikel::run
