#include "compare/compare.hpp"

#include <array>
#include <cstring>
#include <memory>

#include "compare/image.hpp"
#include "compare/particles.hpp"
#include "compare/table.hpp"
#include "base/error.hpp"
#include "base/io.hpp"
#include "formats/reader.hpp"

namespace partikel::compare {

std::string_view kind_name(InputKind kind) {
    switch (kind) {
        case InputKind::particles:
            return "particles";
        case InputKind::table:
            return "table";
        case InputKind::image:
            return "image";
    }
    return "?";
}

std::optional<InputKind> parse_kind(std::string_view name) {
    for (const InputKind kind : {InputKind::particles, InputKind::table, InputKind::image})
        if (kind_name(kind) == name) return kind;
    return std::nullopt;
}

InputKind detect_kind(const std::string& path) {
    // A file-based openPMD series is named by a %T pattern, not one file to sniff.
    if (path == "-" || path.find("%T") != std::string::npos) return InputKind::particles;
    std::array<char, 8> head{};
    const std::size_t got = InputStream::open(path)->peek(head.data(), head.size());
    const auto starts_with = [&](std::string_view magic) {
        return got >= magic.size() && std::memcmp(head.data(), magic.data(), magic.size()) == 0;
    };
    if (starts_with("\x76\x2f\x31\x01")) return InputKind::image;
    if (starts_with("\x89PKS") || starts_with("\x89HDF") || starts_with("ply") || starts_with("# vtk"))
        return InputKind::particles;
    // Text tables hold no NUL bytes; an unknown binary format must not be parsed as one.
    if (std::memchr(head.data(), 0, got) != nullptr)
        throw FormatError(path + ": not a particle file, a text table or an OpenEXR image (unknown magic bytes)");
    return InputKind::table;
}

Report compare_inputs(const std::string& path_a, const std::string& path_b, const CompareOptions& options,
                      std::optional<InputKind> kind, const FrameProgress& on_frame) {
    const InputKind kind_a = kind ? *kind : detect_kind(path_a);
    const InputKind kind_b = kind ? *kind : detect_kind(path_b);
    if (kind_a != kind_b)
        throw UsageError(path_a + " is " + std::string(kind_a == InputKind::image ? "an " : "a ") +
                         std::string(kind_name(kind_a)) + " file but " + path_b + " is " +
                         std::string(kind_b == InputKind::image ? "an " : "a ") + std::string(kind_name(kind_b)) +
                         " file (use --kind to override detection)");
    if (path_a == "-" && path_b == "-") throw UsageError("only one input can be stdin ('-')");
    Report report;
    report.name_a = path_a;
    report.name_b = path_b;
    report.kind = kind_name(kind_a);
    report.subset = options.subset;
    switch (kind_a) {
        case InputKind::particles: {
            const auto reader_a = fmt::open_reader(path_a);
            const auto reader_b = fmt::open_reader(path_b);
            compare_frame_streams(*reader_a, *reader_b, options, report, on_frame);
            break;
        }
        case InputKind::table: {
            const Table a = read_table(path_a), b = read_table(path_b);
            for (const Table* t : {&a, &b}) report.names.insert(t->header.begin(), t->header.end());
            report.sections.push_back(compare_tables(a, b, options));
            break;
        }
        case InputKind::image: {
            const image::Image a = image::read_exr(path_a), b = image::read_exr(path_b);
            for (const image::Image* i : {&a, &b}) report.names.insert(i->channel_names.begin(), i->channel_names.end());
            report.sections.push_back(compare_images(a, b, options));
            break;
        }
    }
    options.check_names(report.names, report.kind);
    return report;
}

}  // namespace partikel::compare
