#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include "formats/encodings.hpp"
#include "formats/reader.hpp"
#include "formats/selection.hpp"
#include "sample_frames.hpp"
#include "support/hostile_text.hpp"

using namespace partikel;
using namespace partikel::fmt;
using namespace partikel::fmt::test;

namespace {

Frame read_one(const std::string& path) {
    auto reader = open_reader(path);
    auto f = reader->next();
    REQUIRE(f);
    CHECK_FALSE(reader->next());
    return std::move(*f);
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("CSV round trip with metadata is exact for every type and component count") {
    TempDir dir;
    Frame f = every_type_frame(42, 50);
    f.attributes.clear();  // CSV carries step, time, dt and time_unit_si only
    f.remove_group("boundary");
    f.remove_group("empty");
    f.remove_group("bare");
    WriterOptions options;
    options.csv_metadata = true;
    auto writer = open_writer(dir.file("a.csv"), options);
    writer->write(f);
    writer->finish();
    const Frame back = read_one(dir.file("a.csv"));
    CHECK(difference(f, back) == "");
}

TEST_CASE("CSV by default: one plain header row of field names, then the values") {
    TempDir dir;
    Frame f = every_type_frame(42, 50);
    f.remove_group("boundary");
    f.remove_group("empty");
    f.remove_group("bare");
    write_all(dir.file("p.csv"), {f});
    std::ifstream in(dir.file("p.csv"));
    std::string header;
    std::getline(in, header);
    // What numpy.genfromtxt(names=True) and ParaView's CSV reader take as column names.
    CHECK(header.rfind("position_x,position_y,position_z,", 0) == 0);
    CHECK(header.find_first_of("#: ") == std::string::npos);
    const Frame back = read_one(dir.file("p.csv"));
    const Group& g = f.groups().front();
    const Group& b = back.group("particles");  // the group name is metadata
    REQUIRE(b.count() == g.count());
    for (const auto& column : g.columns()) {
        const Column* c = b.find(column.name());
        REQUIRE_MESSAGE(c, column.name());
        REQUIRE(c->components() == column.components());
        for (std::uint64_t i = 0; i < g.count(); ++i)
            for (std::uint32_t k = 0; k < column.components(); ++k) {
                // Values keep every digit; only the types of columns without a well-known type
                // are inferred (f64 or i64): an f32 comes back as the f64 of its shortest text,
                // and i64 cannot hold a u64 above 2^63 - 1.
                if (column.type() == ScalarType::u64 && !well_known_column(column.name())) continue;
                const double want = column.as_double(i, k);
                double got = c->as_double(i, k);
                if (column.type() == ScalarType::f32) got = static_cast<float>(got);
                CHECK_MESSAGE((got == want || (std::isnan(got) && std::isnan(want))), column.name() << " row " << i);
            }
    }
}

TEST_CASE("CSV from people: inferred types, x,y,z as position, comments, CRLF") {
    TempDir dir;
    write_text(dir.file("p.csv"), "# made by hand\r\nx, y, z,density,n,w:f32,id\r\n1,2,3,1000,7,0.5,9\r\n4,5,6.5,1e3,-8,1,10\r\n");
    const Frame f = read_one(dir.file("p.csv"));
    const auto& g = f.group("particles");
    CHECK(g.count() == 2);
    CHECK(g.at("position").type() == ScalarType::f32);
    CHECK(g.at("position").components() == 3);
    CHECK(g.at("position").as_double(1, 2) == 6.5);
    CHECK(g.at("density").type() == ScalarType::f32);
    CHECK(g.at("n").type() == ScalarType::i64);
    CHECK(g.at("n").as_double(1) == -8);
    CHECK(g.at("w").type() == ScalarType::f32);
    CHECK(g.at("id").type() == ScalarType::u64);
    CHECK(g.at("id").unit() == Unit{});
    CHECK(g.at("density").unit() == well_known_column("density")->unit);
}

TEST_CASE("CSV errors name the file and line") {
    TempDir dir;
    write_text(dir.file("r.csv"), "a,b\n1,2\n3\n");
    CHECK_THROWS_WITH_AS(read_one(dir.file("r.csv")), doctest::Contains("r.csv: frame 0, line 3: 1 fields, header has 2"), FormatError);
    write_text(dir.file("t.csv"), "id\n1\nx2\n");
    CHECK_THROWS_WITH_AS(read_one(dir.file("t.csv")), doctest::Contains("line 3: \"x2\" is not a u64"), FormatError);
    write_text(dir.file("u.csv"), "a:f16\n1\n");
    CHECK_THROWS_WITH_AS(read_one(dir.file("u.csv")), doctest::Contains("unknown type"), FormatError);
}

TEST_CASE("one-frame encodings refuse a second frame or several groups without %T") {
    TempDir dir;
    auto writer = open_writer(dir.file("a.csv"));
    Frame f = sph_frame(3, 1);
    writer->write(f);
    CHECK_THROWS_AS(writer->write(f), UsageError);
    CHECK_THROWS_AS(open_writer(dir.file("b.vtk"))->write(every_type_frame(0, 2)), UsageError);
    auto per_frame = open_writer(dir.file("f_%T.ply"));
    per_frame->write(sph_frame(3, 1));
    per_frame->write(sph_frame(3, 2));
    per_frame->finish();
    CHECK(std::filesystem::exists(dir.file("f_000001.ply")));
    CHECK(std::filesystem::exists(dir.file("f_000002.ply")));
}

TEST_CASE("%T is the step zero-padded, so that a run's file names sort in step order") {
    CHECK(expand_step_pattern("frame_%T.csv", 4) == "frame_000004.csv");
    CHECK(expand_step_pattern("frame_%T.csv", 12) == "frame_000012.csv");
    CHECK(expand_step_pattern("frame_%T.csv", 4) < expand_step_pattern("frame_%T.csv", 12));
    CHECK(expand_step_pattern("run_%T.h5", 1234567) == "run_1234567.h5");
    CHECK(expand_step_pattern("plain.csv", 3) == "plain.csv");
}

TEST_CASE("frame selection follows Python slices") {
    auto s = FrameSelection::parse("0:100:10,5");
    CHECK(s.contains(0));
    CHECK(s.contains(90));
    CHECK_FALSE(s.contains(100));
    CHECK(s.contains(5));
    CHECK_FALSE(s.contains(6));
    CHECK(s.end() == std::optional<std::uint64_t>(100));
    CHECK_FALSE(FrameSelection::parse("3:").end());
    CHECK(FrameSelection::parse("::2").contains(4));
    CHECK_FALSE(FrameSelection::parse("::2").contains(3));
    CHECK(FrameSelection::parse("").all());
    CHECK_THROWS_AS(FrameSelection::parse("1:2:0"), UsageError);
    CHECK_THROWS_AS(FrameSelection::parse("a"), UsageError);
    CHECK_THROWS_AS(FrameSelection::parse("-1"), UsageError);
}

TEST_CASE("group and column selection keeps order and renames") {
    Frame f = every_type_frame(0, 4);
    apply_selection(f, NameSelection::parse("boundary:walls,fluid", "--groups"),
                    NameSelection::parse("mass:m,position", "--columns"));
    REQUIRE(f.groups().size() == 2);
    CHECK(f.groups()[0].name() == "walls");
    CHECK(f.groups()[0].columns().size() == 2);
    CHECK(f.groups()[0].columns()[0].name() == "m");
    CHECK(f.groups()[1].name() == "fluid");
    CHECK(f.groups()[1].columns().size() == 1);
    CHECK(f.groups()[1].columns()[0].name() == "position");
    Frame g = every_type_frame(0, 4);
    CHECK_THROWS_AS(apply_selection(g, NameSelection::parse("nope", "--groups"), {}), UsageError);
    CHECK_THROWS_AS(apply_selection(g, {}, NameSelection::parse("nope", "--columns")), UsageError);
    CHECK_THROWS_AS(NameSelection::parse("a,a:b", "--groups"), UsageError);
    CHECK_THROWS_AS(NameSelection::parse("a:b/c", "--groups"), UsageError);
}

TEST_CASE("for_each_selected seeks past unselected frames of indexed files") {
    TempDir dir;
    for (bool index : {true, false}) {
        CAPTURE(index);
        WriterOptions options;
        options.write_index = index;
        auto writer = open_writer(dir.file("s.pks"), options);
        for (int i = 0; i < 6; ++i) writer->write(sph_frame(10, i));
        writer->finish();
        auto reader = open_reader(dir.file("s.pks"));
        std::vector<std::uint64_t> indices;
        std::vector<std::int64_t> steps;
        for_each_selected(*reader, FrameSelection::parse("1,4:"), [&](std::uint64_t i, Frame& f) {
            indices.push_back(i);
            steps.push_back(f.step);
        });
        CHECK(indices == std::vector<std::uint64_t>{1, 4, 5});
        CHECK(steps == std::vector<std::int64_t>{1, 4, 5});
    }
    // With the index, a damaged frame that is not selected is never decoded.
    auto writer = open_writer(dir.file("d.pks"));
    for (int i = 0; i < 3; ++i) writer->write(sph_frame(1000, i));
    writer->finish();
    auto bytes = read_bytes(dir.file("d.pks"));
    auto reader = open_reader(dir.file("d.pks"));
    REQUIRE(reader->seek_frame(2));
    bytes[static_cast<std::size_t>(bytes.size() / 2)] ^= 0xFF;  // inside frame 1
    write_bytes(dir.file("d.pks"), bytes);
    reader = open_reader(dir.file("d.pks"));
    std::vector<std::int64_t> steps;
    for_each_selected(*reader, FrameSelection::parse("0,2"), [&](std::uint64_t, Frame& f) { steps.push_back(f.step); });
    CHECK(steps == std::vector<std::int64_t>{0, 2});
    reader = open_reader(dir.file("d.pks"));
    CHECK_THROWS_AS(for_each_selected(*reader, FrameSelection::parse("0:2"), [](std::uint64_t, Frame&) {}), FormatError);
}

// Hostile CSV particle files (tests/support/hostile_text.hpp): read, or one FormatError naming
// the file; never a crash or undefined behaviour (the sanitizer build runs this too).
TEST_CASE("hostile CSV particle files read or fail with an error naming the file") {
    TempDir dir;
    const std::string path = dir.file("fuzz.csv");
    const std::string valid = "# step: 3\n# time: 0.5\n# group: fluid\n# unit: density -3 1 0 0 0 0 0 1\n"
                              "x,y,z,density,id:u64,flags:u8\n0,0,0,1000,1,7\n0.1,2e-3,-1,999.5,2,0\n";
    write_text(path, valid);
    CHECK_NOTHROW(read_one(path));
    for (const std::string& hostile : partikel::test::hostile_texts(valid, 28, 300)) {
        write_text(path, hostile);
        try {
            // Plainly and into provided column memory, with the same outcome.
            const std::string error = read_both_ways(path);
            if (!error.empty()) CHECK(std::string_view(error).starts_with(path));
        } catch (const UsageError& e) {  // a name no column may have (SPEC.md §1)
            CHECK(std::string_view(e.what()).find("name") != std::string_view::npos);
        }
    }
}
