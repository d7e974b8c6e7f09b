// Small OpenEXR images for the compare tests (image::write_exr writes them).
#pragma once

#include <vector>

#include "image/exr.hpp"

namespace partikel::compare::testing {

// A w x h image with channels A (all 1), B, G, R and Z, data window at (ox, oy).
inline image::Image test_image(int width, int height, int origin_x = 0, int origin_y = 0) {
    image::Image image;
    image.width = width;
    image.height = height;
    image.origin_x = origin_x;
    image.origin_y = origin_y;
    image.channel_names = {"A", "B", "G", "R", "Z"};   // OpenEXR lists channels sorted by name
    for (std::size_t c = 0; c < image.channel_names.size(); ++c) {
        std::vector<float> values(std::size_t(width * height));
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                values[std::size_t(y * width + x)] =
                    c == 0 ? 1.0f : 0.1f * float(c) + 0.01f * float(x) + 0.02f * float(y);
        image.channels.push_back(std::move(values));
    }
    return image;
}

}  // namespace partikel::compare::testing
