// Height fields from OpenEXR images (lib/image reads them).
#include <algorithm>
#include <cmath>

#include "base/error.hpp"
#include "image/exr.hpp"
#include "sph/io/scenes.hpp"

namespace partikel::sph {

namespace {

// Height maps keep heights in luminance (Y), depth (Z) or red (R); a one-channel file is
// unambiguous whatever its channel is called.
std::string height_channel(const std::string& path, const std::vector<std::string>& names) {
    for (const char* preferred : {"Y", "Z", "R"})
        if (std::find(names.begin(), names.end(), preferred) != names.end()) return preferred;
    if (names.size() == 1) return names.front();
    std::string listed;
    for (const std::string& name : names) listed += (listed.empty() ? "" : ", ") + name;
    throw FormatError(path + ": no channel Y, Z or R holds heights" +
                      (listed.empty() ? std::string(" (no channels at all)") : " (channels: " + listed + ")"));
}

}  // namespace

HeightField load_exr_height_field(const std::string& path, float cell_m, float scale_m, float offset_m, float x0_m,
                                  float z0_m) {
    if (!(cell_m > 0.0f)) throw UsageError("terrain: need a positive cell size");
    image::Image image;
    try {
        image = image::read_exr(path, [&](const std::vector<std::string>& names) {
            return std::vector<std::string>{height_channel(path, names)};
        });
    } catch (const FormatError& e) {
        throw FormatError(std::string("terrain: ") + e.what());
    }
    if (image.width < 2 || image.height < 2)
        throw FormatError("terrain: " + path + ": a height image needs at least 2 x 2 samples, not " +
                          std::to_string(image.width) + " x " + std::to_string(image.height));
    HeightField t;
    t.nx = image.width;
    t.nz = image.height;
    t.cell_m = cell_m;
    t.x0_m = x0_m;
    t.z0_m = z0_m;
    t.height_m = std::move(image.channels.front());
    for (std::size_t i = 0; i < t.height_m.size(); ++i) {
        float& height = t.height_m[i];
        height = offset_m + scale_m * height;
        // A NaN or infinite height would poison the bilinear terrain and every particle near it.
        if (!std::isfinite(height))
            throw FormatError("terrain: " + path + ": channel " + image.channel_names.front() + " at column " +
                              std::to_string(i % std::size_t(t.nx)) + ", row " + std::to_string(i / std::size_t(t.nx)) +
                              " gives a non-finite height");
    }
    return t;
}

}  // namespace partikel::sph
