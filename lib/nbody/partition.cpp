#include "nbody/partition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "base/error.hpp"

namespace partikel::nbody {

BoundingBox box_of(std::span<const Vec3d> positions) {
    const double inf = std::numeric_limits<double>::infinity();
    BoundingBox box{{inf, inf, inf}, {-inf, -inf, -inf}, 0u};
    for (const Vec3d& x : positions)
        for (int a = 0; a < 3; ++a) {
            box.lo[a] = std::min(box.lo[a], x[a]);
            box.hi[a] = std::max(box.hi[a], x[a]);
        }
    return box;
}

std::vector<std::uint64_t> curve_keys(std::span<const Vec3d> positions, const BoundingBox& box) {
    const RootCube cube = root_cube(box);
    std::vector<std::uint64_t> keys(positions.size());
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = morton_key(cube, positions[i]);
    return keys;
}

std::vector<std::uint32_t> curve_owners(std::span<const Vec3d> positions, int ranks) {
    const std::vector<std::uint64_t> keys = curve_keys(positions, box_of(positions));
    const std::vector<std::uint64_t> splitters = equal_count_splitters(keys, ranks);
    std::vector<std::uint32_t> owner(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) owner[i] = owner_of_key(splitters.data(), std::uint32_t(ranks), keys[i]);
    return owner;
}

std::vector<std::uint64_t> equal_count_splitters(std::span<const std::uint64_t> keys, int ranks) {
    if (ranks < 1) throw UsageError("nbody: a split over " + std::to_string(ranks) + " ranks");
    std::vector<std::uint64_t> sorted(keys.begin(), keys.end());
    std::vector<std::uint64_t> splitters(std::size_t(ranks) + 1, 0);
    splitters.back() = kKeyEnd;
    auto from = sorted.begin();
    for (int k = 1; k < ranks; ++k) {
        const std::size_t at = sorted.size() * std::size_t(k) / std::size_t(ranks);
        if (at >= sorted.size()) {
            splitters[std::size_t(k)] = kKeyEnd;
            continue;
        }
        // Positions grow with k, so each selection only needs the part after the last one.
        std::nth_element(from, sorted.begin() + std::ptrdiff_t(at), sorted.end());
        from = sorted.begin() + std::ptrdiff_t(at);
        splitters[std::size_t(k)] = *from;
    }
    return splitters;
}

std::vector<std::size_t> balanced_split(std::span<const std::size_t> first, std::span<const double> walk_seconds,
                                        double damping, std::size_t capacity) {
    const std::size_t ranks = walk_seconds.size();
    std::vector<std::size_t> next(first.begin(), first.end());
    if (first.size() != ranks + 1) throw UsageError("nbody: balanced_split needs ranks + 1 positions");
    const std::size_t n = first[ranks];
    if (ranks < 2 || capacity == 0 || n > ranks * capacity || n < ranks) return next;
    double total = 0.0;
    for (double t : walk_seconds) {
        if (!(t > 0.0) || !std::isfinite(t)) return next;
        total += t;
    }
    // The ideal cut k: where the cumulative cost reaches k/R of the total, the cost of rank r
    // spread evenly over its bodies [first[r], first[r+1]).
    std::vector<double> ideal(ranks + 1, 0.0);
    ideal[ranks] = double(n);
    std::size_t r = 0;
    double before = 0.0;  // cost of the ranks before r
    for (std::size_t k = 1; k < ranks; ++k) {
        const double target = total * double(k) / double(ranks);
        while (r + 1 < ranks && before + walk_seconds[r] < target) before += walk_seconds[r++];
        const double bodies = double(first[r + 1] - first[r]);
        const double within = std::clamp((target - before) / walk_seconds[r], 0.0, 1.0);
        ideal[k] = double(first[r]) + within * bodies;
    }
    // Damped, then held within [1, capacity] bodies per rank, cut by cut.
    for (std::size_t k = 1; k < ranks; ++k) {
        const double moved = double(first[k]) + damping * (ideal[k] - double(first[k]));
        const std::size_t left = ranks - k;  // ranks after the cut
        const std::size_t lo = std::max(next[k - 1] + 1, n > left * capacity ? n - left * capacity : std::size_t{0});
        const std::size_t hi = std::min(next[k - 1] + capacity, n - left);
        next[k] = std::clamp(static_cast<std::size_t>(std::llround(std::max(moved, 0.0))), lo, std::max(lo, hi));
    }
    return next;
}

double imbalance(std::span<const double> walk_seconds) {
    if (walk_seconds.size() < 2) return 1.0;
    double sum = 0.0, most = 0.0;
    for (double t : walk_seconds) {
        sum += t;
        most = std::max(most, t);
    }
    return sum > 0.0 ? most * double(walk_seconds.size()) / sum : 1.0;
}

}  // namespace partikel::nbody
