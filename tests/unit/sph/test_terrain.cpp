// Height-field terrain from images: grey PNG and OpenEXR files give exactly the heights of the
// raw format for the same samples, whatever the pixel type, height channel or layout;
// load_height_field picks the reader by content; damaged or non-finite images are FormatErrors,
// never crashes.
#include <doctest/doctest.h>

#include <OpenEXR/ImfRgbaFile.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "image/exr.hpp"
#include "sph/io/scenes.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

// 3 columns along x, 2 rows along z; samples that use both bytes of a 16-bit sample and are
// exact in half precision too (65504 is the largest half).
constexpr int kNx = 3, kNz = 2;
const std::vector<std::uint16_t> kSamples = {0, 1, 258, 40000, 65504, 7};
const std::vector<float> kSampleValues(kSamples.begin(), kSamples.end());
constexpr float kCell_m = 0.5f, kScale_m = 0.001f, kOffset_m = -2.0f, kX0_m = 1.0f, kZ0_m = 3.0f;

std::vector<unsigned char> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
    // A new file rather than a truncated one: ext4 flushes a truncated file on close
    // (auto_da_alloc), which made the damage loops below take seconds.
    std::remove(path.c_str());
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    REQUIRE(out.good());
}

// Unsigned 16-bit little-endian samples, the raw height format.
void write_raw16(const std::string& path, const std::vector<std::uint16_t>& samples) {
    std::vector<unsigned char> bytes;
    for (const std::uint16_t v : samples) bytes.insert(bytes.end(), {std::uint8_t(v & 0xff), std::uint8_t(v >> 8)});
    write_bytes(path, bytes);
}

// A grey PNG of `bits` (8 or 16) per sample, written with libpng's simplified API (which stores
// 16-bit samples as given when the format is linear grey).
void write_grey_png(const std::string& path, int nx, int nz, int bits, const std::vector<std::uint16_t>& samples) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    image.width = png_uint_32(nx);
    image.height = png_uint_32(nz);
    image.format = bits == 16 ? PNG_FORMAT_LINEAR_Y : PNG_FORMAT_GRAY;
    std::vector<std::uint8_t> bytes8(samples.begin(), samples.end());
    const void* buffer = bits == 16 ? static_cast<const void*>(samples.data()) : bytes8.data();
    REQUIRE(png_image_write_to_file(&image, path.c_str(), 0, buffer, 0, nullptr) != 0);
}

// The channel `height_channel` holding `values`, plus `decoys`: channels of a constant the
// loader must not read.
image::Image exr_image(int nx, int nz, const std::vector<float>& values, const std::string& height_channel,
                       const std::vector<std::string>& decoys = {}) {
    image::Image image;
    image.width = nx;
    image.height = nz;
    image.channel_names.push_back(height_channel);
    image.channels.push_back(values);
    for (const std::string& name : decoys) {
        image.channel_names.push_back(name);
        image.channels.emplace_back(values.size(), 9999.0f);
    }
    return image;
}

HeightField load_exr(const std::string& path) {
    return load_exr_height_field(path, kCell_m, kScale_m, kOffset_m, kX0_m, kZ0_m);
}

}  // namespace

TEST_CASE("height fields from 8- and 16-bit grey PNG images match the raw format") {
    const std::string raw = "test_unit_sph_terrain.raw", png16 = "test_unit_sph_terrain16.png",
                      png8 = "test_unit_sph_terrain8.png";
    write_raw16(raw, kSamples);
    write_grey_png(png16, kNx, kNz, 16, kSamples);
    const std::vector<std::uint16_t> samples8 = {0, 1, 2, 128, 255, 7};
    write_grey_png(png8, kNx, kNz, 8, samples8);

    const HeightField from_raw = load_raw_height_field(raw, kNx, kNz, kCell_m, kScale_m, kOffset_m, kX0_m, kZ0_m);
    const HeightField from_png16 = load_png_height_field(png16, kCell_m, kScale_m, kOffset_m, kX0_m, kZ0_m);
    CHECK(from_png16.nx == kNx);
    CHECK(from_png16.nz == kNz);
    CHECK(from_png16.cell_m == kCell_m);
    CHECK(from_png16.x0_m == kX0_m);
    CHECK(from_png16.z0_m == kZ0_m);
    CHECK(from_png16.height_m == from_raw.height_m);
    CHECK(from_png16.height_m[3] == kOffset_m + kScale_m * 40000.0f);  // row 1 (z = z0 + cell), column 0

    const HeightField from_png8 = load_png_height_field(png8, kCell_m, 1.0f, 0.0f);
    REQUIRE(from_png8.height_m.size() == samples8.size());
    for (std::size_t i = 0; i < samples8.size(); ++i) CHECK(from_png8.height_m[i] == float(samples8[i]));

    // Not a grey image: an RGB PNG is refused, not misread.
    {
        png_image image{};
        image.version = PNG_IMAGE_VERSION;
        image.width = 2;
        image.height = 2;
        image.format = PNG_FORMAT_RGB;
        const std::uint8_t rgb[12] = {};
        REQUIRE(png_image_write_to_file(&image, png8.c_str(), 0, rgb, 0, nullptr) != 0);
    }
    CHECK_THROWS_AS(load_png_height_field(png8, kCell_m, 1.0f, 0.0f), IoError);
    CHECK_THROWS_AS(load_png_height_field(raw, kCell_m, 1.0f, 0.0f), IoError);
    std::remove(raw.c_str());
    std::remove(png16.c_str());
    std::remove(png8.c_str());
}

