// Statistical comparison (--stats): for chaotic runs, where particles do not agree one by one
// but their distributions should, compare per column component the mean, standard deviation
// and chosen quantiles, and the two-sample Kolmogorov-Smirnov statistic
// D = sup_x |F_a(x) - F_b(x)| of the empirical distribution functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "compare/tolerance.hpp"

namespace partikel::compare {

struct DistributionOptions {
    std::vector<double> probabilities{0.01, 0.1, 0.5, 0.9, 0.99};   // quantiles, each in [0, 1]
    double ks_alpha = 1e-3;                                         // significance of the KS test
    std::optional<double> ks_max;                                   // a fixed bound on D instead of the alpha test
    bool nan_equal = false;   // drop NaNs on both sides instead of failing on them
};

struct DistributionSummary {
    std::uint64_t count = 0;   // finite-or-infinite values (NaNs excluded)
    std::uint64_t nan_count = 0;
    double mean = 0.0;
    double std = 0.0;   // population standard deviation
    double min = 0.0;
    double max = 0.0;
    std::vector<double> quantiles;   // one per probability (linear interpolation, type 7)
};

struct DistributionComparison {
    DistributionSummary a, b;
    std::vector<double> probabilities;   // of the quantiles in a and b
    double ks_statistic = 0.0;
    double ks_p_value = 1.0;     // asymptotic Kolmogorov distribution
    double ks_threshold = 0.0;   // D above this is a difference
    bool ks_pass = true;
    bool moments_judged = false;   // only against a non-zero tolerance
    bool moments_pass = true;
    bool nan_pass = true;
    bool pass() const { return ks_pass && moments_pass && nan_pass; }
};

// Sorts both vectors in place. Mean, standard deviation and quantiles are held to `tolerance`
// when it is not exact (a zero tolerance would fail every chaotic run on round-off).
DistributionComparison compare_distributions(std::vector<double>& a, std::vector<double>& b, const Tolerance& tolerance,
                                             const DistributionOptions& options);

// D of two sorted samples without NaNs.
double ks_statistic(std::span<const double> sorted_a, std::span<const double> sorted_b);
// P(D >= d) under the null hypothesis, asymptotic with Stephens' small-sample correction.
double ks_p_value(double d, std::uint64_t n_a, std::uint64_t n_b);
// The D that rejects at significance alpha: c(alpha) sqrt((n_a + n_b) / (n_a n_b)).
double ks_critical_value(double alpha, std::uint64_t n_a, std::uint64_t n_b);

}  // namespace partikel::compare
