#pragma once

#include "base/hd.hpp"
#include "core/atomics.hpp"
#include "core/exec.hpp"
#include "core/key_ranges.hpp"
#include "kernels.hpp"

namespace partikel::test {

struct Saxpy {
    float a;
    const float* x;
    float* y;
    PK_HD void operator()(std::size_t i) const { y[i] = a * x[i] + y[i]; }
};

struct AtomicChecks {
    const std::uint32_t* values;
    std::uint32_t bins;
    std::uint32_t* counts;
    std::uint32_t* max_out;
    const float* floats;
    float* min_float_out;
    float* max_float_out;
    PK_HD void operator()(std::size_t i) const {
        atomic_add(&counts[values[i] % bins], 1u);
        atomic_max(max_out, values[i]);
        atomic_min(min_float_out, floats[i]);
        atomic_max(max_float_out, floats[i]);
    }
};

// Each block sums `tiles` consecutive tiles of 256 values; every thread adds up every value of
// each tile from shared memory and writes the total (the same for all threads of the block), so
// a missing barrier shows as a wrong total: a thread would read a tile value not yet written, or
// one already overwritten by the next tile.
struct TileSums {
    static constexpr int kThreads = 256;
    const float* in;
    std::size_t tiles;
    float* out;
    template <class Block> PK_HD void operator()(Block& b) const {
        float* tile = b.template shared<float>();
        PerThread<float, Block> sum(b);
        b.threads([&](int t) { sum[t] = 0.0f; });
        for (std::size_t k = 0; k < tiles; ++k) {
            b.threads([&](int t) { tile[t] = in[(b.index() * tiles + k) * kThreads + std::size_t(t)]; });
            b.sync();
            b.threads([&](int t) {
                for (int j = 0; j < kThreads; ++j) sum[t] += tile[j];
            });
            b.sync();
        }
        b.threads([&](int t) { out[b.index() * kThreads + std::size_t(t)] = sum[t]; });
    }
};

struct PrivateHistogram {
    static constexpr int kThreads = 128;
    const std::uint32_t* bins;
    std::size_t n;
    std::uint32_t bin_count;
    std::uint32_t* counts;
    template <class Block> PK_HD void operator()(Block& b) const {
        std::uint32_t* local = b.template shared<std::uint32_t>();
        b.threads([&](int t) {
            for (std::uint32_t c = std::uint32_t(t); c < bin_count; c += kThreads) local[c] = 0;
        });
        b.sync();
        b.threads([&](int t) {
            const std::size_t i = b.index() * kThreads + std::size_t(t);
            if (i < n && bins[i] < bin_count) block_atomic_add(&local[bins[i]], 1u);
        });
        b.sync();
        b.threads([&](int t) {
            for (std::uint32_t c = std::uint32_t(t); c < bin_count; c += kThreads)
                if (local[c]) atomic_add(&counts[c], local[c]);
        });
    }
};

template <class Exec> void saxpy(const Exec& exec, std::size_t n, float a, const float* x, float* y) {
    exec.for_each(n, Saxpy{a, x, y}, "test.saxpy");
}

template <class Exec>
void atomic_checks(const Exec& exec, std::size_t n, const std::uint32_t* values, std::uint32_t bins,
                   std::uint32_t* counts, std::uint32_t* max_out, const float* floats, float* min_float_out,
                   float* max_float_out) {
    exec.for_each(n, AtomicChecks{values, bins, counts, max_out, floats, min_float_out, max_float_out},
                  "test.atomics");
}

template <class Exec>
void block_tile_sums(const Exec& exec, std::size_t blocks, std::size_t tiles, const float* in, float* out) {
    exec.for_each_block(blocks, TileSums::kThreads * sizeof(float), TileSums{in, tiles, out}, "test.tile_sums");
}

template <class Exec>
void block_histogram(const Exec& exec, std::size_t n, const std::uint32_t* bins, std::uint32_t bin_count,
                     std::uint32_t* counts) {
    exec.fill_zero(counts, bin_count * sizeof(std::uint32_t));
    const std::size_t blocks = (n + PrivateHistogram::kThreads - 1) / PrivateHistogram::kThreads;
    exec.for_each_block(blocks, bin_count * sizeof(std::uint32_t), PrivateHistogram{bins, n, bin_count, counts},
                        "test.private_histogram");
}

template <class Exec>
void sorted_key_starts(const Exec& exec, const std::uint32_t* sorted, std::size_t n, std::size_t key_count,
                       std::uint32_t* start) {
    key_starts(exec, sorted, n, key_count, start, "test.key_starts");
}

template <class Exec>
void sorted_bound_starts(const Exec& exec, const std::uint64_t* sorted, std::size_t n, const std::uint64_t* bounds,
                         std::size_t bound_count, std::uint32_t* start) {
    bound_starts(exec, sorted, n, bounds, bound_count, start, "test.bound_starts");
}

#define PK_TEST_KERNELS_INSTANTIATE(Exec)                                                                       \
    template void saxpy(const Exec&, std::size_t, float, const float*, float*);                                \
    template void atomic_checks(const Exec&, std::size_t, const std::uint32_t*, std::uint32_t, std::uint32_t*, \
                                std::uint32_t*, const float*, float*, float*);                                 \
    template void block_tile_sums(const Exec&, std::size_t, std::size_t, const float*, float*);                             \
    template void block_histogram(const Exec&, std::size_t, const std::uint32_t*, std::uint32_t, std::uint32_t*); \
    template void sorted_key_starts(const Exec&, const std::uint32_t*, std::size_t, std::size_t, std::uint32_t*); \
    template void sorted_bound_starts(const Exec&, const std::uint64_t*, std::size_t, const std::uint64_t*,     \
                                      std::size_t, std::uint32_t*);

}  // namespace partikel::test
