// Binary PLY export (SPEC.md §4) for mesh and point-cloud tools: one vertex per particle with
// x y z from `position` and one property per component of every other column.
#include <algorithm>

#include "formats/encodings.hpp"
#include "formats/text/single_file.hpp"

namespace partikel::fmt {
namespace {

// PLY has no 64-bit integers; those become double (exact up to 2^53).
const char* ply_type(ScalarType type) {
    switch (type) {
    case ScalarType::u8: return "uchar";
    case ScalarType::i32: return "int";
    case ScalarType::u32: return "uint";
    case ScalarType::f32: return "float";
    case ScalarType::i64: case ScalarType::u64: case ScalarType::f64: return "double";
    }
    return "?";
}

std::size_t ply_size(ScalarType type) {
    return (type == ScalarType::i64 || type == ScalarType::u64) ? 8 : scalar_size(type);
}

class PlyWriter final : public SingleGroupWriter {
public:
    // Always forced: these are files, never standard output (open_writer sends "-" to the stream format).
    explicit PlyWriter(const std::string& path) : SingleGroupWriter(path, "PLY", true, true) {}

protected:
    void write_group(OutputStream& out, const Frame& frame, const Group& group) override {
        const Column* position = group.find("position");
        if (!position || position->components() != 3)
            throw UsageError(out.name() + ": PLY export needs a 3-component position column");
        std::vector<const Column*> columns{position};
        for (const auto& c : group.columns())
            if (&c != position) columns.push_back(&c);
        std::string header = "ply\nformat binary_little_endian 1.0\ncomment partikel step " + std::to_string(frame.step) +
                             " group " + group.name() + "\nelement vertex " + std::to_string(group.count()) + "\n";
        std::size_t row_bytes = 0;
        for (const Column* c : columns) {
            const auto names = c == position ? std::vector<std::string>{"x", "y", "z"} : field_names(*c);
            for (const auto& n : names) header += std::string("property ") + ply_type(c->type()) + " " + n + "\n";
            row_bytes += ply_size(c->type()) * c->components();
        }
        header += "end_header\n";
        out.write(header.data(), header.size());
        constexpr std::uint64_t chunk_rows = 1 << 14;
        std::vector<std::byte> buf;
        for (std::uint64_t first = 0; first < group.count(); first += chunk_rows) {
            const std::uint64_t last = std::min(group.count(), first + chunk_rows);
            buf.resize((last - first) * row_bytes);
            std::byte* p = buf.data();
            for (std::uint64_t r = first; r < last; ++r)
                for (const Column* c : columns) {
                    const std::size_t w = scalar_size(c->type());
                    for (std::uint32_t k = 0; k < c->components(); ++k) {
                        if (c->type() == ScalarType::i64 || c->type() == ScalarType::u64) {
                            const double v = c->as_double(r, k);
                            std::memcpy(p, &v, 8);
                        } else {
                            std::memcpy(p, c->raw().data() + (r * c->components() + k) * w, w);
                        }
                        p += ply_size(c->type());
                    }
                }
            out.write(buf.data(), buf.size());
        }
    }
};

}  // namespace

std::unique_ptr<FrameWriter> make_ply_writer(const std::string& path) {
    return std::make_unique<PlyWriter>(path);
}

}  // namespace partikel::fmt
