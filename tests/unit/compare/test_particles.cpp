// Comparing particle groups, frames and frame streams (lib/compare/particles.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "compare/particles.hpp"
#include "base/error.hpp"
#include "fixtures.hpp"

using namespace partikel;
using namespace partikel::compare;
using namespace partikel::compare::testing;

namespace {

// Frames from memory, as a file reader would yield them.
class VectorReader : public fmt::FrameReader {
public:
    explicit VectorReader(std::vector<fmt::Frame> frames, std::string name = "mem")
        : frames_(std::move(frames)), name_(std::move(name)) {}
    std::optional<fmt::Frame> next() override {
        if (at_ == frames_.size()) return std::nullopt;
        return frames_[at_++];
    }
    fmt::Encoding encoding() const override { return fmt::Encoding::stream; }
    const std::string& name() const override { return name_; }

private:
    std::vector<fmt::Frame> frames_;
    std::size_t at_ = 0;
    std::string name_;
};

Report stream_report(std::vector<fmt::Frame> a, std::vector<fmt::Frame> b, const CompareOptions& options) {
    VectorReader reader_a(std::move(a), "a.pks"), reader_b(std::move(b), "b.pks");
    Report report;
    compare_frame_streams(reader_a, reader_b, options, report);
    return report;
}

}  // namespace

TEST_CASE("identical groups are equal, the id column pairs and is not compared") {
    const fmt::Group a = fluid_group(500);
    const Section section = compare_groups(a, a, CompareOptions{});
    CHECK(section.pass());
    CHECK(section.matched_by == "id");
    CHECK(section.columns.size() == 2);   // position, density
    CHECK(column(section, "position").components == 3);
    CHECK(column(section, "position").stats.compared == 500);
}

TEST_CASE("shuffled rows pair by id; a density change flips at the tolerance") {
    const fmt::Group a = fluid_group(1000);
    fmt::Group b = shuffled(a);
    CompareOptions options;
    options.tolerances.add_spec("density=0.01:0");
    CHECK(compare_groups(a, b, options).pass());

    const std::uint64_t row = row_of_id(b, 417);
    auto density = b.at("density").values<float>();
    const float original = density[row];
    density[row] = original + 0.0099f;
    CHECK(compare_groups(a, b, options).pass());
    density[row] = original + 0.0101f;
    const Section failing = compare_groups(a, b, options);
    CHECK_FALSE(failing.pass());
    CHECK(column(failing, "density").stats.beyond == 1);
    CHECK(column(failing, "density").worst == "id 417");
    CHECK(column(failing, "position").pass());
}

TEST_CASE("a vector column differs by the norm of its change") {
    const fmt::Group a = fluid_group(100);
    fmt::Group b = fluid_group(100);
    auto position = b.at("position").values<float>();
    position[3 * 10 + 0] += 0.03f;   // |(0.03, 0.04, 0)| = 0.05
    position[3 * 10 + 1] += 0.04f;
    CompareOptions options;
    options.tolerances.global = {0.0501, 0.0};
    CHECK(compare_groups(a, b, options).pass());
    options.tolerances.global = {0.0499, 0.0};
    const Section section = compare_groups(a, b, options);
    CHECK_FALSE(section.pass());
    CHECK(column(section, "position").stats.max_abs == doctest::Approx(0.05).epsilon(1e-4));
    CHECK(column(section, "position").worst == "id 110");
}

TEST_CASE("without ids particles pair by index") {
    fmt::Group a = fluid_group(50), b = fluid_group(50);
    a.remove_column("id");
    b.remove_column("id");
    b.at("density").values<float>()[7] += 1.0f;
    const Section section = compare_groups(a, b, CompareOptions{});
    CHECK(section.matched_by == "index");
    CHECK(column(section, "density").worst == "index 7");
    CHECK_FALSE(section.pass());
}

TEST_CASE("different particle counts differ unless --subset") {
    const fmt::Group a = fluid_group(100);
    const fmt::Group b = fluid_group(90);
    const Section strict = compare_groups(a, b, CompareOptions{});
    CHECK_FALSE(strict.pass());
    REQUIRE(strict.mismatches.size() == 1);
    CHECK(strict.mismatches[0] == "10 particles only in A (e.g. id 190)");
    CompareOptions subset;
    subset.subset = true;
    const Section lenient = compare_groups(a, b, subset);
    CHECK(lenient.pass());
    CHECK(lenient.notes.size() == 1);
    CHECK(column(lenient, "density").stats.compared == 90);

    // By index (no ids), different counts are trouble (exit 2), not a difference.
    fmt::Group c = fluid_group(100), d = fluid_group(90);
    c.remove_column("id");
    d.remove_column("id");
    CHECK_THROWS_WITH_AS(compare_groups(c, d, CompareOptions{}),
                         doctest::Contains("100 particles in A, 90 in B, and no id column"), Error);
    CHECK(compare_groups(c, d, subset).pass());
}

