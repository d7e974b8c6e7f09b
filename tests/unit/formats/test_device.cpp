#include <doctest/doctest.h>

#include "formats/device.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::fmt;

namespace {

void round_trip(const Backend& backend) {
    Column position("position", ScalarType::f32, 3, 1000);
    auto p = records<Vec3f>(position);
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = {float(i), 0.5f * float(i), -float(i)};
    auto buffer = upload<Vec3f>(backend, position);
    CHECK(buffer.size() == 1000);
    Column back("position", ScalarType::f32, 3, 1000);
    download(buffer, back);
    CHECK(std::memcmp(back.raw().data(), position.raw().data(), position.bytes()) == 0);

    Column id("id", ScalarType::u64, 1, 10);
    records<std::uint64_t>(id)[9] = 99;
    DeviceBuffer<std::uint64_t> ids(backend, 20);  // larger than needed: reused across frames
    upload(id, ids);
    Column id_back("id", ScalarType::u64, 1, 10);
    download(ids, id_back);
    CHECK(records<std::uint64_t>(id_back)[9] == 99);

    CHECK_THROWS_AS(records<Vec3f>(id), UsageError);
    Column density("density", ScalarType::f32, 1, 4);
    CHECK_THROWS_AS(records<Vec3f>(density), UsageError);
    CHECK(records<float>(position).size() == 3000);
}

}  // namespace

PK_BACKEND_TEST("columns move to and from backend buffers", round_trip)
