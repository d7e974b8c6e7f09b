// OpenEXR images: reading (lib/image/exr.hpp) and per-channel comparison (lib/compare/image.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include "compare/image.hpp"
#include "base/error.hpp"
#include "fixtures.hpp"
#include "image_fixtures.hpp"

using namespace partikel;
using namespace partikel::compare;
using namespace partikel::compare::testing;

namespace {

const ColumnResult& channel(const Section& section, const std::string& name) {
    for (const ColumnResult& c : section.columns)
        if (c.name == name) return c;
    FAIL("no channel " << name);
    throw;
}

}  // namespace

TEST_CASE("an EXR file reads back with every channel, half channels as float") {
    const TempDir dir("image");
    const image::Image original = test_image(7, 5, 3, 2);
    image::write_exr(dir.file("a.exr"), original, {.pixel_types = {{"A", image::PixelType::half}}});
    const image::Image read = image::read_exr(dir.file("a.exr"));
    CHECK(read.width == 7);
    CHECK(read.height == 5);
    CHECK(read.origin_x == 3);
    CHECK(read.origin_y == 2);
    CHECK(read.channel_names == original.channel_names);
    CHECK(read.channels == original.channels);   // halves of 1.0 are exact
}

TEST_CASE("identical images: zero differences, infinite PSNR") {
    const TempDir dir("image");
    image::write_exr(dir.file("a.exr"), test_image(16, 8));
    image::write_exr(dir.file("b.exr"), test_image(16, 8));
    const Section section =
        compare_images(image::read_exr(dir.file("a.exr")), image::read_exr(dir.file("b.exr")), CompareOptions{});
    CHECK(section.pass());
    CHECK(section.columns.size() == 5);
    CHECK(std::isinf(*channel(section, "R").psnr_db));
}

TEST_CASE("one pixel just above or below the tolerance flips the result") {
    const image::Image a = test_image(16, 8, 4, 4);
    image::Image b = a;
    CompareOptions options;
    options.tolerances.add_spec("Z=1e-3:0");
    b.channels[4][3 * 16 + 5] += 0.9e-3f;   // pixel (4 + 5, 4 + 3) of Z
    CHECK(compare_images(a, b, options).pass());
    b.channels[4][3 * 16 + 5] += 0.2e-3f;
    const Section section = compare_images(a, b, options);
    CHECK_FALSE(section.pass());
    CHECK(channel(section, "Z").worst == "pixel (9,7)");
    CHECK(channel(section, "Z").stats.beyond == 1);
    CHECK(channel(section, "R").pass());
    // PSNR against the channel's peak |value|: one pixel of 128 off by 1.1e-3.
    const double peak = 0.1 * 4 + 0.01 * 15 + 0.02 * 7;
    const double rmse = 1.1e-3 / std::sqrt(128.0);
    CHECK(*channel(section, "Z").psnr_db == doctest::Approx(20.0 * std::log10(peak / rmse)).epsilon(1e-3));
}

TEST_CASE("--min-psnr judges channels by PSNR instead of per pixel") {
    const image::Image a = test_image(16, 16);
    image::Image b = a;
    b.channels[3][0] += 0.05f;   // one R pixel far off: PSNR = 20 log10(0.75 / (0.05 / 16)) = 47.6 dB
    CompareOptions options;
    options.min_psnr_db = 40.0;
    CHECK(compare_images(a, b, options).pass());
    options.min_psnr_db = 50.0;
    CHECK_FALSE(compare_images(a, b, options).pass());
}

TEST_CASE("different sizes or channel sets are differences, not errors") {
    const image::Image a = test_image(16, 8);
    const Section resized = compare_images(a, test_image(8, 16), CompareOptions{});
    CHECK_FALSE(resized.pass());
    CHECK(resized.mismatches == std::vector<std::string>{"size 16x8 in A, 8x16 in B"});
    CHECK(resized.columns.empty());

    image::Image fewer = a;
    fewer.channel_names.pop_back();   // no Z
    fewer.channels.pop_back();
    const Section missing = compare_images(a, fewer, CompareOptions{});
    CHECK_FALSE(missing.pass());
    CHECK(missing.mismatches == std::vector<std::string>{"channel 'Z' only in A"});
    CompareOptions ignore;
    ignore.ignore_columns = {"Z"};
    CHECK(compare_images(a, fewer, ignore).pass());
}

TEST_CASE("unreadable images are format errors naming the file") {
    const TempDir dir("image");
    {
        std::ofstream out(dir.file("broken.exr"), std::ios::binary);
        out << "\x76\x2f\x31\x01 not really an image";
    }
    CHECK_THROWS_WITH_AS(image::read_exr(dir.file("broken.exr")), doctest::Contains("broken.exr"), FormatError);
}
