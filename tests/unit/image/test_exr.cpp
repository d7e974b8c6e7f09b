// Writing OpenEXR images (lib/image/exr.hpp): every pixel type, codec and layout reads back
// with lib/image's reader, attributes included; the file appears only when complete; bad
// images and unwritable paths are the project's errors, naming the path.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "image/exr.hpp"

using namespace partikel;

namespace {

struct TempDir {
    std::filesystem::path path;
    TempDir() {
        path = std::filesystem::temp_directory_path() /
               ("partikel-test-image-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
        std::filesystem::create_directories(path);
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }
    static int& counter() {
        static int n = 0;
        return n;
    }
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(path)) names.push_back(e.path().filename().string());
        return names;
    }
};

// The channels splat-render writes, with values that are exact in half precision where the
// channel is half: R, G, B, A in steps of 1/8, float channels arbitrary (inf in Z).
image::Image render_like(int width, int height) {
    image::Image im;
    im.width = width;
    im.height = height;
    im.channel_names = {"R", "G", "B", "A", "Z", "thickness.X", "N.X", "N.Y", "N.Z", "count.X"};
    for (std::size_t c = 0; c < im.channel_names.size(); ++c) {
        std::vector<float> values(std::size_t(width * height));
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const std::size_t i = std::size_t(y * width + x);
                values[i] = c < 4 ? float((x + 3 * y + int(c)) % 9) / 8.0f : 0.1234567f * float(c) + 1e-3f * float(i);
            }
        im.channels.push_back(std::move(values));
    }
    im.channels[4][0] = std::numeric_limits<float>::infinity();
    im.channels[9][1] = 17.0f;
    return im;
}

const image::WriteOptions kHalfRgba{.pixel_types = {{"R", image::PixelType::half},
                                                    {"G", image::PixelType::half},
                                                    {"B", image::PixelType::half},
                                                    {"A", image::PixelType::half}}};

// read_exr lists channels sorted by name; compare by name.
void check_same_pixels(const image::Image& written, const image::Image& read) {
    REQUIRE(read.width == written.width);
    REQUIRE(read.height == written.height);
    CHECK(read.origin_x == written.origin_x);
    CHECK(read.origin_y == written.origin_y);
    REQUIRE(read.channel_names.size() == written.channel_names.size());
    for (std::size_t c = 0; c < written.channel_names.size(); ++c) {
        const auto at = std::find(read.channel_names.begin(), read.channel_names.end(), written.channel_names[c]);
        REQUIRE(at != read.channel_names.end());
        CAPTURE(written.channel_names[c]);
        CHECK(read.channels[std::size_t(at - read.channel_names.begin())] == written.channels[c]);
    }
}

}  // namespace

TEST_CASE("half RGBA and float layers read back exactly with every codec, as scanlines and as tiles") {
    const TempDir dir;
    image::Image im = render_like(37, 21);
    im.origin_x = -3;
    im.origin_y = 5;
    for (const image::Compression compression : {image::Compression::none, image::Compression::rle,
                                                 image::Compression::zips, image::Compression::zip,
                                                 image::Compression::piz})
        for (const int tile_size : {0, 16}) {
            CAPTURE(int(compression));
            CAPTURE(tile_size);
            image::WriteOptions options = kHalfRgba;
            options.compression = compression;
            options.tile_size = tile_size;
            image::write_exr(dir.file("a.exr"), im, options);
            check_same_pixels(im, image::read_exr(dir.file("a.exr")));
        }
}

