// Element-wise difference metrics of two equally shaped arrays (one row = one particle, table
// row or pixel; a row has one or more components).
//
// Per row the difference is |a - b| for scalars and the Euclidean norm of a - b for vectors,
// the magnitude is max(|a|, |b|) (norms for vectors). NaN on either side is a mismatch unless
// both are NaN and nan_equal is set; equal infinities agree, any other infinity differs by
// inf. Rows run in fixed chunks on OpenMP threads and partial results merge in chunk order,
// so the numbers do not depend on the thread count.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "compare/tolerance.hpp"

namespace partikel::compare {

struct ElementOptions {
    bool nan_equal = false;     // NaN == NaN (NaN against a number still differs)
    double rel_floor = 1e-12;   // relative difference = diff / max(magnitude, rel_floor)
};

struct DifferenceStats {
    std::uint64_t compared = 0;       // rows compared
    std::uint64_t beyond = 0;         // rows outside tolerance, NaN mismatches included
    std::uint64_t nan_mismatch = 0;   // rows with a NaN that nan_equal does not excuse
    double max_abs = 0.0;             // largest difference over rows without NaN mismatch
    double max_rel = 0.0;
    double sum_abs = 0.0;
    double sum_sq_diff = 0.0;
    double sum_sq_a = 0.0;   // squared norms of the finite values, for relative L2
    double sum_sq_b = 0.0;
    // The worst row: a NaN mismatch if any, else the largest non-zero difference (first one
    // on ties); none while every row agrees exactly.
    std::uint64_t worst_row = 0;
    double worst_badness = 0.0;

    void add_row(const double* a, const double* b, std::uint32_t components, std::uint64_t row,
                 const Tolerance& tolerance, const ElementOptions& options);
    // A row whose difference the caller took exactly: 64-bit integers beyond 2^53, where a and
    // b as doubles may be equal although the integers are not. `difference` is the norm of the
    // exact component differences, `a` and `b` the norms of the rows.
    void add_exact(double difference, double a, double b, std::uint64_t row, const Tolerance& tolerance,
                   const ElementOptions& options);
    // Combine with the rows of a later chunk.
    void merge(const DifferenceStats& later);

    bool has_worst() const { return worst_badness > 0.0; }
    double mean_abs() const { return compared > nan_mismatch ? sum_abs / double(compared - nan_mismatch) : 0.0; }
    double rms() const {
        return compared > nan_mismatch ? std::sqrt(sum_sq_diff / double(compared - nan_mismatch)) : 0.0;
    }
    // ||a - b|| / max(||a||, ||b||); 0 when a equals b.
    double rel_l2() const;

private:
    void record(double diff, double diff_sq, double a_sq, double b_sq, std::uint64_t row, const Tolerance& tolerance,
                const ElementOptions& options);
};

inline void DifferenceStats::add_row(const double* a, const double* b, std::uint32_t components, std::uint64_t row,
                                     const Tolerance& tolerance, const ElementOptions& options) {
    double diff_sq = 0.0, a_sq = 0.0, b_sq = 0.0, last_abs_diff = 0.0;
    bool nan_mismatch_here = false;
    for (std::uint32_t k = 0; k < components; ++k) {
        const double ak = a[k], bk = b[k];
        if (std::isnan(ak) || std::isnan(bk)) {
            if (!(options.nan_equal && std::isnan(ak) && std::isnan(bk))) nan_mismatch_here = true;
            continue;
        }
        if (std::isfinite(ak)) a_sq += ak * ak;
        if (std::isfinite(bk)) b_sq += bk * bk;
        if (ak != bk) {   // equal infinities give no difference
            last_abs_diff = std::fabs(ak - bk);
            diff_sq += (ak - bk) * (ak - bk);
        }
    }
    ++compared;
    if (nan_mismatch_here) {
        ++nan_mismatch;
        ++beyond;
        if (worst_badness < std::numeric_limits<double>::infinity()) {
            worst_badness = std::numeric_limits<double>::infinity();
            worst_row = row;
        }
        return;
    }
    // A scalar's difference is taken exactly, so tolerance tests at the boundary are not
    // blurred by a square root.
    record(components == 1 ? last_abs_diff : std::sqrt(diff_sq), diff_sq, a_sq, b_sq, row, tolerance, options);
}

inline void DifferenceStats::add_exact(double difference, double a, double b, std::uint64_t row,
                                       const Tolerance& tolerance, const ElementOptions& options) {
    ++compared;
    record(difference, difference * difference, a * a, b * b, row, tolerance, options);
}

inline void DifferenceStats::record(double diff, double diff_sq, double a_sq, double b_sq, std::uint64_t row,
                                    const Tolerance& tolerance, const ElementOptions& options) {
    const double magnitude = std::sqrt(std::max(a_sq, b_sq));
    sum_abs += diff;
    sum_sq_diff += diff_sq;
    sum_sq_a += a_sq;
    sum_sq_b += b_sq;
    max_abs = std::max(max_abs, diff);
    max_rel = std::max(max_rel, diff / std::max(magnitude, options.rel_floor));
    if (!tolerance.accepts(diff, magnitude)) ++beyond;
    if (diff > worst_badness) {
        worst_badness = diff;
        worst_row = row;
    }
}

// Runs add_rows(stats, begin, end) over fixed chunks of [0, rows) on all OpenMP threads.
template <class AddRows>
DifferenceStats accumulate_rows(std::uint64_t rows, const AddRows& add_rows) {
    constexpr std::uint64_t chunk_rows = 1 << 16;
    const std::int64_t chunks = std::int64_t((rows + chunk_rows - 1) / chunk_rows);
    std::vector<DifferenceStats> partial(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
        const std::uint64_t begin = std::uint64_t(chunk) * chunk_rows;
        add_rows(partial[std::size_t(chunk)], begin, std::min(rows, begin + chunk_rows));
    }
    DifferenceStats total;
    for (const DifferenceStats& stats : partial) total.merge(stats);
    return total;
}

// Compare `rows` rows of `components` values; load_a(row, out) and load_b(row, out) write one
// row's components as doubles.
template <class LoadA, class LoadB>
DifferenceStats compare_rows(std::uint64_t rows, std::uint32_t components, const LoadA& load_a, const LoadB& load_b,
                             const Tolerance& tolerance, const ElementOptions& options) {
    return accumulate_rows(rows, [&](DifferenceStats& stats, std::uint64_t begin, std::uint64_t end) {
        std::vector<double> a(components), b(components);
        for (std::uint64_t row = begin; row < end; ++row) {
            load_a(row, a.data());
            load_b(row, b.data());
            stats.add_row(a.data(), b.data(), components, row, tolerance, options);
        }
    });
}

}  // namespace partikel::compare