TEST_CASE("OpenEXR height fields match the raw format for every pixel type, height channel and layout") {
    const std::string raw = "test_unit_sph_terrain_exr.raw", exr = "test_unit_sph_terrain.exr";
    write_raw16(raw, kSamples);
    const HeightField expected = load_raw_height_field(raw, kNx, kNz, kCell_m, kScale_m, kOffset_m, kX0_m, kZ0_m);
    // The height channel wins over every channel after it in this list; G never does.
    const std::vector<std::string> preference = {"Y", "Z", "R", "G"};
    for (const image::PixelType type :
         {image::PixelType::half, image::PixelType::float32, image::PixelType::uint32})
        for (std::size_t rank = 0; rank < 3; ++rank)
            for (const int tile_size : {0, 2}) {
                const std::string& channel = preference[rank];
                CAPTURE(type);
                CAPTURE(channel);
                CAPTURE(tile_size);
                image::Image image = exr_image(kNx, kNz, kSampleValues, channel,
                                               {preference.begin() + std::ptrdiff_t(rank) + 1, preference.end()});
                image.origin_x = 5;  // the data window may start anywhere: heights start at x0, z0
                image.origin_y = -2;
                image::write_exr(exr, image, {.pixel_types = {{channel, type}}, .tile_size = tile_size});
                const HeightField t = load_exr(exr);
                CHECK(t.nx == kNx);
                CHECK(t.nz == kNz);
                CHECK(t.cell_m == kCell_m);
                CHECK(t.x0_m == kX0_m);
                CHECK(t.z0_m == kZ0_m);
                CHECK(t.height_m == expected.height_m);
            }

    // One channel of any name is the height; several without Y, Z or R are ambiguous.
    image::write_exr(exr, exr_image(kNx, kNz, kSampleValues, "height"));
    CHECK(load_exr(exr).height_m == expected.height_m);
    image::write_exr(exr, exr_image(kNx, kNz, kSampleValues, "height", {"A"}));
    CHECK_THROWS_WITH_AS(load_exr(exr), doctest::Contains("no channel Y, Z or R holds heights (channels: A, height)"),
                         FormatError);
    // A 1-row image has no cell to interpolate in.
    image::write_exr(exr, exr_image(3, 1, {1.0f, 2.0f, 3.0f}, "Y"));
    CHECK_THROWS_WITH_AS(load_exr(exr), doctest::Contains("at least 2 x 2 samples"), FormatError);
    std::remove(raw.c_str());
    std::remove(exr.c_str());
}

TEST_CASE("a luminance/chroma OpenEXR image gives its luminance; its subsampled chroma is not read") {
    const std::string exr = "test_unit_sph_terrain_yc.exr";
    // Grey pixels: luminance = the grey value, exact in half precision.
    const int nx = 4, nz = 2;
    const std::vector<float> grey = {0.0f, 0.5f, 1.0f, 2.0f, 3.25f, 64.0f, 1000.0f, 7.0f};
    {
        std::vector<Imf::Rgba> pixels;
        for (const float v : grey) pixels.emplace_back(v, v, v, 1.0f);
        Imf::RgbaOutputFile file(exr.c_str(), nx, nz, Imf::WRITE_YC);
        file.setFrameBuffer(pixels.data(), 1, std::size_t(nx));
        file.writePixels(nz);
    }
    CHECK_THROWS_WITH_AS(image::read_exr(exr), doctest::Contains("is subsampled"), FormatError);
    const HeightField t = load_exr_height_field(exr, 1.0f, 1.0f, 0.0f);
    CHECK(t.height_m == grey);
    std::remove(exr.c_str());
}