TEST_CASE("mismatched shapes are reported, not thrown") {
    const fmt::Group a = fluid_group(10);
    fmt::Group b = fluid_group(10);
    b.remove_column("density");
    b.add_column("density", fmt::ScalarType::f32, 3);       // three components
    b.add_column("temperature", fmt::ScalarType::f64, 1);   // only in B
    Section section = compare_groups(a, b, CompareOptions{});
    CHECK_FALSE(section.pass());
    CHECK(section.mismatches.size() == 2);
    CHECK(section.mismatches[0] == "column 'density' has 1 components in A, 3 in B");
    CHECK(section.mismatches[1] == "column 'temperature' only in B");

    fmt::Group c = fluid_group(10);
    c.at("density").set_unit(fmt::Unit{{1, 0, 0, 0, 0, 0, 0}, 1.0});   // metres, not kg/m^3
    section = compare_groups(a, c, CompareOptions{});
    REQUIRE(section.mismatches.size() == 1);
    CHECK(section.mismatches[0].find("column 'density' is in") == 0);

    // --ignore leaves the column out on both sides.
    CompareOptions ignore;
    ignore.ignore_columns = {"density", "temperature"};
    CHECK(compare_groups(a, b, ignore).pass());
}

TEST_CASE("f32 against f64 and scaled units compare in SI") {
    const fmt::Group a = fluid_group(20);
    fmt::Group b(a.name(), a.count());
    auto ids = b.add_well_known("id").values<std::uint64_t>();
    std::copy_n(a.at("id").values<std::uint64_t>().begin(), ids.size(), ids.begin());
    // Positions in millimetres as f64.
    fmt::Column& position = b.add_column("position", fmt::ScalarType::f64, 3, fmt::Unit{{1, 0, 0, 0, 0, 0, 0}, 1e-3});
    const auto source = a.at("position").values<float>();
    auto mm = position.values<double>();
    for (std::size_t i = 0; i < mm.size(); ++i) mm[i] = double(source[i]) * 1e3;
    b.add_column(fmt::Column(a.at("density")));
    CompareOptions options;
    options.tolerances.global = {0.0, 1e-12};
    CHECK(compare_groups(a, b, options).pass());
}

TEST_CASE("64-bit integer columns compare exactly beyond 2^53") {
    fmt::Group a = fluid_group(4), b = fluid_group(4);
    auto keys_a = a.add_column("morton", fmt::ScalarType::u64, 1).values<std::uint64_t>();
    auto keys_b = b.add_column("morton", fmt::ScalarType::i64, 1).values<std::int64_t>();
    for (std::size_t i = 0; i < 4; ++i) {
        keys_a[i] = (std::uint64_t{1} << 62) + i;
        keys_b[i] = std::int64_t((std::uint64_t{1} << 62) + i);
    }
    CHECK(compare_groups(a, b, CompareOptions{}).pass());
    keys_b[2] += 1;   // lost in a double: 2^62 + 3 and 2^62 + 2 round to the same value
    CHECK(double(keys_a[2]) == double(keys_b[2]));
    const Section section = compare_groups(a, b, CompareOptions{});
    CHECK_FALSE(section.pass());
    CHECK(column(section, "morton").stats.max_abs == 1.0);
    CHECK(column(section, "morton").worst == "id 102");
    CompareOptions within_one;
    within_one.tolerances.add_spec("morton=1");
    CHECK(compare_groups(a, b, within_one).pass());

    // Signed values far apart: the difference does not overflow.
    auto signed_a = a.add_column("offset", fmt::ScalarType::i64, 1).values<std::int64_t>();
    auto signed_b = b.add_column("offset", fmt::ScalarType::i64, 1).values<std::int64_t>();
    signed_a[0] = std::numeric_limits<std::int64_t>::min();
    signed_b[0] = std::numeric_limits<std::int64_t>::max();
    CHECK(column(compare_groups(a, b, within_one), "offset").stats.max_abs == doctest::Approx(18446744073709551615.0));
}

TEST_CASE("NaN positions differ unless --nan-equal") {
    fmt::Group a = fluid_group(10), b = fluid_group(10);
    a.at("density").values<float>()[4] = std::numeric_limits<float>::quiet_NaN();
    b.at("density").values<float>()[4] = std::numeric_limits<float>::quiet_NaN();
    const Section strict = compare_groups(a, b, CompareOptions{});
    CHECK_FALSE(strict.pass());
    CHECK(column(strict, "density").stats.nan_mismatch == 1);
    CHECK(column(strict, "density").worst == "id 104");
    CompareOptions lenient;
    lenient.elements.nan_equal = true;
    CHECK(compare_groups(a, b, lenient).pass());
    b.at("density").values<float>()[4] = 1000.0f;
    CHECK_FALSE(compare_groups(a, b, lenient).pass());
}

