#include "compare_results.hpp"

#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "common/number_checks.hpp"
#include "common/tool.hpp"
#include "compare/compare.hpp"
#include "base/error.hpp"
#include "base/io.hpp"

namespace partikel::tools {

int compare_results(std::span<const std::string> args) {
    Tool tool("compare-results",
              "Compare two particle files, two CSV/TSV tables or two OpenEXR images within tolerances.\n"
              "Exit status: 0 equal within tolerance, 1 different, 2 trouble.");
    // Like cmp: a comparison that could not be made must not read as "different".
    tool.set_failure_exit_code(kExitUsage);
    tool.add_common(kThreads);
    CLI::App& app = tool.app();

    std::string path_a, path_b, output = "-", kind = "auto", match = "step";
    std::vector<std::string> tolerance_specs;
    compare::CompareOptions options;
    bool json = false, brief = false;
    tool.add_input("A", path_a, "First input ('-': a particle stream on stdin)", fmt::read_files)->required();
    tool.add_input("B", path_b, "Second input (the reference)", fmt::read_files)->required();
    app.add_option("--atol", options.tolerances.global.atol, "Absolute tolerance, in the column's unit")
        ->check(finite_non_negative())
        ->capture_default_str();
    app.add_option("--rtol", options.tolerances.global.rtol, "Relative tolerance, of max(|a|,|b|)")
        ->check(finite_non_negative())
        ->capture_default_str();
    // List options take one value per occurrence (commas split it), so that
    // `--key turn a.csv b.csv` leaves the inputs to A and B.
    app.add_option("--tol", tolerance_specs, "Per column NAME=ATOL:RTOL (repeatable; NAME or GROUP/NAME)")
        ->allow_extra_args(false);
    app.add_option("--rel-floor", options.elements.rel_floor, "Smallest magnitude dividing max_rel")
        ->check(finite_non_negative())
        ->capture_default_str();
    app.add_flag("--nan-equal", options.elements.nan_equal, "NaN on both sides is equal");
    app.add_flag("--subset", options.subset, "Compare what both inputs have; the rest is no difference");
    app.add_option("--match", match, "Pair frames by step or time")
        ->check(one_of({"step", "time"}))
        ->capture_default_str();
    app.add_option("--time-tol", options.time_tolerance_s, "Frames pair when times differ by at most this [s]")
        ->check(finite_non_negative())
        ->capture_default_str();
    CLI::Option* id_column = app.add_option("--id-column", options.id_column, "Pair particles by this column when both have it")
        ->capture_default_str();
    app.add_option("--key", options.table_keys, "Tables: pair rows by these columns (repeatable)")
        ->delimiter(',')
        ->allow_extra_args(false);
    app.add_flag("--stats", options.stats, "Compare distributions (moments, quantiles, KS), not elements");
    app.add_option("--quantiles", options.distribution.probabilities, "--stats: probabilities, e.g. 0.1,0.5,0.9")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->check(number_in(0, 1));
    app.add_option("--ks-alpha", options.distribution.ks_alpha, "--stats: significance of the KS test")
        ->check(number_above_at_most(0, 1))
        ->capture_default_str();
    app.add_option("--ks-max", options.distribution.ks_max, "--stats: fixed bound on the KS statistic D")
        ->check(number_in(0, 1));
    app.add_option("--min-psnr", options.min_psnr_db, "Images: a channel passes at this PSNR [dB] or more");
    app.add_option("--columns", options.only_columns, "Compare only these columns or channels")
        ->delimiter(',')
        ->allow_extra_args(false);
    app.add_option("--ignore", options.ignore_columns, "Skip these columns or channels")
        ->delimiter(',')
        ->allow_extra_args(false);
    app.add_option("--kind", kind, "Input kind: auto (by content), particles, table, image")
        ->check(one_of({"auto", "particles", "table", "image"}))
        ->capture_default_str();
    app.add_flag("--json", json, "Write the report as JSON");
    app.add_flag("--brief", brief, "Text report: only the sections that differ, and the verdict");
    tool.add_output("-o,--output", output, "Report file ('-': stdout)")->capture_default_str();

    return tool.run(std::vector<std::string>(args.begin(), args.end()), [&](Tool& t) {
        refuse_terminal_stdin(path_a);
        refuse_terminal_stdin(path_b);
        for (const std::string& spec : tolerance_specs) options.tolerances.add_spec(spec);
        options.id_column_given = id_column->count() > 0;
        options.frame_key = match == "time" ? compare::FrameKey::time : compare::FrameKey::step;
        std::optional<Progress> progress;   // made at the first frame, when the total is known
        const auto on_frame = [&](std::uint64_t done, std::optional<std::uint64_t> total) {
            if (!progress) progress.emplace(t.progress("compare", total ? double(*total) : 0.0, "frames/s"));
            progress->update(double(done));
        };
        const compare::Report report = compare::compare_inputs(
            path_a, path_b, options, kind == "auto" ? std::nullopt : compare::parse_kind(kind), on_frame);
        if (progress) progress->finish();
        if (!t.options().quiet || output != "-") {
            std::ostringstream text;
            if (json)
                compare::print_json(text, report);
            else
                compare::print_text(text, report, brief);
            const std::unique_ptr<OutputStream> out = OutputStream::open(output, /*binary=*/false);
            const std::string bytes = text.str();
            out->write(bytes.data(), bytes.size());
            out->commit();
        }
        // Like cmp, a comparison that compared nothing is trouble, not a verdict.
        if (report.unjudged()) {
            std::uint64_t rows = 0;
            for (const compare::Section& s : report.sections) rows += s.rows_compared;
            throw Error("A and B have nothing in common to compare: " + report.coverage_text() +
                        (rows > 0 ? ", but no column of them (every one ignored or not selected, or none there)" : ""));
        }
        return report.equal() ? 0 : 1;
    });
}

}  // namespace partikel::tools
