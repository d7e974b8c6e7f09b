// Sort, scan, reduce and histogram against plain references, on awkward sizes
// (0, 1, a prime, and more than 2^24 items), on every CPU backend and on CUDA (suite "gpu").
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "core/algorithms.hpp"
#include "core/buffer.hpp"
#include "core/memory.hpp"
#include "support/backends.hpp"

using namespace partikel;

namespace {

const std::vector<std::size_t> kSizes = {0, 1, 2, 7919, 100003, (std::size_t{1} << 24) + 3};

template <class T> std::vector<T> random_values(std::size_t n, std::uint64_t seed, T max_value) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    const std::uint64_t span = static_cast<std::uint64_t>(max_value) + 1;  // 0: the full 64-bit range
    for (auto& x : v) x = static_cast<T>(span ? rng() % span : rng());
    return v;
}

template <class T> DeviceBuffer<T> upload(const Backend& b, const std::vector<T>& v) {
    DeviceBuffer<T> d(b, v.size());
    d.copy_from_host(v);
    return d;
}

template <class K> void check_sort(const Backend& b, std::size_t n, int begin_bit, int end_bit, K max_key) {
    CAPTURE(n);
    CAPTURE(begin_bit);
    CAPTURE(end_bit);
    auto keys = random_values<K>(n, 11 + n, max_key);
    std::vector<std::uint32_t> values(n);
    std::iota(values.begin(), values.end(), 0u);
    auto d_keys = upload(b, keys);
    auto d_values = upload(b, values);
    DeviceBuffer<K> d_keys_out(b, n);
    DeviceBuffer<std::uint32_t> d_values_out(b, n);
    Workspace ws(b, sort_pairs_scratch_bytes<K>(b, n));
    sort_pairs<K>(b, ws, d_keys.data(), d_keys_out.data(), d_values.data(), d_values_out.data(), n, begin_bit, end_bit);
    auto got_keys = d_keys_out.to_vector();
    auto got_values = d_values_out.to_vector();

    // Reference: stable sort of indices by the selected key bits.
    K mask = end_bit - begin_bit >= int(sizeof(K) * 8) ? ~K(0) : ((K(1) << (end_bit - begin_bit)) - 1);
    auto digit = [&](K k) { return (k >> begin_bit) & mask; };
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) { return digit(keys[x]) < digit(keys[y]); });
    bool keys_ok = true, values_ok = true;
    for (std::size_t i = 0; i < n; ++i) {
        keys_ok = keys_ok && got_keys[i] == keys[order[i]];
        values_ok = values_ok && got_values[i] == order[i];
    }
    CHECK(keys_ok);
    CHECK(values_ok);
}

void sort_body(const Backend& b) {
    for (auto n : kSizes) check_sort<std::uint32_t>(b, n, 0, 32, 0xffffffffu);
    for (auto n : {std::size_t{0}, std::size_t{1}, std::size_t{7919}, std::size_t{100003}}) {
        check_sort<std::uint64_t>(b, n, 0, 64, ~std::uint64_t{0});
        check_sort<std::uint32_t>(b, n, 0, 13, 8191u);      // cell keys use a few bits only
        check_sort<std::uint32_t>(b, n, 4, 20, 0xffffffffu); // a middle bit range is stable on the rest
    }
}

template <class T> void check_scan(const Backend& b, std::size_t n, bool in_place) {
    CAPTURE(n);
    auto in = random_values<T>(n, 5 + n, T(1000));
    auto d_in = upload(b, in);
    DeviceBuffer<T> d_out(b, n);
    Workspace ws(b, exclusive_sum_scratch_bytes<T>(b, n));
    T* out = in_place ? d_in.data() : d_out.data();
    exclusive_sum<T>(b, ws, d_in.data(), out, n);
    std::vector<T> got(n);
    if (n) (in_place ? d_in : d_out).copy_to_host(got);
    std::vector<T> want(n);
    std::exclusive_scan(in.begin(), in.end(), want.begin(), T(0));
    CHECK(got == want);
}

void scan_body(const Backend& b) {
    for (auto n : kSizes) {
        check_scan<std::uint32_t>(b, n, false);
        check_scan<std::uint64_t>(b, n, n % 2 == 1);
    }
}

