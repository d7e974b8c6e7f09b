// OpenEXR images (splat-render's output): every channel of the first part, read as 32-bit
// floats, compared pixel by pixel per channel.
#pragma once

#include <string>
#include <vector>

#include "compare/options.hpp"
#include "compare/report.hpp"

namespace partikel::compare {

struct Image {
    int width = 0, height = 0;                  // of the data window
    int origin_x = 0, origin_y = 0;             // data window minimum
    std::vector<std::string> channel_names;     // "R", "G", "B", "A", "Z", "thickness", "N.x", ...
    std::vector<std::vector<float>> channels;   // [channel][y * width + x]
};

// Throws FormatError naming the path for unreadable, deep or subsampled images.
Image read_exr(const std::string& path);

// Per channel max and mean absolute difference, RMSE and PSNR (peak: the largest |value| of
// the channel in either image, 1 when both are zero). Different sizes or channel sets are
// mismatches, reported, not errors. Channels pass by per-pixel tolerance, or by PSNR when
// options.min_psnr_db is set.
Section compare_images(const Image& a, const Image& b, const CompareOptions& options);

}  // namespace partikel::compare