TEST_CASE("load_height_field picks the reader by content, not by name") {
    const std::string raw = "test_unit_sph_terrain_by_content.raw", png = "test_unit_sph_terrain_by_content.exr",
                      exr = "test_unit_sph_terrain_by_content.png";
    write_raw16(raw, kSamples);
    write_grey_png(png, kNx, kNz, 16, kSamples);
    image::write_exr(exr, exr_image(kNx, kNz, kSampleValues, "Z"));
    const std::vector<int> size = {kNx, kNz};
    const HeightField expected = load_raw_height_field(raw, kNx, kNz, kCell_m, kScale_m, kOffset_m, kX0_m, kZ0_m);
    for (const std::string& path : {raw, png, exr}) {
        CAPTURE(path);
        const std::vector<int> raw_size = path == raw ? size : std::vector<int>{};
        CHECK(load_height_field(path, raw_size, kCell_m, kScale_m, kOffset_m, kX0_m, kZ0_m).height_m ==
              expected.height_m);
    }
    // The size belongs to raw samples only: required there, refused for images.
    CHECK_THROWS_WITH_AS(load_height_field(raw, {}, kCell_m, 1.0f, 0.0f), doctest::Contains("--terrain-size"),
                         UsageError);
    CHECK_THROWS_WITH_AS(load_height_field(png, size, kCell_m, 1.0f, 0.0f), doctest::Contains("is a PNG image"),
                         UsageError);
    CHECK_THROWS_WITH_AS(load_height_field(exr, size, kCell_m, 1.0f, 0.0f),
                         doctest::Contains("is an OpenEXR image"), UsageError);
    CHECK_THROWS_AS(load_height_field("test_unit_sph_no_such_terrain", size, kCell_m, 1.0f, 0.0f), IoError);
    CHECK_THROWS_AS(load_height_field(exr, {}, 0.0f, 1.0f, 0.0f), UsageError);  // cell size
    std::remove(raw.c_str());
    std::remove(png.c_str());
    std::remove(exr.c_str());
}

TEST_CASE("a NaN or infinite height is a format error naming the sample") {
    const std::string exr = "test_unit_sph_terrain_nan.exr";
    for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        CAPTURE(bad);
        std::vector<float> values = kSampleValues;
        values[4] = bad;  // column 1, row 1
        image::write_exr(exr, exr_image(kNx, kNz, values, "Y"),
                         {.pixel_types = {{"Y", image::PixelType::half}}});
        CHECK_THROWS_WITH_AS(load_exr(exr), doctest::Contains("column 1, row 1 gives a non-finite height"),
                             FormatError);
    }
    // Finite samples that overflow once scaled are refused as well.
    image::write_exr(exr, exr_image(kNx, kNz, {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 3e38f}, "Y"));
    CHECK_THROWS_AS(load_exr_height_field(exr, 1.0f, 10.0f, 0.0f), FormatError);
    std::remove(exr.c_str());
}

TEST_CASE("truncated or damaged OpenEXR files are format errors, never crashes") {
    const std::string exr = "test_unit_sph_terrain_damaged.exr";
    // Scanlines uncompressed and zipped, tiles of 2 x 2 with PIZ (wavelet + Huffman).
    const std::pair<int, image::Compression> layouts[] = {
        {0, image::Compression::none}, {0, image::Compression::zip}, {2, image::Compression::piz}};
    for (const auto& [tile_size, compression] : layouts) {
        CAPTURE(tile_size);
        CAPTURE(compression);
        image::write_exr(exr, exr_image(kNx, kNz, kSampleValues, "Y"),
                         {.compression = compression, .tile_size = tile_size});
        const std::vector<unsigned char> bytes = read_bytes(exr);
        REQUIRE(load_exr(exr).height_m.size() == kSamples.size());
        for (std::size_t size = 0; size < bytes.size(); ++size) {
            CAPTURE(size);
            write_bytes(exr, {bytes.begin(), bytes.begin() + std::ptrdiff_t(size)});
            CHECK_THROWS_WITH_AS(load_exr(exr), doctest::Contains(exr.c_str()), FormatError);
        }
        // A flipped byte may land in pixel data or an unused header attribute and go unnoticed;
        // what is noticed must be the project's error (any other exception fails the test).
        std::size_t refused = 0;
        for (std::size_t at = 0; at < bytes.size(); ++at) {
            CAPTURE(at);
            std::vector<unsigned char> damaged = bytes;
            damaged[at] ^= 0x5a;
            write_bytes(exr, damaged);
            try {
                load_exr(exr);
            } catch (const Error&) {
                ++refused;
            }
        }
        CHECK(refused > 0);
    }

    // A data window of 2^28 x 1024 pixels (1 TiB as floats) over 6 stored samples: OpenEXR 3.1
    // opens it (with room for the line offsets), the reader must refuse before allocating.
    image::write_exr(exr, exr_image(kNx, kNz, kSampleValues, "Y"), {.compression = image::Compression::none});
    std::vector<unsigned char> vast = read_bytes(exr);
    const std::string attribute("dataWindow\0box2i\0", 17);
    const auto at = std::search(vast.begin(), vast.end(), attribute.begin(), attribute.end());
    REQUIRE(at != vast.end());
    // The box follows the attribute's 4-byte size: x min, y min, x max, y max, little-endian
    // like the machines the tests run on.
    const std::int32_t window[4] = {0, 0, (1 << 28) - 1, 1023};
    std::memcpy(&*(at + std::ptrdiff_t(attribute.size()) + 4), window, sizeof window);
    vast.resize(vast.size() + 8 * 1024);
    write_bytes(exr, vast);
    CHECK_THROWS_WITH_AS(load_exr(exr), doctest::Contains("exceed this machine's memory"), FormatError);
    std::remove(exr.c_str());
}
