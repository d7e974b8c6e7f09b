#include <doctest/doctest.h>

#include <limits>

#include "formats/frame.hpp"
#include "formats/records.hpp"
#include "formats/stats.hpp"

using namespace partikel;
using namespace partikel::fmt;

TEST_CASE("scalar types: sizes, names and parsing agree") {
    for (auto t : {ScalarType::u8, ScalarType::i32, ScalarType::u32, ScalarType::i64, ScalarType::u64, ScalarType::f32, ScalarType::f64}) {
        CHECK(parse_scalar_type(scalar_name(t)) == t);
    }
    CHECK(scalar_size(ScalarType::u8) == 1);
    CHECK(scalar_size(ScalarType::f32) == 4);
    CHECK(scalar_size(ScalarType::u64) == 8);
    CHECK_FALSE(parse_scalar_type("f16"));
    CHECK(is_float(ScalarType::f64));
    CHECK_FALSE(is_float(ScalarType::i64));
}

TEST_CASE("well-known columns carry SPEC.md units") {
    auto v = well_known_column("velocity");
    REQUIRE(v);
    CHECK(v->type == ScalarType::f32);
    CHECK(v->components == 3);
    CHECK(unit_symbol(v->unit) == "m/s");
    CHECK(unit_symbol(well_known_column("density")->unit) == "kg/m^3");
    CHECK(unit_symbol(well_known_column("pressure")->unit) == "Pa");
    CHECK(unit_symbol(well_known_column("id")->unit) == "1");
    CHECK(well_known_column("id")->type == ScalarType::u64);
    CHECK(unit_symbol(Unit{{1, 0, 0, 0, 0, 0, 0}, 1e-3}) == "0.001 m");
    CHECK_FALSE(well_known_column("temperature_guess"));
}

TEST_CASE("groups hold equal-length typed columns with zero-copy views") {
    Frame f;
    auto& g = f.add_group("fluid", 4);
    auto pos = g.add_well_known("position").values<float>();
    CHECK(pos.size() == 12);
    pos[5] = 2.5f;
    CHECK(g.at("position").as_double(1, 2) == 2.5);
    CHECK_THROWS_AS(g.at("position").values<double>(), UsageError);
    CHECK_THROWS_AS(g.add_well_known("position"), UsageError);
    CHECK_THROWS_AS(g.add_column(Column("x", ScalarType::f32, 1, 3)), UsageError);
    CHECK_THROWS_AS(g.add_column("a/b", ScalarType::f32, 1), UsageError);
    CHECK_THROWS_AS(f.add_group("fluid", 1), UsageError);
    CHECK_THROWS_AS(g.at("nope"), UsageError);
    g.resize(6);
    CHECK(g.at("position").count() == 6);
    CHECK(g.at("position").as_double(1, 2) == 2.5);
    CHECK(g.at("position").as_double(5, 2) == 0.0);
    CHECK(f.particle_count() == 6);
    CHECK(f.payload_bytes() == 6 * 12);
    g.remove_column("position");
    CHECK(g.columns().empty());
}

TEST_CASE("column statistics skip non-finite values") {
    Column c("density", ScalarType::f32, 1, 4);
    auto v = c.values<float>();
    v[0] = 1.0f; v[1] = 3.0f; v[2] = std::numeric_limits<float>::quiet_NaN(); v[3] = 2.0f;
    auto s = column_stats(c);
    REQUIRE(s.size() == 1);
    CHECK(s[0].min == 1.0);
    CHECK(s[0].max == 3.0);
    CHECK(s[0].mean == doctest::Approx(2.0));
    CHECK(s[0].non_finite == 1);
}

TEST_CASE("records view a column as scalars or Vec3 rows without copying") {
    Column position("position", ScalarType::f32, 3, 10);
    auto p = records<Vec3f>(position);
    REQUIRE(p.size() == 10);
    p[9] = {1.0f, 2.0f, 3.0f};
    CHECK(position.values<float>()[29] == 3.0f);
    CHECK(records<float>(position).size() == 30);
    Column id("id", ScalarType::u64, 1, 10);
    CHECK_THROWS_AS(records<Vec3f>(id), UsageError);
    Column density("density", ScalarType::f32, 1, 4);
    CHECK_THROWS_AS(records<Vec3f>(density), UsageError);
}