void reduce_body(const Backend& b) {
    for (auto n : kSizes) {
        CAPTURE(n);
        std::mt19937 rng(static_cast<unsigned>(n));
        std::uniform_real_distribution<float> dist(-1e3f, 1e3f);
        std::vector<float> x(n);
        for (auto& v : x) v = dist(rng);
        auto d_x = upload(b, x);
        Workspace ws(b, std::max(reduce_scratch_bytes<float, double>(b, n), reduce_scratch_bytes<float, float>(b, n)));
        DeviceBuffer<double> d_sum(b, 1);
        DeviceBuffer<float> d_min(b, 1), d_max(b, 1);
        reduce<float, double>(b, ws, ReduceKind::sum, d_x.data(), n, d_sum.data());
        double sum = d_sum.to_vector()[0];
        reduce<float, float>(b, ws, ReduceKind::min, d_x.data(), n, d_min.data());
        float mn = d_min.to_vector()[0];
        reduce<float, float>(b, ws, ReduceKind::max, d_x.data(), n, d_max.data());
        float mx = d_max.to_vector()[0];
        long double want_sum = 0;
        for (float v : x) want_sum += v;
        // Double accumulation of n floats: the error bound is ~n * eps_double * max|x|.
        CHECK(std::abs(sum - static_cast<double>(want_sum)) <= 1e-9 * std::max<double>(1.0, double(n)));
        if (n == 0) {
            CHECK(std::isinf(mn));
            CHECK(mn > 0);
            CHECK(std::isinf(mx));
            CHECK(mx < 0);
        } else {
            CHECK(mn == *std::min_element(x.begin(), x.end()));
            CHECK(mx == *std::max_element(x.begin(), x.end()));
        }
        auto u = random_values<std::uint32_t>(n, 3, 0xffffffffu);
        auto d_u = upload(b, u);
        Workspace wsu(b, reduce_scratch_bytes<std::uint32_t, std::uint64_t>(b, n));
        DeviceBuffer<std::uint64_t> d_usum(b, 1);
        reduce<std::uint32_t, std::uint64_t>(b, wsu, ReduceKind::sum, d_u.data(), n, d_usum.data());
        CHECK(d_usum.to_vector()[0] == std::accumulate(u.begin(), u.end(), std::uint64_t{0}));
    }
}

void histogram_body(const Backend& b) {
    for (auto n : kSizes) {
        CAPTURE(n);
        const std::size_t bins = 1021;
        auto keys = random_values<std::uint32_t>(n, 17, 1100u);  // some beyond the last bin: ignored
        auto d_keys = upload(b, keys);
        DeviceBuffer<std::uint32_t> d_counts(b, bins);
        histogram(b, d_keys.data(), n, d_counts.data(), bins);
        std::vector<std::uint32_t> want(bins, 0);
        for (auto k : keys)
            if (k < bins) ++want[k];
        CHECK(d_counts.to_vector() == want);
    }
}

void workspace_body(const Backend& b) {
    Workspace small(b, 16);
    DeviceBuffer<std::uint32_t> keys(b, 100000), out(b, 100000), vals(b, 100000), vals_out(b, 100000);
    CHECK_THROWS_AS(sort_pairs<std::uint32_t>(b, small, keys.data(), out.data(), vals.data(), vals_out.data(), 100000),
                    UsageError);
    // Sorting again with a sized workspace allocates nothing.
    Workspace ws(b, sort_pairs_scratch_bytes<std::uint32_t>(b, 100000));
    keys.fill_zero();
    vals.fill_zero();
    auto before = device_allocation_count();
    for (int i = 0; i < 3; ++i)
        sort_pairs<std::uint32_t>(b, ws, keys.data(), out.data(), vals.data(), vals_out.data(), 100000);
    CHECK(device_allocation_count() == before);
}

}  // namespace

PK_BACKEND_TEST("core.sort_pairs matches a stable reference sort", sort_body)
PK_BACKEND_TEST("core.exclusive_sum matches std::exclusive_scan", scan_body)
PK_BACKEND_TEST("core.reduce sum/min/max match references", reduce_body)
PK_BACKEND_TEST("core.histogram counts every bin", histogram_body)
PK_BACKEND_TEST("core.workspace is checked and never grows inside algorithms", workspace_body)
