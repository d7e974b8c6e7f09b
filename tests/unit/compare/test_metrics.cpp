// Element-wise metrics and tolerances (lib/compare/metrics.hpp, tolerance.hpp).
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <vector>

#include "compare/metrics.hpp"
#include "compare/tolerance.hpp"
#include "base/error.hpp"

using namespace partikel;
using namespace partikel::compare;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

DifferenceStats compare_vectors(const std::vector<double>& a, const std::vector<double>& b, std::uint32_t components,
                                Tolerance tolerance = {}, ElementOptions options = {}) {
    return compare_rows(
        a.size() / components, components,
        [&](std::uint64_t row, double* out) { std::copy_n(a.data() + row * components, components, out); },
        [&](std::uint64_t row, double* out) { std::copy_n(b.data() + row * components, components, out); }, tolerance,
        options);
}

}  // namespace

TEST_CASE("identical arrays have no difference") {
    const std::vector<double> a{1.0, -2.5, 3e30, 0.0};
    const DifferenceStats stats = compare_vectors(a, a, 1);
    CHECK(stats.compared == 4);
    CHECK(stats.beyond == 0);
    CHECK(stats.max_abs == 0.0);
    CHECK(stats.max_rel == 0.0);
    CHECK(stats.rms() == 0.0);
    CHECK(stats.rel_l2() == 0.0);
}

TEST_CASE("a perturbation just below the tolerance passes, just above fails") {
    const Tolerance absolute{1e-3, 0.0};
    CHECK(compare_vectors({1.0}, {1.0 + 0.9e-3}, 1, absolute).beyond == 0);
    CHECK(compare_vectors({1.0}, {1.0 + 1.1e-3}, 1, absolute).beyond == 1);
    // Relative to the larger magnitude: 1000.9 - 1000 = 0.9 <= 1e-3 * 1000.9.
    const Tolerance relative{0.0, 1e-3};
    CHECK(compare_vectors({1000.0}, {1000.9}, 1, relative).beyond == 0);
    CHECK(compare_vectors({1000.0}, {1001.1}, 1, relative).beyond == 1);
    // Symmetric: swapping the sides gives the same answer.
    CHECK(compare_vectors({1001.1}, {1000.0}, 1, relative).beyond == 1);
    // Both terms add up (numpy's isclose form).
    CHECK(compare_vectors({100.0}, {100.15}, 1, Tolerance{0.1, 1e-3}).beyond == 0);
    CHECK(compare_vectors({100.0}, {100.25}, 1, Tolerance{0.1, 1e-3}).beyond == 1);
}

TEST_CASE("vector rows compare by the norm of the difference") {
    const DifferenceStats stats =
        compare_vectors({3.0, 4.0, 0.0, 1.0, 1.0, 1.0}, {0.0, 0.0, 0.0, 1.0, 1.0, 1.0}, 3, Tolerance{4.9, 0.0});
    CHECK(stats.compared == 2);
    CHECK(stats.max_abs == doctest::Approx(5.0));
    CHECK(stats.beyond == 1);
    CHECK(stats.worst_row == 0);
    // Relative to the norm of the larger vector: |(3,4,0)| = 5.
    CHECK(stats.max_rel == doctest::Approx(1.0));
    CHECK(compare_vectors({3.0, 4.0, 0.0}, {0.0, 0.0, 0.0}, 3, Tolerance{5.0, 0.0}).beyond == 0);
}

TEST_CASE("rms, relative L2 and the worst row") {
    const DifferenceStats stats = compare_vectors({1.0, 2.0, 5.0}, {1.0, 4.0, 4.5}, 1);
    CHECK(stats.max_abs == 2.0);
    CHECK(stats.worst_row == 1);
    CHECK(stats.rms() == doctest::Approx(std::sqrt((4.0 + 0.25) / 3.0)));
    CHECK(stats.mean_abs() == doctest::Approx(2.5 / 3.0));
    CHECK(stats.rel_l2() == doctest::Approx(std::sqrt(4.25) / std::sqrt(1.0 + 16.0 + 20.25)));
    CHECK(stats.max_rel == doctest::Approx(0.5));
    CHECK(stats.beyond == 2);
}

