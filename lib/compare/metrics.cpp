#include "compare/metrics.hpp"

namespace partikel::compare {

void DifferenceStats::merge(const DifferenceStats& later) {
    compared += later.compared;
    beyond += later.beyond;
    nan_mismatch += later.nan_mismatch;
    max_abs = std::max(max_abs, later.max_abs);
    max_rel = std::max(max_rel, later.max_rel);
    sum_abs += later.sum_abs;
    sum_sq_diff += later.sum_sq_diff;
    sum_sq_a += later.sum_sq_a;
    sum_sq_b += later.sum_sq_b;
    // Strictly greater: on ties the earlier row stays the worst, as within one chunk.
    if (later.worst_badness > worst_badness) {
        worst_badness = later.worst_badness;
        worst_row = later.worst_row;
    }
}

double DifferenceStats::rel_l2() const {
    const double norm = std::sqrt(std::max(sum_sq_a, sum_sq_b));
    const double diff = std::sqrt(sum_sq_diff);
    if (diff == 0.0) return 0.0;
    return norm > 0.0 ? diff / norm : std::numeric_limits<double>::infinity();
}

}  // namespace partikel::compare
