// OpenEXR images as 32-bit float channels: read (half, float and uint samples alike; uint is
// exact up to 2^24) and written (each channel stored as half, float or uint).
#pragma once

#include <array>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace partikel::image {

// A 4 x 4 matrix in OpenEXR's (Imath's) convention: row-major, points are row vectors
// multiplied from the left (p' = p M), so a translation sits in the last row (m[12..14]).
using Matrix44 = std::array<float, 16>;

// Header attribute values written and read back: OpenEXR's int, float, double, string and
// m44f attribute types.
using AttributeValue = std::variant<int, float, double, std::string, Matrix44>;

struct Image {
    int width = 0, height = 0;                  // of the data window
    int origin_x = 0, origin_y = 0;             // data window minimum
    std::vector<std::string> channel_names;     // "R", "G", "B", "A", "Z", "thickness.X", "N.X", ...
    std::vector<std::vector<float>> channels;   // [channel][y * width + x], y = 0 the top row
    // Header attributes beyond the ones every OpenEXR file has (channels, compression, windows,
    // line order, pixel aspect ratio, screen window): worldToCamera, "partikel.step", ...
    // read_exr fills those of the types above and skips the rest.
    std::map<std::string, AttributeValue> attributes{};
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

enum class PixelType { half, float32, uint32 };
// Lossless codecs every OpenEXR reader has (OpenEXR 2.x and later, OpenImageIO, Blender, Nuke).
enum class Compression { none, rle, zips, zip, piz };

struct WriteOptions {
    Compression compression = Compression::zip;
    int zip_level = 4;                               // zlib level of zip/zips, 1 (fastest) .. 9
    std::map<std::string, PixelType> pixel_types{};  // by channel name; channels not named: float32
    int tile_size = 0;                               // > 0: square tiles of this many pixels; 0: scanlines
};

// Writes `image` (its channels, data window and attributes; the display window is the data
// window) under a temporary name next to `path` and renames it into place when complete, so
// that no reader ever sees half a file under the final name. Half samples round to nearest;
// uint samples take the float value truncated, clamped to [0, 2^32 - 1]. Throws UsageError for
// an image whose channels do not match its size or names, an empty image or a bad zip level,
// IoError naming the path when the file cannot be written.
void write_exr(const std::string& path, const Image& image, const WriteOptions& options = {});

// "none", "rle", "zips", "zip", "piz" (UsageError otherwise).
Compression parse_compression(const std::string& name);

}  // namespace partikel::image
