// Held groups (formats/held.hpp, SPEC.md §1.2): a multi-frame file stores a held group once
// (and again when it changes), and every frame read back is complete, read in order or from a
// frame reached by seeking.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>

#include "formats/held.hpp"
#include "formats/reader.hpp"
#include "formats/stream/stream.hpp"
#include "sample_frames.hpp"

using namespace partikel;
using namespace partikel::fmt;
using namespace partikel::fmt::test;

namespace {

Frame frame_with_map(std::int64_t step, float level, std::uint64_t samples = 4096) {
    Frame f;
    f.step = step;
    f.time = 0.1 * double(step);
    Group& particles = f.add_group("fluid", 3);
    auto x = particles.add_well_known("position").values<float>();
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(step) + 0.25f * float(i);
    Group& map = f.add_group("map", samples);
    auto h = map.add_column("height", ScalarType::f32, 1, units::length).values<float>();
    std::uint32_t state = 12345u;  // xorshift: samples that do not compress away
    for (std::size_t i = 0; i < h.size(); ++i) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        h[i] = level + float(state) * 1e-9f;
    }
    mark_held(f, "map");
    return f;
}

bool same_bytes(const Column& a, const Column& b) {
    return a.bytes() == b.bytes() && std::memcmp(a.raw().data(), b.raw().data(), a.bytes()) == 0;
}

}  // namespace

TEST_CASE("a held group is stored once per file and restored in every frame") {
    TempDir dir;
    // Frames 0..5 hold one map, 6..9 another: stored in frames 0 and 6 only.
    std::vector<Frame> frames;
    for (int i = 0; i < 10; ++i) frames.push_back(frame_with_map(i, i < 6 ? 1.0f : 2.0f));
    for (const char* name : {"held.pks", "held.h5"}) {
        CAPTURE(name);
        const std::string path = dir.file(name);
        write_all(path, frames);
        const auto back = read_all(path);
        REQUIRE(back.size() == frames.size());
        for (std::size_t i = 0; i < frames.size(); ++i) {
            CAPTURE(i);
            REQUIRE(back[i].find_group("map"));
            CHECK(same_bytes(back[i].group("map").at("height"), frames[i].group("map").at("height")));
            CHECK(same_bytes(back[i].group("fluid").at("position"), frames[i].group("fluid").at("position")));
            CHECK(std::get<std::int64_t>(back[i].attributes.at("held.map")) == (i < 6 ? 0 : 6));
        }
        // Starting anywhere (a restart seeks): the map of that frame.
        for (std::uint64_t start : {3, 5, 6, 9}) {
            CAPTURE(start);
            auto reader = open_reader(path);
            REQUIRE(reader->seek_frame(start));
            const auto f = reader->next();
            REQUIRE(f);
            REQUIRE(f->find_group("map"));
            CHECK(same_bytes(f->group("map").at("height"), frames[start].group("map").at("height")));
            if (start == 5) {  // and on in order from there, across the change
                const auto g = reader->next();
                REQUIRE(g);
                CHECK(same_bytes(g->group("map").at("height"), frames[6].group("map").at("height")));
            }
        }
    }
    // The stream stores two maps, not ten: smaller than the same frames with unheld maps.
    std::vector<Frame> unheld = frames;
    for (Frame& f : unheld) f.attributes.erase("held.map");
    write_all(dir.file("unheld.pks"), unheld);
    const auto held_bytes = std::filesystem::file_size(dir.file("held.pks"));
    const auto unheld_bytes = std::filesystem::file_size(dir.file("unheld.pks"));
    MESSAGE("10 frames, map stored twice: " << held_bytes << " bytes; in every frame: " << unheld_bytes);
    CHECK(held_bytes * 3 < unheld_bytes);
}

TEST_CASE("a held group that is missing is an error, for the writer and for the reader") {
    TempDir dir;
    Frame orphan = frame_with_map(0, 1.0f);
    orphan.remove_group("map");
    CHECK_THROWS_AS(write_all(dir.file("orphan.pks"), {orphan}), UsageError);
    // A file whose frame names a held group that no frame stores (written without the
    // held-group writer, as a foreign program could): reading it names the frame.
    {
        auto writer = make_stream_writer(OutputStream::open(dir.file("foreign.pks"), true, false), WriterOptions{});
        writer->write(orphan);
        writer->finish();
    }
    CHECK_THROWS_WITH_AS(read_all(dir.file("foreign.pks")), doctest::Contains("held group \"map\""), FormatError);
}
