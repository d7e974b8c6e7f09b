// Colour maps for particle values: viridis, magma and inferno (van der Walt & Smith, the
// matplotlib colour maps, 2015), coolwarm (Moreland, "Diverging Color Maps for Scientific
// Visualization", 2009) and grey, evaluated in kernels of both backends.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/hd.hpp"
#include "base/vec.hpp"

namespace partikel::render {

enum class ColourMap { viridis, magma, inferno, coolwarm, grey };

ColourMap parse_colour_map(const std::string& name);  // UsageError naming the choices
const char* colour_map_name(ColourMap map);

// A colour map over a value range, passed by value into kernels: 33 entries, evenly spaced
// over [lo, hi], interpolated linearly; values outside the range (and NaN) take the end colours.
// Entries are linear RGB (the maps' sRGB values decoded), as OpenEXR images hold.
struct ColourTable {
    static constexpr int kEntries = 33;
    float rgb[kEntries][3];
    float lo = 0.0f;         // value at the first entry
    float scale = 0.0f;      // (kEntries - 1) / (hi - lo); 0 when hi == lo (the middle colour)

    PK_DEVICE_INLINE Vec3f operator()(float value) const {
        float t = scale > 0.0f ? (value - lo) * scale : 0.5f * float(kEntries - 1);
        if (!(t > 0.0f)) t = 0.0f;  // NaN too
        if (t > float(kEntries - 1)) t = float(kEntries - 1);
        const int i = t < float(kEntries - 2) ? int(t) : kEntries - 2;
        const float f = t - float(i);
        return {rgb[i][0] + f * (rgb[i + 1][0] - rgb[i][0]), rgb[i][1] + f * (rgb[i + 1][1] - rgb[i][1]),
                rgb[i][2] + f * (rgb[i + 1][2] - rgb[i][2])};
    }
};

// The table of `map` over [lo, hi] (UsageError unless both are finite and lo <= hi).
ColourTable make_colour_table(ColourMap map, float lo, float hi);

// The values at fractions `lo_fraction` and `hi_fraction` (0..1) of the finite values sorted
// (nearest rank); {0, 1} when there are none. Host code; `scratch` is reused between calls.
std::pair<float, float> percentile_range(std::span<const float> values, double lo_fraction, double hi_fraction,
                                         std::vector<float>& scratch);

// sRGB <-> linear (IEC 61966-2-1).
float srgb_to_linear(float c);
float linear_to_srgb(float c);

}  // namespace partikel::render
