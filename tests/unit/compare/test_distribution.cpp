// Statistical comparison (lib/compare/distribution.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "compare/distribution.hpp"

using namespace partikel::compare;

namespace {

std::vector<double> normal_sample(std::size_t n, double mean, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(mean, 1.0);
    std::vector<double> values(n);
    for (double& v : values) v = normal(rng);
    return values;
}

}  // namespace

TEST_CASE("KS statistic of small samples") {
    const std::vector<double> a{1, 2, 3}, b{4, 5, 6}, c{1, 2, 3, 4}, d{3, 4, 5, 6};
    CHECK(ks_statistic(a, a) == 0.0);
    CHECK(ks_statistic(a, b) == 1.0);
    CHECK(ks_statistic(c, d) == doctest::Approx(0.5));
    // Ties step both distribution functions together: after 1, F_a = 2/3 and F_b = 1/3.
    const std::vector<double> e{1, 1, 2}, f{1, 2, 2};
    CHECK(ks_statistic(e, f) == doctest::Approx(1.0 / 3.0));
    CHECK(ks_statistic(e, f) == ks_statistic(f, e));
}

TEST_CASE("KS p-value and critical value agree with the Kolmogorov distribution") {
    CHECK(ks_p_value(0.0, 100, 100) == 1.0);
    // Q_KS(1.358) = 0.05: the classic 5 % critical value, for large samples.
    const std::uint64_t n = 1'000'000;
    const double d_crit = ks_critical_value(0.05, n, n);
    CHECK(d_crit == doctest::Approx(1.3581 * std::sqrt(2.0 / double(n))).epsilon(1e-3));
    CHECK(ks_p_value(d_crit, n, n) == doctest::Approx(0.05).epsilon(0.02));
    CHECK(ks_p_value(2.0 * d_crit, n, n) < 1e-6);
    CHECK(ks_p_value(1.0 / std::sqrt(double(n) / 2.0), n, n) == doctest::Approx(0.2700).epsilon(0.01));   // Q(1)
}

TEST_CASE("summary: mean, std and type-7 quantiles") {
    std::vector<double> a(101), b(101);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = b[i] = double(100 - i);
    DistributionOptions options;
    options.probabilities = {0.0, 0.1, 0.5, 0.995, 1.0};
    const DistributionComparison result = compare_distributions(a, b, Tolerance{}, options);
    CHECK(result.a.count == 101);
    CHECK(result.a.mean == doctest::Approx(50.0));
    CHECK(result.a.std == doctest::Approx(std::sqrt(850.0)));   // population std of 0..100
    REQUIRE(result.a.quantiles.size() == 5);
    CHECK(result.a.quantiles[0] == 0.0);
    CHECK(result.a.quantiles[1] == doctest::Approx(10.0));
    CHECK(result.a.quantiles[2] == doctest::Approx(50.0));
    CHECK(result.a.quantiles[3] == doctest::Approx(99.5));
    CHECK(result.a.quantiles[4] == 100.0);
    CHECK(result.pass());
    CHECK_FALSE(result.moments_judged);
}

TEST_CASE("two samples of one distribution pass, a shift of 0.05 sigma fails") {
    const std::size_t n = 100'000;
    std::vector<double> a = normal_sample(n, 0.0, 1), same = normal_sample(n, 0.0, 2);
    const DistributionComparison equal = compare_distributions(a, same, Tolerance{}, DistributionOptions{});
    CHECK(equal.ks_pass);
    CHECK(equal.pass());

    std::vector<double> b = normal_sample(n, 0.0, 1), shifted = normal_sample(n, 0.05, 2);
    const DistributionComparison different = compare_distributions(b, shifted, Tolerance{}, DistributionOptions{});
    CHECK(different.ks_statistic > different.ks_threshold);
    CHECK(different.ks_p_value < 1e-3);
    CHECK_FALSE(different.pass());
}

TEST_CASE("moments are judged only against a non-zero tolerance") {
    std::vector<double> a{1, 2, 3, 4}, b{1, 2, 3, 4.4};
    DistributionOptions options;
    options.ks_max = 1.0;   // isolate the moment test
    CHECK(compare_distributions(a, b, Tolerance{}, options).pass());
    a = {1, 2, 3, 4};
    b = {1, 2, 3, 4.4};
    const DistributionComparison tight = compare_distributions(a, b, Tolerance{0.05, 0.0}, options);
    CHECK(tight.moments_judged);
    CHECK_FALSE(tight.moments_pass);
    a = {1, 2, 3, 4};
    b = {1, 2, 3, 4.4};
    CHECK(compare_distributions(a, b, Tolerance{0.5, 0.0}, options).pass());
}

TEST_CASE("NaNs fail a distribution unless nan_equal drops them") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> a{1, 2, nan}, b{1, 2, 3};
    const DistributionComparison strict = compare_distributions(a, b, Tolerance{}, DistributionOptions{});
    CHECK(strict.a.nan_count == 1);
    CHECK(strict.a.count == 2);
    CHECK_FALSE(strict.nan_pass);
    a = {1, 2, nan};
    b = {1, 2, nan};
    DistributionOptions lenient;
    lenient.nan_equal = true;
    CHECK(compare_distributions(a, b, Tolerance{}, lenient).pass());
}

TEST_CASE("an empty side against a non-empty one differs") {
    std::vector<double> a, b{1.0};
    CHECK_FALSE(compare_distributions(a, b, Tolerance{}, DistributionOptions{}).pass());
    std::vector<double> c, d;
    CHECK(compare_distributions(c, d, Tolerance{}, DistributionOptions{}).pass());
}
