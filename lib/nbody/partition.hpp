// How the bodies are split across ranks (docs/NBODY.md, "Across GPUs"): by ranges of the
// tree's Morton order. Rank r owns the bodies whose key lies in [splitters[r], splitters[r+1]),
// splitters[0] = 0 and splitters[R] = kKeyEnd, so that the ranks' bodies, each rank's sorted
// by key and laid end to end in rank order, are the bodies of all ranks sorted by key: the
// order one rank would have. Where rank r's bodies start in that order is first[r].
//
// The split follows the measured cost of the force walk (the hybrid's idea, nbody/hybrid.hpp,
// across ranks): each rank's walk time over the last step, spread evenly over its bodies,
// gives a cost per body along the curve, and the cuts move toward equal shares of the total.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "core/key_ranges.hpp"
#include "nbody/tree.hpp"

namespace partikel::nbody {

inline constexpr std::uint64_t kKeyEnd = std::uint64_t{1} << 63;  // above every 63-bit Morton key

// The rank owning `key`: the last r with splitters[r] <= key (splitters: ranks + 1 entries).
PK_DEVICE_INLINE std::uint32_t owner_of_key(const std::uint64_t* splitters, std::uint32_t ranks, std::uint64_t key) {
    // The splitters 1 .. R-1 that are <= key; key < 2^63, so key + 1 does not wrap.
    return lower_bound_index(splitters + 1, ranks - 1, key + 1);
}

// The box around `positions` (host memory; an empty span gives an empty box), and their keys
// in the tree's root cube around `box` (nbody/tree.hpp), as the device computes them.
BoundingBox box_of(std::span<const Vec3d> positions);
std::vector<std::uint64_t> curve_keys(std::span<const Vec3d> positions, const BoundingBox& box);

// Splitters (ranks + 1 keys) giving each rank an equal number of `keys` (any order; host
// memory), up to runs of equal keys, which stay on one rank.
std::vector<std::uint64_t> equal_count_splitters(std::span<const std::uint64_t> keys, int ranks);

// The rank of each of `positions` (every body) in equal shares along the curve.
std::vector<std::uint32_t> curve_owners(std::span<const Vec3d> positions, int ranks);

// The next split along the curve. `first`: ranks + 1 body positions (first[0] = 0, first[R] =
// the body count), `walk_seconds`: each rank's last walk. The cuts go where the cumulative
// cost, rank r's spread evenly over its bodies, crosses k/R of the total, moved a `damping`
// fraction (0 .. 1] of the way from the current cuts, then held so that every rank keeps at
// least one body and at most `capacity`. Unchanged when a time is not positive and finite.
std::vector<std::size_t> balanced_split(std::span<const std::size_t> first, std::span<const double> walk_seconds,
                                        double damping, std::size_t capacity);

// max/mean of the ranks' walk times (1: balanced); 1 for fewer than two ranks or no time.
double imbalance(std::span<const double> walk_seconds);

}  // namespace partikel::nbody
