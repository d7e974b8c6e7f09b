// Where each key's run lies in sorted keys: the step after every sort by key (cells of a grid,
// tiles of an image, cells of a charge grid, ranks of a decomposition). For keys sorted in
// ascending order,
//
//   key_starts(exec, sorted, n, key_count, start)     start[k] = first i with sorted[i] >= k,
//                                                     for k = 0 .. key_count
//
// so key k's rows are [start[k], start[k + 1]) (empty when equal) and start[key_count] counts
// the keys below key_count; larger keys (lost particles, off-screen splats) sort after them and
// belong to no range. bound_starts does the same for arbitrary ascending bounds (a
// decomposition's splitters): start[j] = first i with sorted[i] >= bounds[j].
//
// One binary search per key (log2 n loads), independent of n: cheaper than a pass over the
// sorted keys when keys are fewer than rows, and no zeroing is needed first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/hd.hpp"

namespace partikel {

// The first index i in [0, n) with sorted[i] >= key, n when none (std::lower_bound).
template <class Key> PK_DEVICE_INLINE std::uint32_t lower_bound_index(const Key* sorted, std::uint32_t n, Key key) {
    std::uint32_t lo = 0, hi = n;
    while (lo < hi) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

namespace kernels {

template <class Key> struct KeyStarts {
    const Key* sorted;
    std::uint32_t n;
    std::uint32_t* start;
    PK_HD void operator()(std::size_t k) const { start[k] = lower_bound_index(sorted, n, static_cast<Key>(k)); }
};

template <class Key> struct BoundStarts {
    const Key* sorted;
    std::uint32_t n;
    const Key* bounds;
    std::uint32_t* start;
    PK_HD void operator()(std::size_t j) const { start[j] = lower_bound_index(sorted, n, bounds[j]); }
};

}  // namespace kernels

// start[k] for k = 0 .. key_count (key_count + 1 entries, backend memory), n < 2^32.
template <class Exec, class Key>
void key_starts(const Exec& exec, const Key* sorted, std::size_t n, std::size_t key_count, std::uint32_t* start,
                const char* label = "key_starts") {
    exec.for_each(key_count + 1, kernels::KeyStarts<Key>{sorted, static_cast<std::uint32_t>(n), start}, label);
}

// start[j] = lower_bound_index(sorted, n, bounds[j]) for j < bound_count (backend memory).
template <class Exec, class Key>
void bound_starts(const Exec& exec, const Key* sorted, std::size_t n, const Key* bounds, std::size_t bound_count,
                  std::uint32_t* start, const char* label = "bound_starts") {
    exec.for_each(bound_count, kernels::BoundStarts<Key>{sorted, static_cast<std::uint32_t>(n), bounds, start}, label);
}

}  // namespace partikel
