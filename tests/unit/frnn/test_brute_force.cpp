// The oracle itself: brute_force_neighbors on a hand-made case, and first_difference, which
// `frnn-build --check` relies on to fail loudly, on every kind of difference.
#include <doctest/doctest.h>

#include <vector>

#include "frnn/brute_force.hpp"

using namespace partikel;
using namespace partikel::frnn;

TEST_CASE("frnn.oracle: brute force on a line, open and periodic") {
    // x = 0, 1, 2, 3.5 and r = 1: pairs at exactly r are neighbours.
    const std::vector<Vec3f> p = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3.5f, 0, 0}};
    Box open;
    const auto a = brute_force_neighbors(p, open, 1.0f);
    REQUIRE(a.rows() == 4);
    CHECK(std::vector<std::uint32_t>(a.row(0).begin(), a.row(0).end()) == std::vector<std::uint32_t>{0, 1});
    CHECK(std::vector<std::uint32_t>(a.row(1).begin(), a.row(1).end()) == std::vector<std::uint32_t>{0, 1, 2});
    CHECK(std::vector<std::uint32_t>(a.row(3).begin(), a.row(3).end()) == std::vector<std::uint32_t>{3});
    // Periodic in x with L = 4: 3.5 and 0 are 0.5 apart through the boundary.
    Box periodic;
    periodic.length = {4, 1, 1};
    periodic.inv_length = {0.25f, 1, 1};
    periodic.periodic_mask = 1;
    const auto b = brute_force_neighbors(p, periodic, 1.0f);
    CHECK(std::vector<std::uint32_t>(b.row(3).begin(), b.row(3).end()) == std::vector<std::uint32_t>{0, 3});
    // A sample of queries gives rows for those particles only.
    const std::vector<std::uint32_t> q = {2};
    const auto c = brute_force_neighbors(p, open, 1.0f, q);
    REQUIRE(c.rows() == 1);
    CHECK(c.row(0).size() == 2);
}

TEST_CASE("frnn.oracle: first_difference names every kind of difference") {
    HostNeighborLists expected;
    expected.offsets = {0, 2, 4};
    expected.indices = {0, 1, 0, 1};
    HostNeighborLists same = expected;
    same.indices = {1, 0, 1, 0};  // order inside a row does not matter
    CHECK_FALSE(first_difference(expected, same));

    HostNeighborLists missing = expected;
    missing.offsets = {0, 2, 3};
    missing.indices = {0, 1, 1};
    auto d = first_difference(expected, missing);
    REQUIRE(d);
    CHECK(d->find("particle 1") != std::string::npos);
    CHECK(d->find("missing 0") != std::string::npos);

    HostNeighborLists extra = expected;
    extra.offsets = {0, 3, 5};
    extra.indices = {0, 1, 7, 0, 1};
    d = first_difference(expected, extra);
    REQUIRE(d);
    CHECK(d->find("unexpected 7") != std::string::npos);

    HostNeighborLists twice = expected;
    twice.offsets = {0, 2, 4};
    twice.indices = {0, 0, 0, 1};
    d = first_difference(expected, twice);
    REQUIRE(d);
    CHECK(d->find("listed twice") != std::string::npos);

    // Rows of a sample compare with those particles' rows.
    HostNeighborLists one;
    one.offsets = {0, 2};
    one.indices = {1, 0};
    const std::vector<std::uint32_t> q = {1};
    CHECK_FALSE(first_difference(one, expected, q));
    const std::vector<std::uint32_t> q5 = {5};
    CHECK(first_difference(one, expected, q5));
}