TEST_CASE("half channels round to the nearest half; uint channels keep integers") {
    const TempDir dir;
    image::Image im;
    im.width = 4;
    im.height = 1;
    im.channel_names = {"Y", "id"};
    im.channels = {{1.0f / 3.0f, 65504.0f, 1e-8f, -2.5f}, {0.0f, 7.0f, 16777216.0f, 3.9f}};
    image::write_exr(dir.file("a.exr"), im,
                     {.pixel_types = {{"Y", image::PixelType::half}, {"id", image::PixelType::uint32}}});
    const image::Image read = image::read_exr(dir.file("a.exr"));
    REQUIRE(read.channel_names == std::vector<std::string>{"Y", "id"});   // sorted by bytes
    const std::vector<float>& y = read.channels[0];
    const std::vector<float>& id = read.channels[1];
    CHECK(y[0] == doctest::Approx(1.0 / 3.0).epsilon(1.0 / 2048));
    CHECK(y[1] == 65504.0f);
    CHECK(y[3] == -2.5f);
    CHECK(id == std::vector<float>{0.0f, 7.0f, 16777216.0f, 3.0f});
}

TEST_CASE("attributes: camera matrices, step and time read back with their types") {
    const TempDir dir;
    image::Image im = render_like(8, 4);
    image::Matrix44 world_to_camera{};
    for (std::size_t i = 0; i < 16; ++i) world_to_camera[i] = 0.25f * float(i) - 1.0f;
    im.attributes["worldToCamera"] = world_to_camera;
    im.attributes["partikel.step"] = 123456;
    im.attributes["partikel.time_s"] = 0.125;
    im.attributes["partikel.source"] = std::string("frames.pks");
    im.attributes["exposure"] = 1.5f;
    image::write_exr(dir.file("a.exr"), im, kHalfRgba);
    const image::Image read = image::read_exr(dir.file("a.exr"));
    CHECK(read.attributes == im.attributes);
}

TEST_CASE("the file appears under its name only when complete; an existing file is replaced") {
    const TempDir dir;
    const std::string path = dir.file("frame.exr");
    image::write_exr(path, render_like(8, 4));
    image::Image second = render_like(6, 3);
    image::write_exr(path, second);
    CHECK(image::read_exr(path).width == 6);
    CHECK(dir.entries() == std::vector<std::string>{"frame.exr"});   // no temporary left behind
}

TEST_CASE("bad images are usage errors; unwritable paths are I/O errors naming the path") {
    const TempDir dir;
    image::Image empty;
    CHECK_THROWS_WITH_AS(image::write_exr(dir.file("a.exr"), empty), doctest::Contains("0 x 0 pixels"), UsageError);
    image::Image short_channel = render_like(4, 4);
    short_channel.channels[2].pop_back();
    CHECK_THROWS_WITH_AS(image::write_exr(dir.file("a.exr"), short_channel),
                         doctest::Contains("channel 'B' has 15 values for 16 pixels"), UsageError);
    image::Image twice = render_like(4, 4);
    twice.channel_names[1] = "R";
    CHECK_THROWS_AS(image::write_exr(dir.file("a.exr"), twice), UsageError);
    image::Image reserved = render_like(4, 4);
    reserved.attributes["dataWindow"] = 1;
    CHECK_THROWS_AS(image::write_exr(dir.file("a.exr"), reserved), UsageError);
    image::WriteOptions level_zero;
    level_zero.zip_level = 0;
    CHECK_THROWS_AS(image::write_exr(dir.file("a.exr"), render_like(4, 4), level_zero), UsageError);
    CHECK_THROWS_AS(image::write_exr(dir.file("a.exr"), render_like(4, 4),
                                     {.pixel_types = {{"no-such-channel", image::PixelType::half}}}),
                    UsageError);
    const std::string missing = dir.file("no/such/dir/a.exr");
    CHECK_THROWS_WITH_AS(image::write_exr(missing, render_like(4, 4)), doctest::Contains(missing.c_str()), IoError);
    CHECK(dir.entries().empty());
}

TEST_CASE("compression names") {
    CHECK(image::parse_compression("piz") == image::Compression::piz);
    CHECK(image::parse_compression("zip") == image::Compression::zip);
    CHECK(image::parse_compression("none") == image::Compression::none);
    CHECK_THROWS_AS(image::parse_compression("dwaa"), UsageError);
}
