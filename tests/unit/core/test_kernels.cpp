#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/buffer.hpp"
#include "core/dispatch.hpp"
#include "kernels.hpp"
#include "support/backends.hpp"

using namespace partikel;

namespace {

void saxpy_body(const Backend& b) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4099}, (std::size_t{1} << 24) + 1}) {
        CAPTURE(n);
        std::vector<float> x(n), y(n);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = static_cast<float>(i % 1000) * 0.5f;
            y[i] = static_cast<float>(i % 7);
        }
        DeviceBuffer<float> dx(b, n), dy(b, n);
        dx.copy_from_host(x);
        dy.copy_from_host(y);
        with_exec(b, [&](const auto& e) { test::saxpy(e, n, 2.0f, dx.data(), dy.data()); });
        auto got = dy.to_vector();
        bool ok = true;
        for (std::size_t i = 0; i < n; ++i) ok = ok && got[i] == 2.0f * x[i] + y[i];
        CHECK(ok);
    }
}

void atomics_body(const Backend& b) {
    for (std::size_t n : {std::size_t{1}, std::size_t{7919}, std::size_t{1000003}}) {
        CAPTURE(n);
        std::mt19937 rng(7);
        std::vector<std::uint32_t> values(n);
        std::vector<float> floats(n);
        std::uniform_real_distribution<float> dist(-50.0f, 20.0f);
        for (std::size_t i = 0; i < n; ++i) {
            values[i] = rng();
            floats[i] = dist(rng);
        }
        const std::uint32_t bins = 97;
        DeviceBuffer<std::uint32_t> dv(b, n), counts(b, bins), max_out(b, 1);
        DeviceBuffer<float> df(b, n), fmin(b, 1), fmax(b, 1);
        dv.copy_from_host(values);
        df.copy_from_host(floats);
        counts.fill_zero();
        max_out.fill_zero();
        std::vector<float> start_min = {1e30f}, start_max = {-1e30f};
        fmin.copy_from_host(start_min);
        fmax.copy_from_host(start_max);
        with_exec(b, [&](const auto& e) {
            test::atomic_checks(e, n, dv.data(), bins, counts.data(), max_out.data(), df.data(), fmin.data(), fmax.data());
        });
        std::vector<std::uint32_t> want(bins, 0);
        for (auto v : values) ++want[v % bins];
        CHECK(counts.to_vector() == want);
        CHECK(max_out.to_vector()[0] == *std::max_element(values.begin(), values.end()));
        CHECK(fmin.to_vector()[0] == *std::min_element(floats.begin(), floats.end()));
        CHECK(fmax.to_vector()[0] == *std::max_element(floats.begin(), floats.end()));
    }
}

void buffer_body(const Backend& b) {
    DeviceBuffer<double> a(b, 10);
    std::vector<double> v(10);
    for (int i = 0; i < 10; ++i) v[i] = i * 1.5;
    a.copy_from_host(v);
    DeviceBuffer<double> c(b, 10);
    c.copy_from(a, 10);
    CHECK(c.to_vector() == v);
    std::vector<double> part(3);
    c.copy_to_host(part, 7);
    CHECK(part == std::vector<double>{10.5, 12.0, 13.5});
    CHECK_THROWS_AS(c.copy_to_host(part, 8), UsageError);
    DeviceBuffer<double> moved = std::move(c);
    CHECK(moved.size() == 10);
    CHECK(c.size() == 0);
    PinnedBuffer<double> pinned(b, 10);
    moved.copy_to_host_async(pinned.span());
    b.synchronize();
    CHECK(std::equal(v.begin(), v.end(), pinned.data()));
}

void block_tiles_body(const Backend& b) {
    for (std::size_t blocks : {std::size_t{1}, std::size_t{37}, std::size_t{1000}}) {
        CAPTURE(blocks);
        const std::size_t tiles = 3, n = blocks * tiles * 256;
        std::vector<float> in(n);
        for (std::size_t i = 0; i < n; ++i) in[i] = float(i % 251) - 100.0f;  // small integers: exact sums
        DeviceBuffer<float> d_in(b, n), d_out(b, blocks * 256);
        d_in.copy_from_host(in);
        with_exec(b, [&](const auto& e) { test::block_tile_sums(e, blocks, tiles, d_in.data(), d_out.data()); });
        const auto out = d_out.to_vector();
        bool ok = true;
        for (std::size_t blk = 0; blk < blocks; ++blk) {
            float want = 0.0f;
            for (std::size_t i = blk * tiles * 256; i < (blk + 1) * tiles * 256; ++i) want += in[i];
            for (std::size_t t = 0; t < 256; ++t) ok = ok && out[blk * 256 + t] == want;
        }
        CHECK(ok);
    }
}