TEST_CASE("the relative floor keeps max_rel finite near zero") {
    const DifferenceStats stats = compare_vectors({0.0}, {1e-20}, 1, {}, ElementOptions{false, 1e-12});
    CHECK(stats.max_rel == doctest::Approx(1e-8));
}

TEST_CASE("NaN differs unless both sides are NaN and nan_equal is set") {
    const std::vector<double> a{1.0, kNaN, 3.0};
    const std::vector<double> b{1.0, kNaN, 3.0};
    const DifferenceStats strict = compare_vectors(a, b, 1);
    CHECK(strict.nan_mismatch == 1);
    CHECK(strict.beyond == 1);
    CHECK(strict.worst_row == 1);
    CHECK(std::isfinite(strict.rms()));

    const DifferenceStats lenient = compare_vectors(a, b, 1, {}, ElementOptions{true, 1e-12});
    CHECK(lenient.beyond == 0);
    CHECK(lenient.nan_mismatch == 0);

    // NaN against a number differs even with nan_equal, also inside a vector.
    const DifferenceStats one_sided =
        compare_vectors({1.0, kNaN, 3.0}, {1.0, 2.0, 3.0}, 3, Tolerance{1.0, 1.0}, ElementOptions{true, 1e-12});
    CHECK(one_sided.nan_mismatch == 1);
    CHECK(one_sided.beyond == 1);
}

TEST_CASE("equal infinities agree, others differ by inf") {
    CHECK(compare_vectors({kInf, -kInf}, {kInf, -kInf}, 1).beyond == 0);
    const DifferenceStats stats = compare_vectors({kInf}, {1.0}, 1, Tolerance{1e30, 1.0});
    CHECK(stats.beyond == 1);
    CHECK(stats.max_abs == kInf);
}

TEST_CASE("results do not depend on the number of threads") {
    std::vector<double> a(300'001), b(300'001);
    for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = std::sin(double(i)) * 1e3;
        b[i] = a[i] + 1e-6 * std::cos(double(i) * 0.37);
    }
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const DifferenceStats serial = compare_vectors(a, b, 1, Tolerance{0.0, 1e-9});
    omp_set_num_threads(std::max(2, threads));
    const DifferenceStats parallel = compare_vectors(a, b, 1, Tolerance{0.0, 1e-9});
    omp_set_num_threads(threads);
    CHECK(serial.sum_sq_diff == parallel.sum_sq_diff);   // bitwise: the chunking is fixed
    CHECK(serial.worst_row == parallel.worst_row);
    CHECK(serial.beyond == parallel.beyond);
    CHECK(serial.beyond > 0);
}

TEST_CASE("tolerance specs and lookup precedence") {
    ToleranceTable table;
    table.global = {1e-9, 1e-6};
    table.add_spec("density=1e-3:1e-5");
    table.add_spec("pressure=:1e-4");
    table.add_spec("mass=2e-7");
    table.add_spec("boundary/density=5:0");
    CHECK(table.lookup("density").atol == 1e-3);
    CHECK(table.lookup("density").rtol == 1e-5);
    CHECK(table.lookup("density", "fluid").atol == 1e-3);
    CHECK(table.lookup("density", "boundary").atol == 5.0);
    CHECK(table.lookup("pressure").atol == 0.0);
    CHECK(table.lookup("pressure").rtol == 1e-4);
    CHECK(table.lookup("mass").atol == 2e-7);
    CHECK(table.lookup("mass").rtol == 0.0);
    CHECK(table.lookup("velocity").atol == 1e-9);

    for (const char* bad :
         {"density", "=1:2", "density=", "density=x:1", "density=-1", "density=1:2:3", "density=:", "density=inf"})
        CHECK_THROWS_AS(table.add_spec(bad), UsageError);
}
