// OpenEXR images (splat-render's output; every channel read by image::read_exr) compared
// pixel by pixel per channel.
#pragma once

#include "compare/options.hpp"
#include "compare/report.hpp"
#include "image/exr.hpp"

namespace partikel::compare {

// Per channel max and mean absolute difference, RMSE and PSNR (peak: the largest |value| of
// the channel in either image, 1 when both are zero). Different sizes or channel sets are
// mismatches, reported, not errors. Channels pass by per-pixel tolerance, or by PSNR when
// options.min_psnr_db is set.
Section compare_images(const image::Image& a, const image::Image& b, const CompareOptions& options);

}  // namespace partikel::compare
