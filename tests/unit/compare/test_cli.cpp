// compare-results end to end, in-process: files on disk, exit statuses, report files.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "compare_results.hpp"
#include "base/error.hpp"
#include "fixtures.hpp"
#include "image_fixtures.hpp"
#include "formats/reader.hpp"

using namespace partikel;
using namespace partikel::compare::testing;

namespace {

int run(std::vector<std::string> args) { return tools::compare_results(args); }

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string read_text(const std::string& path) {
    std::ostringstream text;
    text << std::ifstream(path).rdbuf();
    return text.str();
}

void write_frames(const std::string& path, const std::vector<fmt::Frame>& frames) {
    const auto writer = fmt::open_writer(path);
    for (const fmt::Frame& frame : frames) writer->write(frame);
    writer->finish();
}

}  // namespace

TEST_CASE("tables: 0 equal, 1 different, and the tolerance decides") {
    const TempDir dir("cli");
    write_text(dir.file("a.csv"), "turn,energy\n0,1.0\n1,0.5\n");
    write_text(dir.file("b.csv"), "turn,energy\n0,1.0\n1,0.5004\n");
    CHECK(run({dir.file("a.csv"), dir.file("a.csv"), "-q"}) == 0);
    CHECK(run({dir.file("a.csv"), dir.file("b.csv"), "-q"}) == 1);
    CHECK(run({dir.file("a.csv"), dir.file("b.csv"), "-q", "--atol", "5e-4"}) == 0);
    CHECK(run({dir.file("a.csv"), dir.file("b.csv"), "-q", "--atol", "3e-4"}) == 1);
    CHECK(run({dir.file("a.csv"), dir.file("b.csv"), "-q", "--tol", "energy=:1e-3"}) == 0);
    CHECK(run({dir.file("a.csv"), dir.file("b.csv"), "-q", "--ignore", "energy"}) == 0);
}

TEST_CASE("list options take one value each and leave the inputs alone") {
    const TempDir dir("cli");
    write_text(dir.file("a.csv"), "turn,x,y,z\n0,1,2,3\n1,1,2,3\n");
    write_text(dir.file("b.csv"), "turn,x,y,z\n1,1,2,3.5\n0,1,2,3.5\n");
    const std::string a = dir.file("a.csv"), b = dir.file("b.csv");
    CHECK(run({"-q", "--key", "turn", a, b, "--columns", "x,y"}) == 0);
    CHECK(run({"-q", "--key", "turn", a, b, "--columns", "x", "--columns", "z"}) == 1);
    CHECK(run({"-q", "--columns", "x,y", "--key", "turn", a, b}) == 0);
    CHECK(run({"-q", "--ignore", "z", "--key", "turn", a, b}) == 0);
    CHECK(run({"-q", "--tol", "x=0", "--tol", "z=0.5", "--key", "turn", a, b}) == 0);
    CHECK(run({"-q", "--tol", "z=0.4", "--key", "turn", a, b}) == 1);
    CHECK(run({"-q", "--stats", "--quantiles", "0.5,0.9", "--ignore", "z", a, b}) == 0);
}

TEST_CASE("the report goes to --output, as text or JSON") {
    const TempDir dir("cli");
    write_text(dir.file("a.csv"), "turn,energy\n0,1.0\n1,0.5\n");
    write_text(dir.file("b.csv"), "turn,energy\n1,0.5\n0,1.25\n");
    CHECK(run({dir.file("a.csv"), dir.file("b.csv"), "--key", "turn", "-o", dir.file("report.txt")}) == 1);
    const std::string text = read_text(dir.file("report.txt"));
    CHECK(text.find("turn=0") != std::string::npos);
    CHECK(text.find("DIFFERENT") != std::string::npos);
    CHECK(run({dir.file("a.csv"), dir.file("b.csv"), "--key", "turn", "--json", "-o", dir.file("report.json")}) == 1);
    const std::string json = read_text(dir.file("report.json"));
    CHECK(json.find("\"equal\":false") != std::string::npos);
    CHECK(json.find("\"max_abs\":0.25") != std::string::npos);
}

TEST_CASE("trouble is exit status 2") {
    const TempDir dir("cli");
    write_text(dir.file("a.csv"), "turn,energy\n0,1.0\n");
    write_text(dir.file("ragged.csv"), "turn,energy\n0\n");
    CHECK(run({}) == 2);                                                          // no inputs
    CHECK(run({dir.file("a.csv")}) == 2);                                         // one input
    CHECK(run({dir.file("a.csv"), dir.file("a.csv"), "--no-such-flag"}) == 2);    // bad flag
    CHECK(run({dir.file("a.csv"), dir.file("missing.csv")}) == 2);                // unreadable
    CHECK(run({dir.file("a.csv"), dir.file("ragged.csv")}) == 2);                 // malformed
    CHECK(run({dir.file("a.csv"), dir.file("a.csv"), "--tol", "energy"}) == 2);   // bad --tol
    CHECK(run({dir.file("a.csv"), dir.file("a.csv"), "--atol", "-1"}) == 2);      // negative
    CHECK(run({dir.file("a.csv"), dir.file("a.csv"), "--key", "step"}) == 2);     // no such key
    CHECK(run({"-", "-"}) == 2);                                                  // stdin twice
    CHECK(run({"--help"}) == 0);
}

