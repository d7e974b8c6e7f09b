#include "common/run_flags.hpp"

#include "base/progress.hpp"
#include "common/number_checks.hpp"

namespace partikel::tools {

void add_run_flags(Tool& tool, RunFlags& f, const std::string& time_unit) {
    CLI::App& app = tool.app();
    run::RunOptions& o = f.options;
    app.add_option("--until", o.until, "Run until this simulated time [" + time_unit + "]")->group("Run");
    app.add_option("--steps", o.steps, "Run this many steps")->group("Run");
    app.add_option("--every", o.every, "Write a frame every T of simulated time [" + time_unit + "]")->group("Run");
    app.add_option("--every-steps", o.every_steps, "Write a frame at every step number divisible by N")->group("Run");
    app.add_option("--start-frame", f.start_frame, "Start from frame N of the input (0-based; -1: the last)")
        ->capture_default_str()
        ->group("Run");
    tool.add_output("--diag", o.diag_path, "Write a diagnostics row to FILE at every frame ('-': stdout)")->group("Run");
    app.add_option("--diag-format", f.diag_format, "Diagnostics as tsv, csv or jsonl")
        ->check(one_of({"tsv", "csv", "jsonl"}))
        ->capture_default_str()
        ->group("Run");
    app.add_option("--diag-every-steps", o.diag_every_steps, "Also write a diagnostics row every N steps")->group("Run");
    // The writer's limit (man pages, docs/PERFORMANCE.md "Output"): frames are built and
    // compressed on the other host cores while the steps go on; faster frames make the steps wait.
    app.add_option("--zstd-level", f.zstd_level, "Frame zstd level (writer: about 0.3 GB/s raw per host core)")
        ->check(number_in(-7, 22))
        ->capture_default_str()
        ->group("Run");
}

fmt::WriterOptions writer_options(const RunFlags& f, Tool& tool) {
    fmt::WriterOptions w;
    w.zstd_level = f.zstd_level;
    w.force = tool.options().force;
    return w;
}

run::RunOptions run_options(const RunFlags& f, Tool& tool, const std::string& label) {
    run::RunOptions o = f.options;
    run::validate(o);
    o.diag_format = run::parse_table_format(f.diag_format);
    o.show_progress = !tool.options().quiet && (tool.options().progress || stderr_is_terminal());
    o.progress_interval_s = tool.options().quiet ? 0.0 : 30.0;
    o.progress_label = label;
    return o;
}

}  // namespace partikel::tools
