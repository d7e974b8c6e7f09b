// Direct O(N^2) summation of softened gravity (nbody/gravity.hpp), tiled through shared memory
// as in Nyland, Harris & Prins, "Fast N-body simulation with CUDA" (GPU Gems 3, ch. 31, 2007):
// a block of 256 threads holds 512 targets (two per thread, so that one shared-memory read
// serves two interactions); tiles of 256 sources are loaded into shared memory, and every
// thread sums the tile into its two targets. On the CPU each block runs on one OpenMP thread
// (core/exec.hpp).
//
// When the targets alone would not fill the GPU (fewer than 2,048 blocks), the sources are cut
// into up to 64 slices that separate blocks sum into `partial`, added up afterwards in slice
// order: the result does not depend on timing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/hd.hpp"
#include "base/vec.hpp"

namespace partikel::nbody {

struct DirectSum {
    const Vec4f* targets = nullptr;  // (x, y, z, m)
    std::size_t target_count = 0;
    // Index of target k among the sources, so that the potential skips the body itself;
    // nullptr: target k is source k, unless targets_among_sources is false (sources of other
    // ranks: no target is among them).
    const std::uint32_t* target_source_index = nullptr;
    bool targets_among_sources = true;
    const Vec4f* sources = nullptr;  // (x, y, z, m)
    std::size_t source_count = 0;
    float G = 1.0f;
    float softening = 0.0f;          // Plummer epsilon (floored, nbody/gravity.hpp)
    bool with_potential = false;     // else out[k].w is 0
    bool double_sums = false;        // accumulate in double (reference sums for force errors)
    Vec4f* out = nullptr;            // per target: (a_x, a_y, a_z, phi)
    bool accumulate = false;         // out[k] += the sum (the ring's later sources), else out[k] = it
    Vec4f* partial = nullptr;        // direct_partial_capacity() records of scratch, or nullptr (no slices)
};

inline constexpr int kDirectThreads = 256;
inline constexpr int kDirectTargetsPerThread = 2;

// Sources [first, end) of slice `slice` of `source_count` sources cut into slices of
// `slice_length`: the slices may overshoot the sources (100,000 in 64 slices of 1,792), so the
// last ones hold fewer or none (first == end), and none reaches past source_count.
struct SourceRange {
    std::uint32_t first, end;
};
PK_HD inline SourceRange direct_slice_sources(std::uint32_t slice, std::uint32_t slice_length, std::uint32_t source_count) {
    const std::uint64_t first = std::uint64_t(slice) * slice_length, end = first + slice_length;
    return {static_cast<std::uint32_t>(first < source_count ? first : source_count),
            static_cast<std::uint32_t>(end < source_count ? end : source_count)};
}

// Records of scratch `partial` must hold for `target_count` targets on this Exec (0 on the CPU).
template <class Exec> std::size_t direct_partial_capacity(const Exec& exec, std::size_t target_count);

// out[k] = G * sum over sources of the softened pair terms (+= with accumulate), for every target k.
template <class Exec> void direct_forces(const Exec& exec, const DirectSum& sum);

}  // namespace partikel::nbody
