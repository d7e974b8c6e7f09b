// The frame a simulation starts from: any frame of a file or stream (by default the last, the
// state a previous run ended in), read and verified like any other frame.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "formats/frame.hpp"

namespace partikel::run {

// Frame `index` (0-based; negative counts from the end, -1: the last) of `path` ("-": stdin).
// A stream is read whole (every frame verified, one kept in memory at a time, |index| for a
// negative index); an HDF5 file jumps to the frame.
// FormatError when the input holds no such frame.
fmt::Frame read_start_frame(const std::string& path, std::int64_t index = -1);

}  // namespace partikel::run
