#include "dist/slabs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "base/error.hpp"
#include "base/log.hpp"

namespace partikel::dist {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

int SlabDecomposition::rank_of(double x) const {
    if (!(x == x)) return 0;
    // borders[1 .. ranks-1] are the inner borders; the first inner border above x is r + 1.
    const auto it = std::upper_bound(borders.begin() + 1, borders.end() - 1, x);
    return int(it - (borders.begin() + 1));
}

SlabDecomposition SlabDecomposition::whole(int axis) { return {axis, {-kInf, kInf}}; }

int slab_axis(std::array<double, 3> lo, std::array<double, 3> hi, std::array<bool, 3> periodic) {
    int best = -1;
    for (int k = 0; k < 3; ++k) {
        if (periodic[std::size_t(k)]) continue;
        if (best < 0 || hi[std::size_t(k)] - lo[std::size_t(k)] > hi[std::size_t(best)] - lo[std::size_t(best)]) best = k;
    }
    return best;
}

SlabDecomposition slabs_by_width(int axis, double lo, double hi, int ranks) {
    if (ranks < 1) throw UsageError("dist: " + std::to_string(ranks) + " ranks");
    SlabDecomposition s{axis, std::vector<double>(std::size_t(ranks) + 1)};
    s.borders.front() = -kInf;
    s.borders.back() = kInf;
    for (int r = 1; r < ranks; ++r) s.borders[std::size_t(r)] = lo + (hi - lo) * r / ranks;
    return s;
}

SlabDecomposition slabs_by_count(int axis, std::span<const float> coordinates, int ranks) {
    if (ranks < 1) throw UsageError("dist: " + std::to_string(ranks) + " ranks");
    SlabDecomposition s{axis, std::vector<double>(std::size_t(ranks) + 1)};
    s.borders.front() = -kInf;
    s.borders.back() = kInf;
    std::vector<float> x(coordinates.begin(), coordinates.end());
    const std::size_t n = x.size();
    for (int r = 1; r < ranks; ++r) {
        if (n == 0) {
            s.borders[std::size_t(r)] = 0.0;
            continue;
        }
        // The first particle of slab r is the k-th smallest; the border lies between it and the
        // one before, so that ties cannot land on both sides.
        const std::size_t k = std::min(n - 1, n * std::size_t(r) / std::size_t(ranks));
        std::nth_element(x.begin(), x.begin() + std::ptrdiff_t(k), x.end());
        const double above = x[k];
        const double below = k > 0 ? double(*std::max_element(x.begin(), x.begin() + std::ptrdiff_t(k))) : above;
        s.borders[std::size_t(r)] = below < above ? 0.5 * (below + above) : above;
    }
    for (int r = 2; r < ranks; ++r)
        s.borders[std::size_t(r)] = std::max(s.borders[std::size_t(r)], s.borders[std::size_t(r) - 1]);
    return s;
}

void check_slab_width(const SlabDecomposition& slabs, double lo, double hi, double min_width) {
    const int ranks = slabs.ranks();
    for (int r = 0; r < ranks; ++r) {
        const double a = r == 0 ? lo : slabs.borders[std::size_t(r)];
        const double b = r == ranks - 1 ? hi : slabs.borders[std::size_t(r) + 1];
        if (b - a < min_width)
            throw UsageError(std::to_string(ranks) + " ranks cut the domain along " + std::string(1, "xyz"[slabs.axis]) +
                             " into slabs as thin as " + format_g(b - a) + " m (rank " + std::to_string(r) +
                             "), thinner than the halo reach " + format_g(min_width) + " m: use fewer ranks");
    }
}

SlabDecomposition balance(const SlabDecomposition& now, const CostProfile& profile, const BalanceLimits& limits) {
    const int ranks = now.ranks();
    const std::size_t bins = profile.cost.size();
    if (ranks < 2 || bins == 0 || !(profile.hi > profile.lo)) return now;
    const double width = (profile.hi - profile.lo) / double(bins);
    std::vector<double> prefix(bins + 1, 0.0);
    for (std::size_t b = 0; b < bins; ++b) prefix[b + 1] = prefix[b] + std::max(0.0, profile.cost[b]);
    const double total = prefix.back();
    if (!(total > 0.0)) return now;
    // Where the cumulative cost reaches `target` (linear within a bin).
    auto position_of = [&](double target) {
        const auto it = std::lower_bound(prefix.begin() + 1, prefix.end(), target);
        const std::size_t b = std::size_t(it - prefix.begin()) - 1;
        const double in_bin = prefix[b + 1] - prefix[b];
        const double f = in_bin > 0.0 ? (target - prefix[b]) / in_bin : 0.5;
        return profile.lo + (double(b) + std::clamp(f, 0.0, 1.0)) * width;
    };
    // The count profile's prefix: particles below x (whole bins, split linearly within one),
    // and its inverse.
    const bool counted = profile.count.size() == bins;
    std::vector<double> counts(bins + 1, 0.0);
    if (counted)
        for (std::size_t b = 0; b < bins; ++b) counts[b + 1] = counts[b] + std::max(0.0, profile.count[b]);
    auto count_below = [&](double x) {
        const double u = std::clamp((x - profile.lo) / width, 0.0, double(bins));
        const std::size_t b = std::min(bins - 1, std::size_t(u));
        return counts[b] + (u - double(b)) * (counts[b + 1] - counts[b]);
    };
    auto position_of_count = [&](double target) {
        const auto it = std::lower_bound(counts.begin() + 1, counts.end(), target);
        const std::size_t b = std::min(bins - 1, std::size_t(it - counts.begin()) - 1);
        const double in_bin = counts[b + 1] - counts[b];
        const double f = in_bin > 0.0 ? (target - counts[b]) / in_bin : 0.0;
        return profile.lo + (double(b) + std::clamp(f, 0.0, 1.0)) * width;
    };
    SlabDecomposition next = now;
    for (int r = 1; r < ranks; ++r) {
        const double balanced = position_of(total * double(r) / double(ranks));
        const double old = now.borders[std::size_t(r)];
        double border = std::isfinite(old) ? old + limits.damping * (balanced - old) : balanced;
        if (std::isfinite(old) && counted && limits.max_crossing > 0.0) {
            const double at_old = count_below(old);
            if (std::abs(count_below(border) - at_old) > limits.max_crossing)
                border = position_of_count(border > old ? at_old + limits.max_crossing : at_old - limits.max_crossing);
        }
        next.borders[std::size_t(r)] = border;
    }
    // At least min_width apart, and from the ends: left to right, then right to left.
    const double w = limits.min_width;
    for (int r = 1; r < ranks; ++r) {
        const double floor = r == 1 ? profile.lo + w : next.borders[std::size_t(r) - 1] + w;
        next.borders[std::size_t(r)] = std::max(next.borders[std::size_t(r)], floor);
    }
    for (int r = ranks - 1; r >= 1; --r) {
        const double ceiling = r == ranks - 1 ? profile.hi - w : next.borders[std::size_t(r) + 1] - w;
        next.borders[std::size_t(r)] = std::min(next.borders[std::size_t(r)], ceiling);
    }
    for (int r = 1; r < ranks; ++r) {
        const double gap = next.borders[std::size_t(r)] - (r == 1 ? profile.lo : next.borders[std::size_t(r) - 1]);
        if (gap < w * (1.0 - 1e-9)) return now;  // the domain is too small for the widths: stay
    }
    // The predicted particles per slab (whole bins, split linearly at the borders).
    if (limits.max_particles > 0.0 && counted) {
        for (int r = 0; r < ranks; ++r) {
            const double a = r == 0 ? 0.0 : count_below(next.borders[std::size_t(r)]);
            const double b = r == ranks - 1 ? counts.back() : count_below(next.borders[std::size_t(r) + 1]);
            if (b - a > limits.max_particles) return now;
        }
    }
    return next;
}

}  // namespace partikel::dist
