// Files written by format version 1.0 must stay readable, bit for bit (golden/v1/README.md).
#include <doctest/doctest.h>

#include "formats/reader.hpp"
#include "sample_frames.hpp"

using namespace partikel;
using namespace partikel::fmt;

namespace {

const std::string golden = std::string(PARTIKEL_FORMATS_TEST_DIR) + "/golden/v1/";

Frame read_one(const std::string& path) {
    auto reader = open_reader(path);
    auto frame = reader->next();
    REQUIRE(frame);
    CHECK_FALSE(reader->next());
    return std::move(*frame);
}

}  // namespace

TEST_CASE("golden v1 stream and HDF5 files decode to the values they were made from") {
    const Frame expected = read_one(golden + "sample.csv");
    REQUIRE(expected.group("fluid").count() == 3);
    CHECK(test::difference(read_one(golden + "sample.pks"), expected) == "");
    CHECK(test::difference(read_one(golden + "sample.h5"), expected) == "");
}
