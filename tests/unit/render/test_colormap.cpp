// Colour maps (render/colormap.hpp): end points and middle of each map against the published
// values, clamping, percentile ranges.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "base/error.hpp"
#include "render/colormap.hpp"

using namespace partikel;
using namespace partikel::render;

namespace {

// The sRGB bytes of a linear colour.
std::array<int, 3> bytes(Vec3f c) {
    return {int(std::lround(255 * linear_to_srgb(c.x))), int(std::lround(255 * linear_to_srgb(c.y))),
            int(std::lround(255 * linear_to_srgb(c.z)))};
}

}  // namespace

TEST_CASE("colour maps hit their published end points and middles within 2/255") {
    // matplotlib's viridis, magma, inferno at 0, 0.5, 1 (#440154, #21918c, #fde725; #000004,
    // #b73779, #fcfdbf; #000004, #bc3754, #fcffa4); Moreland's coolwarm (59,76,192),
    // (221,221,221), (180,4,38).
    const struct {
        ColourMap map;
        std::array<int, 3> at[3];
    } cases[] = {
        {ColourMap::viridis, {{0x44, 0x01, 0x54}, {0x21, 0x91, 0x8c}, {0xfd, 0xe7, 0x25}}},
        {ColourMap::magma, {{0x00, 0x00, 0x04}, {0xb7, 0x37, 0x79}, {0xfc, 0xfd, 0xbf}}},
        {ColourMap::inferno, {{0x00, 0x00, 0x04}, {0xbc, 0x37, 0x54}, {0xfc, 0xff, 0xa4}}},
        {ColourMap::coolwarm, {{59, 76, 192}, {221, 221, 221}, {180, 4, 38}}},
        {ColourMap::grey, {{0, 0, 0}, {128, 128, 128}, {255, 255, 255}}},
    };
    for (const auto& c : cases) {
        CAPTURE(colour_map_name(c.map));
        const ColourTable t = make_colour_table(c.map, -2.0f, 6.0f);
        const float values[3] = {-2.0f, 2.0f, 6.0f};
        for (int k = 0; k < 3; ++k) {
            const auto got = bytes(t(values[k]));
            for (int ch = 0; ch < 3; ++ch) CHECK(std::abs(got[std::size_t(ch)] - c.at[k][std::size_t(ch)]) <= 2);
        }
    }
}

TEST_CASE("values outside the range and NaN take the end colours; an empty range the middle") {
    const ColourTable t = make_colour_table(ColourMap::viridis, 0.0f, 1.0f);
    const Vec3f low = t(0.0f), high = t(1.0f);
    CHECK(t(-5.0f).x == low.x);
    CHECK(t(std::numeric_limits<float>::quiet_NaN()).y == low.y);
    CHECK(t(7.0f).z == high.z);
    const ColourTable flat = make_colour_table(ColourMap::viridis, 3.0f, 3.0f);
    CHECK(flat(3.0f).y == t(0.5f).y);
    CHECK_THROWS_AS(make_colour_table(ColourMap::viridis, 1.0f, 0.0f), UsageError);
    CHECK_THROWS_AS(parse_colour_map("jet"), UsageError);
    CHECK(parse_colour_map("gray") == ColourMap::grey);
}

TEST_CASE("percentile ranges skip non-finite values") {
    std::vector<float> values;
    for (int i = 0; i <= 100; ++i) values.push_back(float(i));
    values.push_back(std::numeric_limits<float>::infinity());
    values.push_back(std::numeric_limits<float>::quiet_NaN());
    std::vector<float> scratch;
    const auto [lo, hi] = percentile_range(values, 0.01, 0.99, scratch);
    CHECK(lo == 1.0f);
    CHECK(hi == 99.0f);
    const auto [a, b] = percentile_range({}, 0.01, 0.99, scratch);
    CHECK(a == 0.0f);
    CHECK(b == 1.0f);
}
