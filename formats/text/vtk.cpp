// VTK legacy export (SPEC.md §4): binary (big-endian) POLYDATA, one vertex cell per particle,
// every column other than `position` as point data. ParaView and VisIt read it directly.
#include <algorithm>

#include "base/log.hpp"
#include "formats/encodings.hpp"
#include "formats/openpmd/openpmd.hpp"
#include "formats/text/single_file.hpp"

namespace partikel::fmt {
namespace {

const char* vtk_type(ScalarType type) {
    switch (type) {
    case ScalarType::u8: return "unsigned_char";
    case ScalarType::i32: return "int";
    case ScalarType::u32: return "unsigned_int";
    case ScalarType::i64: return "vtktypeint64";
    case ScalarType::u64: return "vtktypeuint64";
    case ScalarType::f32: return "float";
    case ScalarType::f64: return "double";
    }
    return "?";
}

// Copies `n` values of `width` bytes to big-endian order, a chunk at a time.
void write_big_endian(OutputStream& out, const std::byte* data, std::size_t n, std::size_t width) {
    std::vector<std::byte> buf;
    constexpr std::size_t chunk = 1 << 16;
    for (std::size_t first = 0; first < n; first += chunk) {
        const std::size_t count = std::min(chunk, n - first);
        buf.assign(data + first * width, data + (first + count) * width);
        for (std::size_t i = 0; i < count; ++i) std::reverse(buf.begin() + i * width, buf.begin() + (i + 1) * width);
        out.write(buf.data(), buf.size());
    }
}

void write_text(OutputStream& out, const std::string& s) { out.write(s.data(), s.size()); }

class VtkWriter final : public SingleGroupWriter {
public:
    // Always forced: these are files, never standard output (open_writer sends "-" to the stream format).
    explicit VtkWriter(const std::string& path) : SingleGroupWriter(path, "VTK", true, true) {}

    using SingleGroupWriter::write;
    void write(const Frame& frame) override {
        SingleGroupWriter::write(frame);
        if (name().find("%T") == std::string::npos) return;
        std::string file = expand_step_pattern(name(), frame.step);
        if (const auto slash = file.find_last_of('/'); slash != std::string::npos) file.erase(0, slash + 1);
        series_ += std::string(series_.empty() ? "" : ",\n") + "    { \"name\": " + json_quote(file) +
                   ", \"time\": " + shortest_text(frame.time * frame.time_unit_si) + " }";
    }

    // A series (%T) gets ParaView's file series description (name.vtk.series, JSON), which
    // gives each file its time in seconds; without it ParaView numbers the files 0, 1, 2, ...
    void finish() override {
        SingleGroupWriter::finish();
        if (series_.empty()) return;
        const std::string text = "{\n  \"file-series-version\": \"1.0\",\n  \"files\": [\n" + series_ + "\n  ]\n}\n";
        series_.clear();
        auto out = OutputStream::open(side_file_path(name(), ".vtk.series"), false, true);
        out->write(text.data(), text.size());
        out->commit();
    }

protected:
    void write_group(OutputStream& out, const Frame& frame, const Group& group) override {
        const Column* position = group.find("position");
        if (!position || position->components() != 3)
            throw UsageError(out.name() + ": VTK export needs a 3-component position column");
        const std::uint64_t n = group.count();
        if (n > 0x3FFFFFFF) throw UsageError(out.name() + ": VTK legacy cells index with 32-bit integers; too many particles");
        write_text(out, "# vtk DataFile Version 3.0\npartikel step " + std::to_string(frame.step) + " group " + group.name() +
                            "\nBINARY\nDATASET POLYDATA\nPOINTS " + std::to_string(n) + " " + vtk_type(position->type()) + "\n");
        write_big_endian(out, position->raw().data(), n * 3, scalar_size(position->type()));
        write_text(out, "\nVERTICES " + std::to_string(n) + " " + std::to_string(2 * n) + "\n");
        std::vector<std::int32_t> cells;
        for (std::uint64_t first = 0; first < n; first += 1 << 15) {
            cells.clear();
            for (std::uint64_t i = first; i < std::min<std::uint64_t>(n, first + (1 << 15)); ++i) {
                cells.push_back(1);
                cells.push_back(static_cast<std::int32_t>(i));
            }
            write_big_endian(out, reinterpret_cast<const std::byte*>(cells.data()), cells.size(), 4);
        }
        std::vector<const Column*> fields;
        write_text(out, "\nPOINT_DATA " + std::to_string(n) + "\n");
        for (const auto& column : group.columns()) {
            if (&column == position) continue;
            const std::size_t w = scalar_size(column.type());
            if (column.components() == 1) {
                write_text(out, "SCALARS " + column.name() + " " + vtk_type(column.type()) + " 1\nLOOKUP_TABLE default\n");
            } else if (column.components() == 3) {
                write_text(out, "VECTORS " + column.name() + " " + vtk_type(column.type()) + "\n");
            } else {
                fields.push_back(&column);
                continue;
            }
            write_big_endian(out, column.raw().data(), n * column.components(), w);
            write_text(out, "\n");
        }
        if (!fields.empty()) {
            write_text(out, "FIELD FieldData " + std::to_string(fields.size()) + "\n");
            for (const Column* column : fields) {
                write_text(out, column->name() + " " + std::to_string(column->components()) + " " + std::to_string(n) + " " +
                                    vtk_type(column->type()) + "\n");
                write_big_endian(out, column->raw().data(), n * column->components(), scalar_size(column->type()));
                write_text(out, "\n");
            }
        }
    }

private:
    std::string series_;  // the "files" entries so far
};

}  // namespace

std::unique_ptr<FrameWriter> make_vtk_writer(const std::string& path) {
    return std::make_unique<VtkWriter>(path);
}

}  // namespace partikel::fmt
