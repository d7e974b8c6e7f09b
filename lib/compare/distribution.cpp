#include "compare/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <parallel/algorithm>

namespace partikel::compare {

namespace {

// Moves NaNs to the end, sorts the rest (in parallel: 10M values per column are common) and
// summarises it.
DistributionSummary summarise(std::vector<double>& values, std::span<const double> probabilities) {
    DistributionSummary summary;
    const auto nan_begin = std::partition(values.begin(), values.end(), [](double v) { return !std::isnan(v); });
    summary.nan_count = std::uint64_t(values.end() - nan_begin);
    values.erase(nan_begin, values.end());
    __gnu_parallel::sort(values.begin(), values.end());
    summary.count = values.size();
    if (values.empty()) return summary;
    summary.min = values.front();
    summary.max = values.back();
    // Two passes over sorted data: the mean first, then squared deviations, which keeps the
    // variance accurate when the mean is large against the spread (positions far from 0).
    double sum = 0.0;
    for (double v : values) sum += v;
    summary.mean = sum / double(values.size());
    double sum_sq = 0.0;
    for (double v : values) sum_sq += (v - summary.mean) * (v - summary.mean);
    summary.std = std::sqrt(sum_sq / double(values.size()));
    for (double p : probabilities) {
        const double position = p * double(values.size() - 1);
        const auto below = std::size_t(std::floor(position));
        const auto above = std::min(below + 1, values.size() - 1);
        const double fraction = position - double(below);
        summary.quantiles.push_back(fraction == 0.0 ? values[below]
                                                    : values[below] + fraction * (values[above] - values[below]));
    }
    return summary;
}

bool agree(double a, double b, const Tolerance& tolerance) {
    if (a == b) return true;
    return tolerance.accepts(std::fabs(a - b), std::max(std::fabs(a), std::fabs(b)));
}

}  // namespace

double ks_statistic(std::span<const double> sorted_a, std::span<const double> sorted_b) {
    if (sorted_a.empty() || sorted_b.empty()) return sorted_a.empty() && sorted_b.empty() ? 0.0 : 1.0;
    const double n_a = double(sorted_a.size()), n_b = double(sorted_b.size());
    std::size_t i = 0, j = 0;
    double d = 0.0;
    // Step both empirical CDFs past each distinct value, so ties never count as a jump.
    while (i < sorted_a.size() && j < sorted_b.size()) {
        const double x = std::min(sorted_a[i], sorted_b[j]);
        while (i < sorted_a.size() && sorted_a[i] == x) ++i;
        while (j < sorted_b.size() && sorted_b[j] == x) ++j;
        d = std::max(d, std::fabs(double(i) / n_a - double(j) / n_b));
    }
    return d;
}

double ks_p_value(double d, std::uint64_t n_a, std::uint64_t n_b) {
    if (n_a == 0 || n_b == 0) return d > 0.0 ? 0.0 : 1.0;
    const double n_effective = std::sqrt(double(n_a) * double(n_b) / double(n_a + n_b));
    const double lambda = (n_effective + 0.12 + 0.11 / n_effective) * d;
    if (lambda < 0.2) return 1.0;   // the series converges slowly there and Q is 1 to 1e-8
    double sum = 0.0, sign = 1.0;
    for (int k = 1; k <= 100; ++k) {
        const double term = sign * std::exp(-2.0 * k * k * lambda * lambda);
        sum += term;
        if (std::fabs(term) < 1e-16) break;
        sign = -sign;
    }
    return std::clamp(2.0 * sum, 0.0, 1.0);
}

double ks_critical_value(double alpha, std::uint64_t n_a, std::uint64_t n_b) {
    if (n_a == 0 || n_b == 0) return 0.0;
    const double c_alpha = std::sqrt(-0.5 * std::log(alpha / 2.0));
    return c_alpha * std::sqrt(double(n_a + n_b) / (double(n_a) * double(n_b)));
}

DistributionComparison compare_distributions(std::vector<double>& a, std::vector<double>& b, const Tolerance& tolerance,
                                             const DistributionOptions& options) {
    DistributionComparison result;
    result.a = summarise(a, options.probabilities);
    result.b = summarise(b, options.probabilities);
    result.probabilities = options.probabilities;
    result.nan_pass = options.nan_equal || (result.a.nan_count == 0 && result.b.nan_count == 0);
    result.ks_statistic = ks_statistic(a, b);
    result.ks_p_value = ks_p_value(result.ks_statistic, result.a.count, result.b.count);
    result.ks_threshold =
        options.ks_max ? *options.ks_max : ks_critical_value(options.ks_alpha, result.a.count, result.b.count);
    result.ks_pass = result.ks_statistic <= result.ks_threshold;
    result.moments_judged = !tolerance.is_exact();
    if (result.moments_judged) {
        bool pass = agree(result.a.mean, result.b.mean, tolerance) && agree(result.a.std, result.b.std, tolerance);
        for (std::size_t q = 0; q < result.a.quantiles.size() && q < result.b.quantiles.size(); ++q)
            pass = pass && agree(result.a.quantiles[q], result.b.quantiles[q], tolerance);
        result.moments_pass = pass;
    }
    return result;
}

}  // namespace partikel::compare
