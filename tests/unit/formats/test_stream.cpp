#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "formats/reader.hpp"
#include "formats/stream/filters.hpp"
#include "formats/stream/stream.hpp"
#include "formats/stream/xxhash64.hpp"
#include "sample_frames.hpp"

using namespace partikel;
using namespace partikel::fmt;
using namespace partikel::fmt::test;

TEST_CASE("xxh64 (the library's where built with it) and ours match the reference test vectors") {
    const char* long_text = "Nobody inspects the spammish repetition";
    for (const auto hash : {&xxh64, &xxh64_portable}) {
        CHECK(hash("", 0, 0) == 0xEF46DB3751D8E999ULL);
        CHECK(hash("a", 1, 0) == 0xD24EC4F1A98C6E5BULL);
        CHECK(hash("abc", 3, 0) == 0x44BC2CF5AD770999ULL);
        CHECK(hash(long_text, std::strlen(long_text), 0) == 0xFBCEA83C8A378BF1ULL);
    }
    INFO("xxh64 from the xxHash library: " << xxh64_from_library());
    // Every tail length (0..7 bytes after 0..3 stripes of 32), unaligned starts, other seeds.
    std::vector<unsigned char> bytes(301);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 131 + 7);
    for (std::size_t start : {0u, 1u, 3u})
        for (std::size_t n = 0; n + start <= bytes.size(); ++n)
            for (std::uint64_t seed : {0ULL, 1ULL, 0x9E3779B185EBCA87ULL})
                REQUIRE(xxh64(bytes.data() + start, n, seed) == xxh64_portable(bytes.data() + start, n, seed));
}

TEST_CASE("shuffle and delta filters invert exactly for every width") {
    for (std::size_t width : {1u, 4u, 8u}) {
        for (std::size_t row : {1u, 2u, 3u, 6u, 9u}) {
            // Shuffle works on whole rows of `row` values; 600 rows cross a transpose tile.
            const std::size_t n = 600, w = row * width;
            std::vector<std::byte> raw(n * w), a(raw.size()), b(raw.size());
            for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = std::byte(static_cast<unsigned char>(i * 37 + i / 251));
            shuffle_bytes(raw.data(), a.data(), n, w);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < w; ++j) REQUIRE(a[j * n + i] == raw[i * w + j]);
            unshuffle_bytes(a.data(), b.data(), n, w);
            CHECK(b == raw);
        }
        for (std::size_t components : {1u, 3u}) {
            const std::size_t values = 3 * 37;
            std::vector<std::byte> raw(values * width), a(raw.size()), b(raw.size());
            for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = std::byte(static_cast<unsigned char>(i * 131 + 7));
            a = raw;
            delta_encode(a.data(), values, width, components);
            CHECK(a != raw);
            shuffle_bytes(a.data(), b.data(), values, width);
            unshuffle_bytes(b.data(), a.data(), values, width);
            delta_decode(a.data(), values, width, components);
            CHECK(a == raw);
        }
    }
    // Shuffle places byte j of value i at j * n + i (SPEC.md §2.6).
    const std::uint32_t v[2] = {0x04030201, 0x08070605};
    std::byte out[8];
    shuffle_bytes(reinterpret_cast<const std::byte*>(v), out, 2, 4);
    const unsigned char expect[8] = {1, 5, 2, 6, 3, 7, 4, 8};
    CHECK(std::memcmp(out, expect, 8) == 0);
}

TEST_CASE("stream round trip is bit-identical for every type, group and attribute") {
    TempDir dir;
    const std::vector<Frame> frames{every_type_frame(0, 1000), every_type_frame(10, 3), every_type_frame(10, 0)};
    for (bool compress : {true, false})
        for (bool filters : {true, false}) {
            CAPTURE(compress);
            CAPTURE(filters);
            WriterOptions options;
            options.compress = compress;
            options.filters = filters;
            write_all(dir.file("a.pks"), frames, options);
            const auto back = read_all(dir.file("a.pks"));
            REQUIRE(back.size() == frames.size());
            for (std::size_t i = 0; i < frames.size(); ++i) CHECK(difference(frames[i], back[i]) == "");
        }
}