TEST_CASE("--stats compares distributions, ignoring order and ids") {
    const std::uint64_t n = 20'000;
    fmt::Group a("fluid", n), b("fluid", n);
    std::mt19937_64 rng_a(1), rng_b(2);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto* group : {&a, &b}) {
        auto& rng = group == &a ? rng_a : rng_b;
        auto ids = group->add_well_known("id").values<std::uint64_t>();
        std::iota(ids.begin(), ids.end(), std::uint64_t{0});
        auto velocity = group->add_well_known("velocity").values<float>();
        for (float& v : velocity) v = normal(rng);
    }
    CompareOptions options;
    options.stats = true;
    const Section same = compare_groups(a, b, options);
    CHECK(same.matched_by == "distribution");
    REQUIRE(same.distributions.size() == 3);
    CHECK(same.distributions[0].name == "velocity.x");
    CHECK(same.distributions[2].name == "velocity.z");
    CHECK(same.pass());
    // Element by element the two runs disagree completely.
    CHECK_FALSE(compare_groups(a, b, CompareOptions{}).pass());

    auto velocity = b.at("velocity").values<float>();
    for (std::size_t i = 1; i < velocity.size(); i += 3) velocity[i] += 0.1f;   // y shifted by 0.1 sigma
    const Section shifted = compare_groups(a, b, options);
    CHECK(shifted.distributions[0].comparison.pass());
    CHECK_FALSE(shifted.distributions[1].comparison.pass());
    CHECK_FALSE(shifted.pass());
}

TEST_CASE("frames pair by step; groups by name") {
    const fmt::Group fluid = fluid_group(30);
    std::vector<fmt::Frame> a{frame_of(0, 0.0, fluid), frame_of(10, 0.1, fluid), frame_of(20, 0.2, fluid)};
    std::vector<fmt::Frame> b = a;
    CHECK(stream_report(a, b, CompareOptions{}).equal());
    CHECK(stream_report(a, b, CompareOptions{}).sections.size() == 3);

    b.erase(b.begin() + 1);
    Report report = stream_report(a, b, CompareOptions{});
    CHECK_FALSE(report.equal());
    REQUIRE(report.mismatches.size() == 1);
    CHECK(report.mismatches[0] == "step 10: frame only in A");
    CompareOptions subset;
    subset.subset = true;
    CHECK(stream_report(a, b, subset).equal());

    std::vector<fmt::Frame> with_boundary = a;
    with_boundary[2].groups().push_back(fluid_group(5, "boundary"));
    report = stream_report(a, with_boundary, CompareOptions{});
    REQUIRE(report.mismatches.size() == 1);
    CHECK(report.mismatches[0] == "step 20: group 'boundary' only in B");
    CHECK(stream_report(a, with_boundary, subset).equal());

    // A frame of A beyond the end of B.
    report = stream_report(a, {a[0]}, CompareOptions{});
    CHECK(report.mismatches.size() == 2);
}

TEST_CASE("frames pair by time within --time-tol") {
    const fmt::Group fluid = fluid_group(10);
    std::vector<fmt::Frame> a{frame_of(3, 0.1, fluid), frame_of(6, 0.2, fluid)};
    std::vector<fmt::Frame> b{frame_of(4, 0.1 + 1e-12, fluid), frame_of(8, 0.2, fluid)};
    CompareOptions options;
    CHECK_FALSE(stream_report(a, b, options).equal());   // by step nothing pairs
    options.frame_key = FrameKey::time;
    const Report report = stream_report(a, b, options);
    CHECK(report.equal());
    CHECK(report.sections.size() == 2);
    CHECK(report.sections[0].notes.size() == 1);   // the steps differ: said, not a difference
    options.time_tolerance_s = 1e-15;
    CHECK_FALSE(stream_report(a, b, options).equal());

    // Paired by step, different times are said, not a difference.
    const std::vector<fmt::Frame> later{frame_of(3, 0.11, fluid), frame_of(6, 0.2, fluid)};
    const Report by_step = stream_report(a, later, CompareOptions{});
    CHECK(by_step.equal());
    CHECK(by_step.sections[0].notes == std::vector<std::string>{"paired by step: t = 0.1 s in A, 0.11 s in B"});
    CHECK(by_step.sections[1].notes.empty());
}

TEST_CASE("frames out of order are trouble, not a difference") {
    const fmt::Group fluid = fluid_group(5);
    const std::vector<fmt::Frame> ordered{frame_of(0, 0.0, fluid), frame_of(1, 0.1, fluid), frame_of(2, 0.2, fluid)};
    const std::vector<fmt::Frame> unordered{frame_of(0, 0.0, fluid), frame_of(2, 0.2, fluid), frame_of(1, 0.1, fluid)};
    CHECK_THROWS_WITH_AS(stream_report(ordered, unordered, CompareOptions{}),
                         doctest::Contains("b.pks: frames are not in increasing step order (step 1 after step 2)"),
                         FormatError);
}
