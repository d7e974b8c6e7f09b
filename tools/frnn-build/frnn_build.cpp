#include "frnn_build.hpp"

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "base/error.hpp"
#include "base/io.hpp"
#include "common/number_checks.hpp"
#include "common/tool.hpp"
#include "formats/reader.hpp"
#include "frnn/io/frame_search.hpp"
#include "run/provenance.hpp"

namespace partikel::tools {

int frnn_build(std::span<const std::string> args) {
    Tool tool("frnn-build",
              "Build fixed-radius neighbour lists (cell list, Verlet list, subdivided cells with Cube or\n"
              "Sphere search) for the particles of each input frame; write them, or only statistics.");
    tool.add_common(kInput | kOutput | kDevice | kThreads | kSeed);
    frnn::FrameSearchOptions o;
    std::string method = "cell", search, sort = "counting", order = "cell";
    bool stats = false, json = false, search_cells = false;
    std::size_t check = 1000;
    auto& app = tool.app();
    app.add_option("--group", o.group, "Particle group (default: the first with a position column)");
    auto* radius = app.add_option("-r,--radius", o.radius_m, "Search radius r [m]")->check(finite_positive());
    auto* column = app.add_option("--radius-column", o.radius_column,
                                  "Radius from a column or attribute: r = factor * max (sph.h)");
    radius->excludes(column);
    app.add_option("--factor", o.factor, "With --radius-column: r = factor * max (2 for SPH's h)")
        ->check(finite_positive())
        ->capture_default_str();
    app.add_option("-m,--method", method, "cell (k = 0), verlet (r + skin, reusable) or subcell (k, search)")
        ->check(one_of({"cell", "verlet", "subcell"}))
        ->capture_default_str();
    app.add_option("-k,--k", o.k, "Subdivision: cell edge r / 2^k, 0..3 (subcell default 2)")->check(number_in(0, 3));
    app.add_option("-s,--search", search, "Cells searched: tight, ball, full, cube, sphere (subcell: sphere)")
        ->check(one_of({"tight", "ball", "full", "cube", "sphere"}));
    app.add_option("--skin", o.skin_m, "Verlet skin [m] (default 0.1 r): lists hold pairs within r + skin")
        ->check(finite_non_negative());
    app.add_option("--periodic", o.periodic, "Periodic axes, e.g. xyz or xz (needs a domain)");
    app.add_option("--domain", o.domain, "Domain x0,y0,z0,x1,y1,z1 [m] (default: input attributes or bounds)")
        ->delimiter(',')
        ->expected(6);
    app.add_flag("--morton", o.morton, "Number cells in Z-order (Morton)");
    app.add_option("--sort", sort, "Grid build: counting (atomic rank + scan) or radix (stable)")
        ->check(one_of({"counting", "radix"}))
        ->capture_default_str();
    app.add_option("--order", order, "List order: cell, or shared-first (Nitta 2019)")
        ->check(one_of({"cell", "shared-first"}))
        ->capture_default_str();
    app.add_flag("--stats", stats, "Print statistics and phase times instead of writing lists");
    app.add_flag("--json", json, "With --stats: one JSON object per frame");
    app.add_option("--check", check, "Compare N sampled particles with brute force; fail on a difference")
        ->expected(0, 1)
        ->default_str("1000");
    app.add_flag("--search-cells", search_cells, "Print the searched-cell counts (Nitta 2019) and exit");
    // With --stats, -o is a table, not frames.
    tool.set_output_files([&](const std::string& flag, const std::string& value) {
        return stats ? std::vector<NamedFile>{{flag, value, std::nullopt}} : fmt::written_files(flag, value);
    });

    return tool.run(std::vector<std::string>(args.begin(), args.end()), [&](Tool& t) {
        if (search_cells) {
            const std::string text = app.count("--k") ? frnn::searched_cells_for(o.k) : frnn::searched_cells_table();
            std::fwrite(text.data(), 1, text.size(), stdout);
            return 0;
        }
        std::optional<std::size_t> check_sample;
        if (app.count("--check")) check_sample = check == 0 ? 1000 : check;
        if (json && !stats) throw UsageError("--json goes with --stats");
        o.method = frnn::parse_search_method(method);
        if (!search.empty()) o.shape = frnn::parse_search_shape(search);
        o.sort = sort == "radix" ? frnn::SortMethod::radix : frnn::SortMethod::counting;
        o.order = order == "shared-first" ? frnn::ListOrder::shared_first : frnn::ListOrder::cell;
        frnn::make_plan(o);  // usage errors before any input is read
        const Backend backend = t.open_backend();
        frnn::FrameSearch searcher(backend, o);
        const auto provenance = run::make_provenance("frnn-build", t.command_line(), backend.describe());

        refuse_terminal_stdin(t.options().input);
        auto reader = fmt::open_reader(t.options().input);
        std::unique_ptr<fmt::FrameWriter> writer;
        std::unique_ptr<OutputStream> stats_out;
        if (stats) {
            stats_out = OutputStream::open(t.options().output, /*binary=*/false);
        } else {
            fmt::WriterOptions w;
            w.force = t.options().force;
            writer = fmt::open_writer(t.options().output, w);
        }
        std::uint64_t index = 0;
        while (auto frame = reader->next()) {
            const auto r = [&] {
                try {
                    return searcher.search(*frame, stats, check_sample, t.options().seed + index);
                } catch (const FormatError& e) {  // what the frame holds: named with the input
                    throw FormatError(reader->name() + ": frame " + std::to_string(index) + ": " + e.what());
                }
            }();
            if (stats) {
                const std::string text = frnn::format_search_stats(index, r, searcher.plan(), o.method,
                                                                   backend.describe(), json, check_sample.has_value());
                stats_out->write(text.data(), text.size());
            } else {
                searcher.attach_lists(*frame, r);
                run::add_provenance(provenance, *frame);
                writer->write(*frame);
            }
            t.log().debug("frame " + std::to_string(index) + ": " + std::to_string(r.particles) + " particles, " +
                          std::to_string(r.entries) + " list entries");
            ++index;
        }
        if (writer) writer->finish();
        if (stats_out) stats_out->commit();
        t.summary((stats ? "searched " : "wrote the lists of ") + counted(index, "frame"));
        return 0;
    });
}

}  // namespace partikel::tools
