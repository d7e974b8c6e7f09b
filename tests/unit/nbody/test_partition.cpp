#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "nbody/partition.hpp"

using namespace partikel;
using namespace partikel::nbody;

namespace {

// Bodies per rank of `splitters` over `keys`, counted by owner_of_key.
std::vector<std::size_t> counts_by_owner(const std::vector<std::uint64_t>& keys, const std::vector<std::uint64_t>& splitters) {
    const auto ranks = std::uint32_t(splitters.size() - 1);
    std::vector<std::size_t> counts(ranks, 0);
    for (std::uint64_t k : keys) ++counts[owner_of_key(splitters.data(), ranks, k)];
    return counts;
}

// Cost of positions [a, b) along the curve under a per-body cost.
double cost_of(const std::vector<double>& per_body, std::size_t a, std::size_t b) {
    return std::accumulate(per_body.begin() + std::ptrdiff_t(a), per_body.begin() + std::ptrdiff_t(b), 0.0);
}

}  // namespace

TEST_CASE("nbody.partition: owner_of_key is the last splitter at or below the key") {
    const std::vector<std::uint64_t> s = {0, 10, 10, 20, kKeyEnd};  // rank 1 owns no key
    CHECK(owner_of_key(s.data(), 4, 0) == 0);
    CHECK(owner_of_key(s.data(), 4, 9) == 0);
    CHECK(owner_of_key(s.data(), 4, 10) == 2);
    CHECK(owner_of_key(s.data(), 4, 19) == 2);
    CHECK(owner_of_key(s.data(), 4, 20) == 3);
    CHECK(owner_of_key(s.data(), 4, kKeyEnd - 1) == 3);
    const std::vector<std::uint64_t> one = {0, kKeyEnd};
    CHECK(owner_of_key(one.data(), 1, 12345) == 0);
}

TEST_CASE("nbody.partition: equal_count_splitters splits distinct keys evenly, equal keys stay together") {
    std::mt19937_64 rng(3);
    std::vector<std::uint64_t> keys(10007);
    for (auto& k : keys) k = rng() >> 1;
    for (int ranks : {1, 2, 3, 4, 7}) {
        CAPTURE(ranks);
        const auto s = equal_count_splitters(keys, ranks);
        REQUIRE(s.size() == std::size_t(ranks) + 1);
        CHECK(s.front() == 0);
        CHECK(s.back() == kKeyEnd);
        CHECK(std::is_sorted(s.begin(), s.end()));
        for (std::size_t c : counts_by_owner(keys, s)) CHECK(c * std::size_t(ranks) >= keys.size() - std::size_t(ranks));
    }
    // 100 bodies on one key: the rank owning that key gets all of them.
    std::vector<std::uint64_t> clumped(100, 42);
    clumped.push_back(7);
    const auto s = equal_count_splitters(clumped, 4);
    const auto counts = counts_by_owner(clumped, s);
    CHECK(std::count(counts.begin(), counts.end(), std::size_t{100}) == 1);
    CHECK(std::accumulate(counts.begin(), counts.end(), std::size_t{0}) == clumped.size());
}

TEST_CASE("nbody.partition: balanced_split converges to equal cost under a nonuniform cost") {
    // 4 ranks over 100,000 bodies whose cost grows along the curve (a dense core at the end).
    const std::size_t n = 100000, ranks = 4;
    std::vector<double> per_body(n);
    for (std::size_t i = 0; i < n; ++i) per_body[i] = 1.0 + 20.0 * double(i) * double(i) / double(n * n);
    std::vector<std::size_t> first = {0, n / 4, n / 2, 3 * n / 4, n};
    double worst = 0.0;
    for (int step = 0; step < 12; ++step) {
        std::vector<double> t(ranks);
        for (std::size_t r = 0; r < ranks; ++r) t[r] = cost_of(per_body, first[r], first[r + 1]);
        worst = imbalance(t);
        first = balanced_split(first, t, 0.5, n);
        REQUIRE(first.front() == 0);
        REQUIRE(first.back() == n);
        REQUIRE(std::is_sorted(first.begin(), first.end()));
    }
    CHECK(worst < 1.01);  // from 2.1 at the equal-count split
    // Full steps (damping 1) from the same start: faster.
    first = {0, n / 4, n / 2, 3 * n / 4, n};
    for (int step = 0; step < 4; ++step) {
        std::vector<double> t(ranks);
        for (std::size_t r = 0; r < ranks; ++r) t[r] = cost_of(per_body, first[r], first[r + 1]);
        first = balanced_split(first, t, 1.0, n);
    }
    std::vector<double> t(ranks);
    for (std::size_t r = 0; r < ranks; ++r) t[r] = cost_of(per_body, first[r], first[r + 1]);
    CHECK(imbalance(t) < 1.01);
}

TEST_CASE("nbody.partition: balanced_split keeps every rank within [1, capacity] bodies") {
    const std::vector<std::size_t> first = {0, 10, 20, 30, 40};
    // Rank 0 is very slow: the ideal split would give it almost nothing and rank 3 far too much.
    const std::vector<double> t = {100.0, 1.0, 1.0, 1.0};
    const auto next = balanced_split(first, t, 1.0, 12);
    for (std::size_t r = 0; r < 4; ++r) {
        CAPTURE(r);
        CHECK(next[r + 1] > next[r]);
        CHECK(next[r + 1] - next[r] <= 12);
    }
    CHECK(next[1] - next[0] < 10);  // moved toward the ideal as far as the bounds allow
    // A time that is not positive or finite leaves the split as it is.
    CHECK(balanced_split(first, std::vector<double>{1.0, 0.0, 1.0, 1.0}, 1.0, 40) == first);
    CHECK(balanced_split(first, std::vector<double>{1.0, 1.0, std::nan(""), 1.0}, 1.0, 40) == first);
    CHECK(imbalance(t) == doctest::Approx(100.0 * 4 / 103.0));
    CHECK(imbalance(std::vector<double>{2.0}) == 1.0);
}
