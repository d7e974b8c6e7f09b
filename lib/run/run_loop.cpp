#include "run/run_loop.hpp"

#include <cmath>
#include <cstdio>

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

RunReport run_simulation(Simulation& sim, fmt::FrameWriter& writer, const RunOptions& options,
                         const Provenance& provenance, Log& log) {
    validate(options);
    Cadence cadence({options.until, options.steps, options.every, options.every_steps}, sim.step_count(), sim.time());

    RunReport report;
    report.first_step = report.last_step = sim.step_count();
    report.first_time = report.last_time = sim.time();
    report.particles = sim.size();
    DiagnosticsTable diag(options.diag_path, options.diag_format, sim.diagnostics_columns());
    FrameOutput output(sim, writer, provenance);
    Progress progress(log, options.progress_label, cadence.total(), cadence.counts_steps() ? "steps" : "time",
                      options.show_progress, options.progress_interval_s);
    GracefulInterrupts graceful;
    Stopwatch wall;
    // Where the frames are until the run ends, so that after a crash they can be found (and an
    // earlier crash's frames are not forgotten).
    for (const auto& left : abandoned_temporaries(writer.name()))
        log.warning(left + ": frames of an earlier run that did not finish; `particle-convert --recover " + left +
                    " FILE` keeps them");
    if (writer.name() != "-" && writer.name() != "<stdout>") {
        try {
            const OutputTarget target = resolve_output(writer.name());
            if (target.kind == OutputTarget::Kind::file)
                log.info("frames go to " + temporary_name(target.path) + " until the run ends, then to " + writer.name());
        } catch (const IoError&) {
        }
    }

    auto write_frame = [&] {
        const double waited = output.write();
        report.writer_wait_seconds += waited;
        if (diag.enabled()) diag.write(sim.step_count(), sim.diagnostics());
    };
    // Whatever happens, the frames and rows written so far stay readable under their names.
    auto close_outputs = [&] {
        output.finish();
        writer.finish();
        diag.close();
    };

    const bool fresh_start = sim.step_count() == 0;
    try {
        if (fresh_start) write_frame();  // a fresh run records its initial state
        while (!cadence.done(sim.step_count(), sim.time()) && interrupt_signal() == 0) {
            sim.step();
            const std::int64_t step = sim.step_count();
            if (cadence.frame_due(step, sim.time())) {
                progress.set_note(output.backlogged() ? "waiting for the frame writer" : "");
                write_frame();
            } else if (diag.enabled() && options.diag_every_steps && step % *options.diag_every_steps == 0) {
                diag.write(step, sim.diagnostics());
            }
            progress.update(cadence.progress(step, sim.time()));
        }
        // The last state, for restarts (also after an interrupt).
        if (output.last_step() != sim.step_count()) write_frame();
        close_outputs();
    } catch (const NumericalError& e) {
        try {
            close_outputs();
        } catch (...) {
        }
        throw NumericalError(std::string(e.what()) + "; frames up to step " + std::to_string(output.last_step()) +
                             " are kept in " + writer.name());
    }
    progress.finish();
    report.last_step = sim.step_count();
    report.last_time = sim.time();
    report.wall_seconds = wall.seconds();
    report.frames_written = output.frames();
    report.last_frame_step = output.last_step();
    report.interrupted = interrupt_signal() != 0;
    if (report.interrupted)
        log.note("interrupted by " + signal_name(interrupt_signal()) +
                 " at step " + std::to_string(report.last_step) + " (t = " + format_g(report.last_time) +
                 "); the last frame of " + writer.name() + " is a restart point");
    return report;
}

}  // namespace partikel::run