TEST_CASE("content detection: magic bytes, not names") {
    const TempDir dir("cli");
    write_text(dir.file("table.exr"), "a,b\n1,2\n");   // a table whatever its name says
    CHECK(compare::detect_kind(dir.file("table.exr")) == compare::InputKind::table);
    write_text(dir.file("image.csv"), std::string("\x76\x2f\x31\x01", 4) + "rest");
    CHECK(compare::detect_kind(dir.file("image.csv")) == compare::InputKind::image);
    write_text(dir.file("particles"), std::string("\x89PKS\r\n\x1a\n", 8));
    CHECK(compare::detect_kind(dir.file("particles")) == compare::InputKind::particles);
    CHECK(compare::detect_kind("-") == compare::InputKind::particles);
    write_text(dir.file("data.npy"), std::string("\x93NUMPY\x01\x00", 8));
    CHECK_THROWS_AS(compare::detect_kind(dir.file("data.npy")), FormatError);
    CHECK(run({dir.file("data.npy"), dir.file("data.npy"), "-q"}) == 2);
    // A table against an image cannot be compared: trouble.
    CHECK(run({dir.file("table.exr"), dir.file("image.csv"), "-q"}) == 2);
}

TEST_CASE("images: identical 0, one pixel changed 1, sizes differ 1, --min-psnr decides") {
    const TempDir dir("cli");
    const image::Image image = compare::testing::test_image(32, 16);
    image::Image changed = image;
    changed.channels[3][100] += 0.01f;   // one R pixel
    image::write_exr(dir.file("a.exr"), image);
    image::write_exr(dir.file("b.exr"), changed);
    image::write_exr(dir.file("small.exr"), compare::testing::test_image(16, 16));
    CHECK(run({dir.file("a.exr"), dir.file("a.exr"), "-q"}) == 0);
    CHECK(run({dir.file("a.exr"), dir.file("b.exr"), "-q"}) == 1);
    CHECK(run({dir.file("a.exr"), dir.file("b.exr"), "-q", "--tol", "R=0.011"}) == 0);
    CHECK(run({dir.file("a.exr"), dir.file("b.exr"), "-q", "--min-psnr", "60"}) == 0);
    CHECK(run({dir.file("a.exr"), dir.file("b.exr"), "-q", "--min-psnr", "80"}) == 1);
    CHECK(run({dir.file("a.exr"), dir.file("small.exr"), "-o", dir.file("report.txt")}) == 1);
    CHECK(read_text(dir.file("report.txt")).find("differs: size 32x16 in A, 16x16 in B") != std::string::npos);
}

TEST_CASE("particle files: shuffled ids are equal; a perturbation above tolerance differs") {
    const TempDir dir("cli");
    const fmt::Group fluid = fluid_group(2000);
    fmt::Group moved = shuffled(fluid, 11);
    write_frames(dir.file("a.pks"), {frame_of(0, 0.0, fluid), frame_of(5, 0.5, fluid)});
    write_frames(dir.file("b.pks"), {frame_of(0, 0.0, shuffled(fluid, 3)), frame_of(5, 0.5, moved)});
    CHECK(run({dir.file("a.pks"), dir.file("b.pks"), "-q"}) == 0);
    // Any encoding against any other: the same frames as HDF5/openPMD.
    write_frames(dir.file("a.h5"), {frame_of(0, 0.0, fluid), frame_of(5, 0.5, fluid)});
    CHECK(run({dir.file("a.h5"), dir.file("b.pks"), "-q"}) == 0);

    moved.at("density").values<float>()[row_of_id(moved, 1234)] += 0.5f;
    write_frames(dir.file("c.pks"), {frame_of(0, 0.0, fluid), frame_of(5, 0.5, moved)});
    CHECK(run({dir.file("a.pks"), dir.file("c.pks"), "-q"}) == 1);
    CHECK(run({dir.file("a.pks"), dir.file("c.pks"), "-q", "--tol", "density=0.51"}) == 0);
    CHECK(run({dir.file("a.pks"), dir.file("c.pks"), "--json", "-o", dir.file("r.json")}) == 1);
    CHECK(read_text(dir.file("r.json")).find("\"worst\":\"id 1234\"") != std::string::npos);

    // A frame missing on one side.
    write_frames(dir.file("short.pks"), {frame_of(0, 0.0, fluid)});
    CHECK(run({dir.file("a.pks"), dir.file("short.pks"), "-q"}) == 1);
    CHECK(run({dir.file("a.pks"), dir.file("short.pks"), "-q", "--subset"}) == 0);

    // A truncated file is trouble.
    const auto size = std::filesystem::file_size(dir.file("a.pks"));
    std::filesystem::copy_file(dir.file("a.pks"), dir.file("cut.pks"));
    std::filesystem::resize_file(dir.file("cut.pks"), size / 2);
    CHECK(run({dir.file("a.pks"), dir.file("cut.pks"), "-q"}) == 2);
}