TEST_CASE("columns larger than a block split into blocks, decode in parallel, and encode the same on any thread count") {
    TempDir dir;
    // An 8 MB frame gets blocks of the 1 MiB floor: 400k positions (4.8 MB) make five blocks,
    // the ids (3.2 MB) four.
    Frame big;
    auto& g = big.add_group("fluid", 400'000);
    auto pos = g.add_well_known("position").values<float>();
    for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = static_cast<float>(i % 1000) * 0.001f;
    auto id = g.add_well_known("id").values<std::uint64_t>();
    for (std::size_t i = 0; i < id.size(); ++i) id[i] = 1'000'000 + 3 * i;
    std::vector<std::string> bytes;
    for (int threads : {1, 3, 8}) {
        WriterOptions options;
        options.threads = threads;
        options.zstd_level = 1;
        write_all(dir.file("big.pks"), {big}, options);
        const auto back = read_all(dir.file("big.pks"));
        REQUIRE(back.size() == 1);
        CHECK(difference(big, back[0]) == "");
        std::ifstream in(dir.file("big.pks"), std::ios::binary);
        const std::string file{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        bytes.push_back(file.substr(file.find("PKFR")));  // after the header, which holds its creation time
    }
    // The frame's bytes are a function of the frame: the same from 1, 3 and 8 threads.
    CHECK(bytes[0] == bytes[1]);
    CHECK(bytes[0] == bytes[2]);
    // Delta + shuffle turn regular ids into almost nothing.
    CHECK(std::filesystem::file_size(dir.file("big.pks")) < big.payload_bytes() / 20);
}

TEST_CASE("columns decode into provided memory as they decode on the heap: blocks in parallel, raw and filtered") {
    TempDir dir;
    // Positions (shuffled, zstd) in five blocks decoded in parallel; ids (delta) stay on the heap
    // (TrackedMemory does not want them); stored raw, unfiltered blocks are read straight into
    // the column's memory.
    Frame big = sph_frame(400'000, 3);
    for (const bool compress : {true, false})
        for (const bool filters : {true, false}) {
            CAPTURE(compress);
            CAPTURE(filters);
            WriterOptions options;
            options.compress = compress;
            options.filters = filters;
            options.zstd_level = 1;
            write_all(dir.file("big.pks"), {big, sph_frame(1000, 4)}, options);
            std::vector<Frame> back;
            REQUIRE(read_both_ways(dir.file("big.pks"), &back) == "");
            REQUIRE(back.size() == 2);
            CHECK(difference(big, back[0]) == "");
        }
}

TEST_CASE("shuffle + zstd shrinks a settled SPH block clearly") {
    TempDir dir;
    const Frame frame = sph_frame(100'000);
    write_all(dir.file("sph.pks"), {frame});
    WriterOptions plain;
    plain.filters = false;
    write_all(dir.file("plain.pks"), {frame}, plain);
    const auto shuffled = std::filesystem::file_size(dir.file("sph.pks"));
    CHECK(shuffled < frame.payload_bytes() * 2 / 3);
    CHECK(shuffled < std::filesystem::file_size(dir.file("plain.pks")) * 9 / 10);
}

TEST_CASE("the trailing index gives the frame count and seeking") {
    TempDir dir;
    std::vector<Frame> frames;
    for (int i = 0; i < 5; ++i) frames.push_back(every_type_frame(i * 100, 10 + i));
    write_all(dir.file("s.pks"), frames);
    auto reader = open_reader(dir.file("s.pks"));
    REQUIRE(reader->frame_count());
    CHECK(*reader->frame_count() == 5);
    REQUIRE(reader->seek_frame(3));
    auto f3 = reader->next();
    REQUIRE(f3);
    CHECK(difference(*f3, frames[3]) == "");
    auto f4 = reader->next();
    REQUIRE(f4);
    CHECK(f4->step == 400);
    CHECK_FALSE(reader->next());
    REQUIRE(reader->seek_frame(0));
    CHECK(reader->next()->step == 0);

    WriterOptions no_index;
    no_index.write_index = false;
    write_all(dir.file("n.pks"), frames, no_index);
    auto plain = open_reader(dir.file("n.pks"));
    CHECK_FALSE(plain->frame_count());
    CHECK_FALSE(plain->seek_frame(1));
    int n = 0;
    while (plain->next()) ++n;
    CHECK(n == 5);
}

TEST_CASE("an empty stream is valid and has no frames") {
    TempDir dir;
    write_all(dir.file("e.pks"), {});
    auto reader = open_reader(dir.file("e.pks"));
    CHECK(reader->frame_count() == std::optional<std::uint64_t>(0));
    CHECK_FALSE(reader->next());
}

TEST_CASE("output is not created without finish()") {
    TempDir dir;
    {
        auto writer = open_writer(dir.file("x.pks"));
        writer->write(every_type_frame(0, 2));
    }
    CHECK_FALSE(std::filesystem::exists(dir.file("x.pks")));
}

TEST_CASE("writer options are validated") {
    TempDir dir;
    WriterOptions bad;
    bad.zstd_level = 99;
    CHECK_THROWS_AS(open_writer(dir.file("x.pks"), bad), UsageError);
    CHECK_THROWS_AS(open_writer(dir.file("x.weird")), UsageError);
}
