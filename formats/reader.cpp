#include "formats/reader.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>

#include "formats/encodings.hpp"
#include "formats/held.hpp"
#include "formats/stream/stream.hpp"

namespace partikel::fmt {

std::string_view encoding_name(Encoding encoding) {
    switch (encoding) {
    case Encoding::stream: return "stream";
    case Encoding::hdf5: return "hdf5";
    case Encoding::csv: return "csv";
    case Encoding::vtk: return "vtk";
    case Encoding::ply: return "ply";
    case Encoding::xdmf: return "xdmf";
    }
    return "?";
}

std::optional<Encoding> parse_encoding(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower == "stream" || lower == "pks") return Encoding::stream;
    if (lower == "hdf5" || lower == "h5" || lower == "openpmd") return Encoding::hdf5;
    if (lower == "csv") return Encoding::csv;
    if (lower == "vtk") return Encoding::vtk;
    if (lower == "ply") return Encoding::ply;
    if (lower == "xdmf" || lower == "xmf") return Encoding::xdmf;
    return std::nullopt;
}

namespace {
// Zero-padded to six digits, so that `ls` lists a run's files in step order.
std::string step_digits(std::int64_t step) {
    char digits[24];
    std::snprintf(digits, sizeof digits, step >= 0 ? "%06lld" : "%lld", static_cast<long long>(step));
    return digits;
}
}  // namespace

std::string expand_step_pattern(const std::string& pattern, std::int64_t step) {
    const auto at = pattern.find("%T");
    if (at == std::string::npos) return pattern;
    return pattern.substr(0, at) + step_digits(step) + pattern.substr(at + 2);
}

std::string side_file_path(const std::string& pattern, const std::string& extension) {
    std::string p = pattern;
    const auto slash = p.find_last_of('/');
    const auto dot = p.find_last_of('.');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) p.erase(dot);
    if (const auto t = p.find("%T"); t != std::string::npos) {
        p.erase(t, 2);
        while (!p.empty() && (p.back() == '_' || p.back() == '-' || p.back() == '.')) p.pop_back();
    }
    if (p.empty() || p.back() == '/') p += "series";  // "%T.vtk": no stem left
    return p + extension;
}

namespace {

constexpr std::array<unsigned char, 8> hdf5_magic{0x89, 'H', 'D', 'F', '\r', '\n', 0x1A, '\n'};

std::string extension_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    const auto dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
    return path.substr(dot + 1);
}

}  // namespace

namespace {

std::unique_ptr<FrameReader> open_encoding_reader(const std::string& path, const std::shared_ptr<ColumnMemory>& memory) {
    // A fileBased openPMD series is named by its pattern; there is no single file to sniff.
    if (path != "-" && path.find("%T") != std::string::npos) return make_hdf5_reader(path, memory);
    auto in = InputStream::open(path);
    unsigned char head[8] = {};
    if (in->is_regular_file() && in->size() == 0) throw FormatError(in->name() + ": empty file, not particle data");
    const std::size_t n = in->peek(head, sizeof head);
    if (n == 8 && std::equal(stream_magic.begin(), stream_magic.end(), head)) return make_stream_reader(std::move(in), memory);
    if (n == 8 && std::equal(hdf5_magic.begin(), hdf5_magic.end(), head)) {
        if (!in->is_regular_file()) throw UsageError(in->name() + ": HDF5 needs a file, not a pipe");
        return make_hdf5_reader(path, memory);
    }
    const std::string ext = extension_of(path);
    if (ext == "csv" || ext == "txt") return make_csv_reader(std::move(in), memory);
    if (n == 0) throw FormatError(in->name() + ": empty input, not a particle stream");
    // Text that starts like a CSV header or comment is read as CSV when the name says nothing.
    if (path == "-" || ext.empty()) {
        const bool texty = std::all_of(head, head + n, [](unsigned char c) { return c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c < 0x7F); });
        if (texty) return make_csv_reader(std::move(in), memory);
    }
    if (n < 8 && head[0] == stream_magic[0])
        throw FormatError(in->name() + ": truncated in preamble (at byte " + std::to_string(n) + ")");
    throw FormatError(in->name() + ": not a Partikel stream, HDF5 or CSV file (unknown magic bytes)");
}

