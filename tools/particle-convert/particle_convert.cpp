#include "particle_convert.hpp"

#include <algorithm>

#include "common/number_checks.hpp"
#include "common/tool.hpp"
#include "formats/reader.hpp"
#include "formats/selection.hpp"

namespace partikel::tools {

using namespace partikel::fmt;

int particle_convert(std::span<const std::string> args) {
    Tool tool("particle-convert",
              "Convert particle data between the stream format (.pks, stdin/stdout), openPMD HDF5 (.h5),\n"
              "CSV (.csv, both ways), VTK legacy (.vtk) and binary PLY (.ply); select frames, groups, columns.");
    tool.add_common(kInput | kOutput | kThreads);
    std::string positional_in, positional_out, to, frames, groups, columns, h5_compression = "gzip";
    WriterOptions w;
    bool no_shuffle = false, no_compress = false, no_index = false, no_xdmf = false, recover = false;
    auto& app = tool.app();
    // Upper-case names: CLI11 2.4 refuses a positional named like the long option --input.
    tool.add_input("INPUT", positional_in, "Input (same as -i)", read_files);
    // The files of an output: with this program's own writer options (--file-based, --no-xdmf, -t).
    const auto output_files = [&](const std::string& flag, const std::string& value) {
        WriterOptions named = w;  // --file-based is read into w directly
        named.write_xdmf = !no_xdmf;
        return written_files(flag, value, named, to.empty() ? std::nullopt : parse_encoding(to));
    };
    tool.add_output("OUTPUT", positional_out, "Output (same as -o)", output_files);
    // -i and -o stand for nothing when INPUT and OUTPUT take their place (both: a usage error).
    tool.set_input_files([&](const std::string& flag, const std::string& value) {
        return positional_in.empty() ? read_files(flag, value) : std::vector<NamedFile>{};
    });
    tool.set_output_files([&, output_files](const std::string& flag, const std::string& value) {
        return positional_out.empty() ? output_files(flag, value) : std::vector<NamedFile>{};
    });
    app.add_option("-t,--to", to, "Output format (default: from the extension)")
        ->check(one_of({"stream", "pks", "h5", "hdf5", "openpmd", "csv", "vtk", "ply"}));
    app.add_option("--frames", frames, "Frames to keep: 3, 0:100:10, 5:, 1,4,9 (0-based, stop exclusive)");
    app.add_option("--groups", groups, "Groups to keep, in order; a:b renames: fluid,walls:boundary");
    app.add_flag("--recover", recover,
                 "Keep the complete frames of a cut or damaged input");
    app.add_option("--columns", columns, "Columns to keep, in order; a:b renames: position,density:rho");
    app.add_option("-l,--level", w.zstd_level, "Stream: zstd level (-7..22; 1 fast, 3 default, 9+ small)")
        ->check(number_in(-7, 22))
        ->capture_default_str();
    app.add_flag("--no-shuffle", no_shuffle, "Stream: no byte-shuffle/delta filters");
    app.add_flag("--no-compress", no_compress, "Stream: store column blocks uncompressed");
    app.add_flag("--no-index", no_index, "Stream: no trailing frame index");
    app.add_option("--h5-compression", h5_compression, "HDF5: gzip (readable everywhere), zstd (filter 32015) or none")
        ->check(one_of({"gzip", "zstd", "none"}))
        ->capture_default_str();
    app.add_option("--h5-level", w.hdf5_level, "HDF5: gzip 1-9 or zstd level")->capture_default_str();
    app.add_flag("--file-based", w.hdf5_file_based, "HDF5: one file per iteration (name_%T.h5)");
    app.add_flag("--no-xdmf", no_xdmf, "HDF5: no XDMF side file for ParaView");
    app.add_flag("--csv-metadata", w.csv_metadata, "CSV: # step/time/unit lines, :type suffixes");
    return tool.run(std::vector<std::string>(args.begin(), args.end()), [&](Tool& t) {
        auto& common = t.options();
        if (!positional_in.empty() && common.input != "-") throw UsageError("give the input once: as -i FILE or as INPUT");
        if (!positional_out.empty() && common.output != "-") throw UsageError("give the output once: as -o FILE or as OUTPUT");
        const std::string input = positional_in.empty() ? common.input : positional_in;
        const std::string output = positional_out.empty() ? common.output : positional_out;
        w.filters = !no_shuffle;
        w.compress = !no_compress;
        w.write_index = !no_index;
        w.write_xdmf = !no_xdmf;
        w.force = common.force;
        w.threads = common.threads;
        w.hdf5_compression = h5_compression == "zstd"   ? WriterOptions::Hdf5Compression::zstd
                             : h5_compression == "none" ? WriterOptions::Hdf5Compression::none
                                                        : WriterOptions::Hdf5Compression::gzip;
        if (w.hdf5_compression == WriterOptions::Hdf5Compression::gzip && (w.hdf5_level < 0 || w.hdf5_level > 9))
            throw UsageError("--h5-level for gzip is 0..9, not " + std::to_string(w.hdf5_level));
        const auto frame_selection = FrameSelection::parse(frames);
        const auto group_selection = NameSelection::parse(groups, "--groups");
        const auto column_selection = NameSelection::parse(columns, "--columns");
        std::optional<Encoding> encoding;
        if (!to.empty()) encoding = parse_encoding(to);

        refuse_terminal_stdin(input);
        auto reader = open_reader(input);
        const auto count = reader->frame_count();
        // A selection past the end is a mistake, not an empty file: refused before any output,
        // or (a pipe, whose length shows only at its end) after reading it.
        const auto selects_none = [&] {
            return UsageError("--frames " + frames + " selects none of the " +
                              (count ? std::to_string(*count) + " " : std::string()) + "frames of " +
                              (input == "-" ? std::string("stdin") : input));
        };
        if (count && !frame_selection.all()) {
            std::uint64_t i = 0;
            while (i < *count && !frame_selection.contains(i)) ++i;
            if (i == *count) throw selects_none();
        }
        auto writer = open_writer(output, w, encoding);
        const auto end = frame_selection.end();
        double total = count ? static_cast<double>(*count) : 0.0;  // 0: unknown (a pipe)
        if (end && count) total = std::min(total, static_cast<double>(*end));
        auto progress = t.progress("converting", total, "frames/s");
        std::uint64_t written = 0;
        try {
            for_each_selected(*reader, frame_selection, [&](std::uint64_t index, Frame& frame) {
                apply_selection(frame, group_selection, column_selection);
                writer->write(frame);
                ++written;
                progress.update(static_cast<double>(index + 1));
            });
        } catch (const FormatError& e) {
            // Every frame read so far passed its checksums: with --recover they are the output.
            if (!recover) throw;
            t.log().warning(std::string(e.what()) + "; kept the " + std::to_string(written) + " complete frame" +
                            (written == 1 ? "" : "s") + " before it");
        }
        if (written == 0 && !frame_selection.all()) throw selects_none();
        writer->finish();
        progress.finish();
        t.summary("wrote " + counted(written, "frame") + " to " + (output == "-" ? std::string("stdout") : output));
        return 0;
    });
}

}  // namespace partikel::tools
