// OpenEXR images read as 32-bit float channels: half, float and uint samples alike (uint is
// exact up to 2^24).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace partikel::image {

struct Image {
    int width = 0, height = 0;                  // of the data window
    int origin_x = 0, origin_y = 0;             // data window minimum
    std::vector<std::string> channel_names;     // "R", "G", "B", "A", "Z", "thickness", "N.x", ...
    std::vector<std::vector<float>> channels;   // [channel][y * width + x], y = 0 the top row
};

// Picks the channels to read from the names in the file (sorted, as OpenEXR lists them); may
// throw FormatError when none fits.
using ChannelChoice = std::function<std::vector<std::string>(const std::vector<std::string>& names)>;

// The first part of a scanline or tiled file (tiled: its full-resolution level): every
// channel, or those `choose` picks, in that order. Throws FormatError naming the path for
// unreadable, truncated, deep or subsampled images (only the channels read must be full
// resolution, so a luminance/chroma file's Y reads), and for a data window whose floats would
// not fit in the machine's memory.
Image read_exr(const std::string& path, const ChannelChoice& choose = {});

}  // namespace partikel::image