// Frames as a reader delivers them, each checked by check_frame.
class CheckedReader final : public FrameReader {
public:
    explicit CheckedReader(std::unique_ptr<FrameReader> inner) : inner_(std::move(inner)) {}
    std::optional<Frame> next() override {
        std::optional<Frame> frame = inner_->next();
        if (frame) check_frame(*frame, inner_->name() + ": frame " + std::to_string(index_) + " (step " + std::to_string(frame->step) + ")");
        ++index_;
        return frame;
    }
    std::optional<std::uint64_t> frame_count() const override { return inner_->frame_count(); }
    bool seek_frame(std::uint64_t index) override {
        if (!inner_->seek_frame(index)) return false;
        index_ = index;
        return true;
    }
    Encoding encoding() const override { return inner_->encoding(); }
    const std::string& name() const override { return inner_->name(); }

private:
    std::unique_ptr<FrameReader> inner_;
    std::uint64_t index_ = 0;
};

}  // namespace

// Every reader restores held groups (held.hpp), so that every frame is complete, and checks
// what every frame must hold (check_frame).
std::unique_ptr<FrameReader> open_reader(const std::string& path, std::shared_ptr<ColumnMemory> memory) {
    return std::make_unique<CheckedReader>(restore_held_groups(open_encoding_reader(path, memory)));
}

std::unique_ptr<FrameWriter> open_writer(const std::string& path, const WriterOptions& options,
                                         std::optional<Encoding> encoding) {
    // Files of many frames store held groups once (held.hpp); one-frame files keep them whole.
    // Standard output carries the stream format, or the format `encoding` names.
    if ((path == "-" || path.empty()) && (!encoding || *encoding == Encoding::stream))
        return store_held_groups_once(make_stream_writer(OutputStream::open("-", true, options.force), options));
    if (!encoding) {
        const std::string ext = extension_of(path);
        encoding = parse_encoding(ext);
        if (!encoding) {
            if (!ext.empty())
                throw UsageError(path + ": unknown output extension \"." + ext +
                                 "\"; use .pks, .h5, .csv, .vtk, .ply or name the format");
            encoding = Encoding::stream;
        }
    }
    switch (*encoding) {
    case Encoding::stream: return store_held_groups_once(make_stream_writer(OutputStream::open(path, true, options.force), options));
    case Encoding::hdf5:
        if (options.hdf5_file_based) return make_hdf5_writer(path, options);
        return store_held_groups_once(make_hdf5_writer(path, options));
    case Encoding::csv: return make_csv_writer(path, options);
    case Encoding::vtk: return make_vtk_writer(path);
    case Encoding::ply: return make_ply_writer(path);
    case Encoding::xdmf:
        throw UsageError(path + ": XDMF is written beside an HDF5 file; write the .h5 instead");
    }
    throw UsageError("unknown encoding");
}

std::vector<NamedFile> read_files(const std::string& flag, const std::string& path) {
    std::vector<NamedFile> files{{flag, path, std::nullopt}};
    if (const auto at = path.find("%T"); at != std::string::npos && path != "-")
        files.front().series = NamedFile::Series{path.substr(0, at), path.substr(at + 2), step_digits};
    return files;
}

std::vector<NamedFile> written_files(const std::string& flag, const std::string& path, const WriterOptions& options,
                                     std::optional<Encoding> encoding) {
    if (!encoding && path != "-" && !path.empty()) encoding = parse_encoding(extension_of(path));
    const std::string pattern = encoding == Encoding::hdf5 ? hdf5_file_pattern(path, options) : path;
    std::vector<NamedFile> files{{flag, pattern, std::nullopt}};
    const bool per_frame = encoding && *encoding != Encoding::stream;  // a stream names its one file as given
    if (const auto at = pattern.find("%T"); per_frame && at != std::string::npos)
        files.front().series = NamedFile::Series{pattern.substr(0, at), pattern.substr(at + 2), step_digits};
    if (encoding == Encoding::hdf5 && path != "-" && !path.empty()) {
        files.push_back({flag, side_file_path(pattern, ".pmd"), std::nullopt});
        if (options.write_xdmf) files.push_back({flag, side_file_path(pattern, ".xmf"), std::nullopt});
    }
    if (encoding == Encoding::vtk && files.front().series) files.push_back({flag, side_file_path(pattern, ".vtk.series"), std::nullopt});
    return files;
}

}  // namespace partikel::fmt