void block_histogram_body(const Backend& b) {
    for (std::uint32_t bin_count : {1u, 97u, 4096u, 20000u}) {  // 20000 bins: 80 KB of shared memory
        CAPTURE(bin_count);
        const std::size_t n = 300007;
        std::mt19937 rng(bin_count);
        std::vector<std::uint32_t> bins(n);
        for (auto& v : bins) v = rng() % (bin_count + 3);  // some out of range: ignored
        DeviceBuffer<std::uint32_t> d_bins(b, n), d_counts(b, bin_count);
        d_bins.copy_from_host(bins);
        with_exec(b, [&](const auto& e) { test::block_histogram(e, n, d_bins.data(), bin_count, d_counts.data()); });
        std::vector<std::uint32_t> want(bin_count, 0);
        for (auto v : bins)
            if (v < bin_count) ++want[v];
        CHECK(d_counts.to_vector() == want);
    }
}

// key_starts and bound_starts against std::lower_bound: empty keys, runs, keys past the last
// (they belong to no range), no rows at all.
void key_starts_body(const Backend& b) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{70001}}) {
        CAPTURE(n);
        const std::size_t key_count = 97;
        std::mt19937 rng(std::uint32_t(n) + 3);
        std::vector<std::uint32_t> keys(n);
        for (auto& k : keys) k = rng() % (key_count + 5);  // some >= key_count
        std::sort(keys.begin(), keys.end());
        DeviceBuffer<std::uint32_t> d_keys(b, std::max<std::size_t>(n, 1)), d_start(b, key_count + 1);
        if (n) d_keys.copy_from_host(keys);
        with_exec(b, [&](const auto& e) { test::sorted_key_starts(e, d_keys.data(), n, key_count, d_start.data()); });
        std::vector<std::uint32_t> want(key_count + 1);
        for (std::size_t k = 0; k <= key_count; ++k)
            want[k] = std::uint32_t(std::lower_bound(keys.begin(), keys.end(), std::uint32_t(k)) - keys.begin());
        CHECK(d_start.to_vector() == want);

        std::vector<std::uint64_t> keys64(n);
        for (auto& k : keys64) k = (std::uint64_t(rng()) << 31) ^ rng();
        std::sort(keys64.begin(), keys64.end());
        const std::vector<std::uint64_t> bounds = {0, 1, std::uint64_t(1) << 40, std::uint64_t(1) << 61,
                                                   n ? keys64[n / 2] : 5, ~std::uint64_t(0)};
        DeviceBuffer<std::uint64_t> d_keys64(b, std::max<std::size_t>(n, 1)), d_bounds(b, bounds.size());
        DeviceBuffer<std::uint32_t> d_bound_start(b, bounds.size());
        if (n) d_keys64.copy_from_host(keys64);
        d_bounds.copy_from_host(bounds);
        with_exec(b, [&](const auto& e) {
            test::sorted_bound_starts(e, d_keys64.data(), n, d_bounds.data(), bounds.size(), d_bound_start.data());
        });
        std::vector<std::uint32_t> want_bounds;
        for (std::uint64_t x : bounds)
            want_bounds.push_back(std::uint32_t(std::lower_bound(keys64.begin(), keys64.end(), x) - keys64.begin()));
        CHECK(d_bound_start.to_vector() == want_bounds);
    }
}

}  // namespace

PK_BACKEND_TEST("core.key_starts finds each key's range in sorted keys", key_starts_body)
PK_BACKEND_TEST("core.for_each_block shares a tile between the threads of a block", block_tiles_body)
PK_BACKEND_TEST("core.for_each_block privatises a histogram per block", block_histogram_body)
PK_BACKEND_TEST("core.for_each runs every index once", saxpy_body)
PK_BACKEND_TEST("core.atomics add/min/max under contention", atomics_body)
PK_BACKEND_TEST("core.buffers copy, move and transfer", buffer_body)
