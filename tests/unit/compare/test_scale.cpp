// Scale (suite "slow"): two 10M-particle frames, written as stream files, one in shuffled
// order, compare frame by frame in seconds; the timings are printed.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <numeric>
#include <random>

#include "compare/compare.hpp"
#include "fixtures.hpp"
#include "formats/reader.hpp"

using namespace partikel;
using namespace partikel::compare::testing;

namespace {

constexpr std::uint64_t particles = 10'000'000;

fmt::Frame big_frame(bool shuffle_rows) {
    fmt::Group group("fluid", particles);
    std::vector<std::uint64_t> order(particles);
    std::iota(order.begin(), order.end(), std::uint64_t{0});
    if (shuffle_rows) std::shuffle(order.begin(), order.end(), std::mt19937_64(5));
    auto ids = group.add_well_known("id").values<std::uint64_t>();
    for (std::uint64_t row = 0; row < particles; ++row) ids[row] = order[row];
    auto position = group.add_well_known("position").values<float>();
    for (std::uint64_t row = 0; row < particles; ++row)
        for (int k = 0; k < 3; ++k) position[3 * row + k] = float((order[row] >> (7 * k)) & 127) * 0.01f;
    auto velocity = group.add_well_known("velocity").values<float>();
    for (std::uint64_t row = 0; row < particles; ++row)
        for (int k = 0; k < 3; ++k) velocity[3 * row + k] = float(order[row] % 1000) * 1e-3f - float(k);
    auto density = group.add_well_known("density").values<float>();
    for (std::uint64_t row = 0; row < particles; ++row) density[row] = 1000.0f + float(order[row] % 17);
    return frame_of(100, 1.0, std::move(group));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_SUITE("slow") {
    TEST_CASE("two 10M-particle frames compare in seconds, by id in shuffled order") {
        const TempDir dir("scale");
        for (const bool shuffle_rows : {false, true}) {
            fmt::Frame frame = big_frame(shuffle_rows);
            if (shuffle_rows) frame.groups()[0].at("density").values<float>()[12345] += 1.0f;
            const auto writer = fmt::open_writer(dir.file(shuffle_rows ? "b.pks" : "a.pks"));
            writer->write(frame);
            writer->finish();
        }
        compare::CompareOptions options;
        auto start = std::chrono::steady_clock::now();
        const compare::Report same = compare::compare_inputs(dir.file("a.pks"), dir.file("a.pks"), options);
        const double identical_s = seconds_since(start);
        start = std::chrono::steady_clock::now();
        const compare::Report shuffled = compare::compare_inputs(dir.file("a.pks"), dir.file("b.pks"), options);
        const double shuffled_s = seconds_since(start);
        MESSAGE("10M particles, same order: " << identical_s << " s; shuffled (match by id): " << shuffled_s << " s");
        CHECK(same.equal());
        REQUIRE(shuffled.sections.size() == 1);
        CHECK_FALSE(shuffled.equal());
        for (const compare::ColumnResult& column : shuffled.sections[0].columns)
            CHECK(column.stats.beyond == (column.name == "density" ? 1u : 0u));
        // "In seconds" on a small shared machine; about 3x faster on 16 cores.
        CHECK(shuffled_s < 60.0);

        options.stats = true;
        start = std::chrono::steady_clock::now();
        const compare::Report stats = compare::compare_inputs(dir.file("a.pks"), dir.file("b.pks"), options);
        MESSAGE("10M particles, --stats (7 distributions): " << seconds_since(start) << " s");
        CHECK(stats.equal());
    }
}
