// Pairing particles by id or index (lib/compare/match.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "compare/match.hpp"
#include "base/error.hpp"

using namespace partikel;
using namespace partikel::compare;

namespace {

// Every pair must carry equal ids, and every id present on both sides must be paired once.
void check_pairs(const RowMatch& match, const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
    std::vector<std::uint64_t> common;
    std::vector<std::uint64_t> sa = a, sb = b;
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    std::set_intersection(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(common));
    REQUIRE(match.count == common.size());
    for (std::uint64_t pair = 0; pair < match.count; ++pair) REQUIRE(a[match.row_a(pair)] == b[match.row_b(pair)]);
    CHECK(match.only_a == a.size() - common.size());
    CHECK(match.only_b == b.size() - common.size());
}

std::vector<std::uint64_t> shuffled_ids(std::vector<std::uint64_t> ids, std::uint64_t seed) {
    std::shuffle(ids.begin(), ids.end(), std::mt19937_64(seed));
    return ids;
}

}  // namespace

TEST_CASE("same ids in the same order pair without index arrays") {
    std::vector<std::uint64_t> ids(1000);
    std::iota(ids.begin(), ids.end(), 5);
    const RowMatch match = match_by_id(ids, ids);
    CHECK(match.identity);
    CHECK(match.count == 1000);
    CHECK(match.rows_a.empty());
}

TEST_CASE("shuffled dense ids pair through the direct table") {
    std::vector<std::uint64_t> a(10'000);
    std::iota(a.begin(), a.end(), 0);
    const auto b = shuffled_ids(a, 3);
    const auto a_shuffled = shuffled_ids(a, 4);
    const RowMatch match = match_by_id(a_shuffled, b);
    CHECK_FALSE(match.identity);
    check_pairs(match, a_shuffled, b);
    // Pairs follow A's row order.
    CHECK(std::is_sorted(match.rows_a.begin(), match.rows_a.end()));
}

TEST_CASE("sparse ids pair by sorting") {
    std::vector<std::uint64_t> a(5000);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = i * 1'000'003ull + (i % 7) * 0x100000000ull;
    const auto b = shuffled_ids(a, 9);
    check_pairs(match_by_id(a, b), a, b);
}

TEST_CASE("ids on one side only are counted with an example") {
    for (const std::uint64_t stride : {1ull, 1'000'000'007ull}) {   // dense and sorted paths
        CAPTURE(stride);
        std::vector<std::uint64_t> a, b;
        for (std::uint64_t i = 0; i < 100; ++i) a.push_back(i * stride);
        for (std::uint64_t i = 2; i < 103; ++i) b.push_back(i * stride);
        const RowMatch match = match_by_id(shuffled_ids(a, 1), b);
        CHECK(match.count == 98);
        CHECK(match.only_a == 2);
        CHECK(match.only_b == 3);
        REQUIRE(match.example_only_a);
        CHECK((*match.example_only_a == 0 || *match.example_only_a == stride));
        REQUIRE(match.example_only_b);
        CHECK(*match.example_only_b >= 100 * stride);
    }
}

TEST_CASE("duplicate ids are an error on either side") {
    for (const std::uint64_t stride : {1ull, 1'000'000'007ull}) {
        CAPTURE(stride);
        const std::vector<std::uint64_t> unique{0, stride, 2 * stride, 3 * stride};
        const std::vector<std::uint64_t> repeated{0, stride, stride, 3 * stride};
        const std::vector<std::uint64_t> reversed{3 * stride, 2 * stride, stride, 0};
        CHECK_THROWS_AS(match_by_id(reversed, repeated), FormatError);
        CHECK_THROWS_AS(match_by_id(repeated, reversed), FormatError);
        CHECK_THROWS_AS(match_by_id(repeated, repeated), FormatError);   // identical order too
        CHECK_THROWS_WITH_AS(match_by_id(repeated, unique, "run.pks"), doctest::Contains("run.pks: duplicate id"),
                             FormatError);
    }
}

TEST_CASE("signed ids keep distinct values") {
    fmt::Column column("id", fmt::ScalarType::i32, 1, 3);
    auto values = column.values<std::int32_t>();
    values[0] = -1;
    values[1] = 0;
    values[2] = 1;
    const auto ids = id_values(column);
    CHECK(ids[0] != ids[1]);
    CHECK(ids[0] != ids[2]);
    check_pairs(match_by_id(ids, std::vector<std::uint64_t>{ids[2], ids[0], ids[1]}), ids,
                std::vector<std::uint64_t>{ids[2], ids[0], ids[1]});

    const fmt::Column floats("id", fmt::ScalarType::f32, 1, 3);
    CHECK_THROWS_AS(id_values(floats), UsageError);
    const fmt::Column vectors("id", fmt::ScalarType::u64, 3, 3);
    CHECK_THROWS_AS(id_values(vectors), UsageError);
}

TEST_CASE("matching by index pairs the common prefix") {
    const RowMatch match = match_by_index(10, 7);
    CHECK(match.identity);
    CHECK(match.count == 7);
    CHECK(match.only_a == 3);
    CHECK(match.only_b == 0);
    CHECK(match.row_b(6) == 6);
}
