// compare-results as a library call: detect what two inputs are and compare them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "compare/options.hpp"
#include "compare/particles.hpp"
#include "compare/report.hpp"

namespace partikel::compare {

enum class InputKind { particles, table, image };

std::string_view kind_name(InputKind kind);
std::optional<InputKind> parse_kind(std::string_view name);   // "particles", "table", "image"

// By the first bytes: OpenEXR magic 76 2f 31 01 -> image; the stream magic \x89PKS, HDF5's
// \x89HDF, "ply" or "# vtk" -> particles; other text -> table. "-" (stdin) is a particle
// stream (stdin always carries the stream format), and so is an openPMD "%T" series pattern.
// Throws IoError when the file cannot be read, FormatError for other binary data.
InputKind detect_kind(const std::string& path);

// Both inputs must be of one kind (`kind`, else detected); UsageError otherwise.
Report compare_inputs(const std::string& path_a, const std::string& path_b, const CompareOptions& options,
                      std::optional<InputKind> kind = std::nullopt, const FrameProgress& on_frame = {});

}  // namespace partikel::compare
