#include "run/run_loop.hpp"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "base/error.hpp"
#include "base/log.hpp"
#include "base/io.hpp"
#include "base/progress.hpp"
#include "core/timer.hpp"
#include "run/cadence.hpp"
#include "run/diagnostics_table.hpp"
#include "run/frame_output.hpp"

namespace partikel::run {

namespace {

// Graceful interrupts for the life of a run: the first SIGINT, SIGTERM or SIGHUP stops it between
// steps (base/io.hpp says what a second one does).
struct GracefulInterrupts {
    GracefulInterrupts() { set_graceful_interrupts(true); }
    ~GracefulInterrupts() { set_graceful_interrupts(false); }
};

}  // namespace

std::string RunReport::summary() const {
    const double steps = double(last_step - first_step);
    char text[256];
    std::snprintf(text, sizeof text, "%lld steps (step %lld to %lld), time %s to %s, %.3g s wall, %llu frames",
                  static_cast<long long>(last_step - first_step), static_cast<long long>(first_step),
                  static_cast<long long>(last_step), format_g(first_time).c_str(), format_g(last_time).c_str(), wall_seconds,
                  static_cast<unsigned long long>(frames_written));
    std::string s = text;
    if (steps > 0 && wall_seconds > 0 && particles > 0) {
        std::snprintf(text, sizeof text, ", %.3g particle-steps/s", double(particles) * steps / wall_seconds);
        s += text;
    }
    if (writer_wait_seconds > 0.05) {
        std::snprintf(text, sizeof text, " (%.3g s waiting for the frame writer)", writer_wait_seconds);
        s += text;
    }
    return s;
}

void validate(const RunOptions& options) {
    // The cadence's own checks, at a start that cannot conflict with --until.
    const double start = options.until && std::isfinite(*options.until) ? *options.until : 0.0;
    Cadence({options.until, options.steps, options.every, options.every_steps}, 0, start);
    if (options.diag_every_steps && *options.diag_every_steps <= 0)
        throw UsageError("--diag-every-steps must be > 0 (got " + std::to_string(*options.diag_every_steps) + ")");
}

namespace {

// PARTIKEL_TEST_FAIL_RANK / PARTIKEL_TEST_FAIL_STEP (run_loop.hpp): the step before which this
// rank fails, or -1.
std::int64_t injected_failure_step(int rank) {
    const char* r = std::getenv("PARTIKEL_TEST_FAIL_RANK");
    const char* s = std::getenv("PARTIKEL_TEST_FAIL_STEP");
    if (!r || !s || std::atoi(r) != rank) return -1;
    return std::atoll(s);
}

// A writer for ranks other than 0: frames are written on rank 0 only.
class RankWriterStandIn final : public fmt::FrameWriter {
public:
    explicit RankWriterStandIn(std::string name) : name_(std::move(name)) {}
    void write(const fmt::Frame&) override { throw UsageError("frames are written on rank 0 only"); }
    void finish() override {}
    const std::string& name() const override { return name_; }

private:
    std::string name_;
};

}  // namespace

std::unique_ptr<fmt::FrameWriter> open_frame_writer(const dist::Communicator& ranks, const std::string& path,
                                                    const fmt::WriterOptions& options) {
    return ranks.collectively([&]() -> std::unique_ptr<fmt::FrameWriter> {
        if (ranks.root()) return fmt::open_writer(path, options);
        return std::make_unique<RankWriterStandIn>(path);
    });
}

RunReport run_simulation(Simulation& sim, fmt::FrameWriter& writer, const RunOptions& options,
                         const Provenance& provenance, Log& log) {
    validate(options);
    const dist::Communicator ranks = sim.communicator();
    const bool root = ranks.root();
    Cadence cadence({options.until, options.steps, options.every, options.every_steps}, sim.step_count(), sim.time());
    Provenance run_provenance = provenance;
    run_provenance.ranks = ranks.size();
    run_provenance.transport = std::string(ranks.transport());

    RunReport report;
    report.first_step = report.last_step = sim.step_count();
    report.first_time = report.last_time = sim.time();
    report.particles = sim.size();
    // Every rank computes the diagnostics (a collective call); rank 0 writes them.
    const bool diagnostics_wanted = !options.diag_path.empty();
    DiagnosticsTable diag(root ? options.diag_path : std::string(), options.diag_format, sim.diagnostics_columns());
    FrameOutput output(sim, writer, run_provenance);
    // The rate: steps, or simulated time per second of wall time.
    const std::string rate_unit =
        cadence.counts_steps() ? "steps/s" : "simulated " + sim.time_unit_name() + " per wall s";
    Progress progress(log, options.progress_label, cadence.total(), rate_unit,
                      options.show_progress && root, root ? options.progress_interval_s : 0.0);
    GracefulInterrupts graceful;
    Stopwatch wall;
    // Where the frames are until the run ends, so that after a crash they can be found (and an
    // earlier crash's frames are not forgotten).
    if (root) {
        for (const auto& left : abandoned_temporaries(writer.name()))
            log.warning(left + ": frames of an earlier run that did not finish; `particle-convert --recover " + left +
                        " FILE` keeps them");
        if (writer.name() != "-" && writer.name() != "<stdout>") {
            try {
                const OutputTarget target = resolve_output(writer.name());
                if (target.kind == OutputTarget::Kind::file)
                    log.info("frames go to " + temporary_name(target.path) + " until the run ends, then to " +
                             writer.name());
            } catch (const IoError&) {
            }
        }
    }

    auto write_frame = [&] {
        const double waited = output.write();
        report.writer_wait_seconds += waited;
        if (diagnostics_wanted) {
            const auto values = sim.diagnostics();
            if (diag.enabled()) diag.write(sim.step_count(), values);
        }
    };
    // Whatever happens, the frames and rows written so far stay readable under their names.
    auto close_outputs = [&] {
        output.finish();
        writer.finish();
        diag.close();
    };
    // After a failure: keep what was written (the frame in flight may be lost), then rethrow.
    auto keep_outputs = [&] {
        try {
            output.finish();
        } catch (...) {
        }
        try {
            writer.finish();
            diag.close();
        } catch (...) {
        }
    };

    const std::int64_t fail_before = injected_failure_step(ranks.rank());
    const bool fresh_start = sim.step_count() == 0;
    // An interrupt on any rank stops every rank after the same step (voted with the step:
    // Simulation::step_and_vote).
    int stop_signal = 0;
    const std::function<std::int32_t()> signal_vote = [] { return std::int32_t(interrupt_signal()); };
    try {
        if (fresh_start) write_frame();  // a fresh run records its initial state
        stop_signal = ranks.allreduce<std::int32_t>(interrupt_signal(), dist::ReduceOp::max);
        while (!cadence.done(sim.step_count(), sim.time()) && stop_signal == 0) {
            if (sim.step_count() + 1 == fail_before)
                throw DeviceError("injected failure before step " + std::to_string(fail_before) +
                                  " (PARTIKEL_TEST_FAIL_STEP)");
            stop_signal = sim.step_and_vote(signal_vote);
            const std::int64_t step = sim.step_count();
            if (cadence.frame_due(step, sim.time())) {
                progress.set_note(output.backlogged() ? "waiting for the frame writer" : "");
                write_frame();
            } else if (diagnostics_wanted && options.diag_every_steps && step % *options.diag_every_steps == 0) {
                const auto values = sim.diagnostics();
                if (diag.enabled()) diag.write(step, values);
            }
            progress.update(cadence.progress(step, sim.time()));
        }
        // The last state, for restarts (also after an interrupt).
        if (output.last_step() != sim.step_count()) write_frame();
        close_outputs();
        // No rank leaves before rank 0's output is under its final name: mpirun ends the whole job,
        // rank 0 with it, as soon as one rank exits with a non-zero status, as an interrupted one
        // does (130, 143).
        ranks.barrier();
    } catch (const NumericalError& e) {
        keep_outputs();
        throw NumericalError(std::string(e.what()) + "; frames up to step " + std::to_string(output.last_step()) +
                             " are kept in " + writer.name());
    } catch (const Error&) {
        // With several ranks, another rank's failure (or this rank's own) still leaves rank 0's
        // frames readable; one rank keeps its earlier behaviour (the output is dropped).
        if (ranks.size() > 1) keep_outputs();
        throw;
    }
    progress.finish();
    report.last_step = sim.step_count();
    report.last_time = sim.time();
    report.wall_seconds = wall.seconds();
    report.frames_written = output.frames();
    report.last_frame_step = output.last_step();
    report.signal = stop_signal;
    report.interrupted = stop_signal != 0;
    if (report.interrupted && root)
        log.note("interrupted by " + signal_name(stop_signal) + " at step " + std::to_string(report.last_step) + " (t = " +
                 format_g(report.last_time) + "); the last frame of " + writer.name() + " is a restart point");
    return report;
}

}  // namespace partikel::run
