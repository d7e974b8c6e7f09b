// Comparing particle data: frames matched by step or time, groups by name, particles by id
// (else by index), columns by name. Frames stream through one pair at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "compare/options.hpp"
#include "compare/report.hpp"
#include "formats/frame.hpp"
#include "formats/reader.hpp"

namespace partikel::compare {

// One section for a pair of groups: element-wise metrics per column, or distributions with
// options.stats.
Section compare_groups(const fmt::Group& a, const fmt::Group& b, const CompareOptions& options);

// Sections for the groups both frames have; groups on one side go to `mismatches` (or are
// ignored with options.subset).
void compare_frames(const fmt::Frame& a, const fmt::Frame& b, const CompareOptions& options, Report& report);

// Called after each frame of A is done, with A's frame count when its reader knows it.
using FrameProgress = std::function<void(std::uint64_t frames_done, std::optional<std::uint64_t> frames_total)>;

// Reads both inputs frame by frame and pairs frames by options.frame_key; both must list
// frames in non-decreasing key order (FormatError otherwise). Frames on one side only are
// mismatches unless options.subset.
void compare_frame_streams(fmt::FrameReader& a, fmt::FrameReader& b, const CompareOptions& options, Report& report,
                           const FrameProgress& on_frame = {});

}  // namespace partikel::compare
