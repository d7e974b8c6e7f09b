#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "base/error.hpp"
#include "base/io.hpp"

using namespace partikel;

namespace {
bool exists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
}
std::string temp_dir() {
    char tmpl[] = "/tmp/partikel-io-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    return tmpl;
}
}  // namespace

TEST_CASE("core.io output appears under its name only after commit") {
    std::string dir = temp_dir();
    std::string path = dir + "/out.bin";
    {
        auto out = OutputStream::open(path);
        out->write("hello", 5);
        out->flush();
        CHECK(!exists(path));
        out->commit();
        CHECK(out->position() == 5);
    }
    CHECK(exists(path));
    {
        auto out = OutputStream::open(dir + "/abandoned.bin");
        out->write("partial", 7);
        out->flush();
    }  // destroyed uncommitted: no file, no temporary left behind
    CHECK(!exists(dir + "/abandoned.bin"));
    CHECK(std::system(("test -z \"$(ls -A " + dir + " | grep -v '^out.bin$')\"").c_str()) == 0);
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("core.io input reads, peeks and reports truncation with the file name") {
    std::string dir = temp_dir();
    std::string path = dir + "/in.bin";
    std::ofstream(path) << "abcdef";
    auto in = InputStream::open(path);
    char buf[8] = {};
    CHECK(in->peek(buf, 3) == 3);
    CHECK(std::string(buf, 3) == "abc");
    CHECK(in->read_some(buf, 2) == 2);
    CHECK(std::string(buf, 2) == "ab");
    CHECK(in->is_regular_file());
    CHECK(in->size() == 6);
    try {
        in->read_exact(buf, 8, "frame header");
        FAIL("expected a FormatError");
    } catch (const FormatError& e) {
        CHECK(std::string(e.what()).find(path) != std::string::npos);
        CHECK(std::string(e.what()).find("frame header") != std::string::npos);
    }
    CHECK_THROWS_AS(InputStream::open(dir + "/missing"), IoError);
    CHECK_THROWS_AS(InputStream::open(dir), IoError);
    CHECK_THROWS_AS(OutputStream::open(dir + "/no/such/dir/x"), IoError);
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("core.io TempFile renames on commit and cleans up otherwise") {
    std::string dir = temp_dir();
    std::string tmp_path;
    {
        TempFile t(dir + "/a.h5");
        tmp_path = t.path();
        std::ofstream(t.path()) << "x";
        CHECK(exists(tmp_path));
    }
    CHECK(!exists(tmp_path));
    {
        TempFile t(dir + "/b.h5");
        std::ofstream(t.path()) << "x";
        t.commit();
    }
    CHECK(exists(dir + "/b.h5"));
    std::system(("rm -rf " + dir).c_str());
}
