// N-body frames and the run::Simulation: a frame round trip with units and attributes, the
// errors of a bad start frame (no mass column, NaN, zero or one body, SI columns in N-body units),
// and frames and diagnostics built the way the run loop builds them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <span>
#include <vector>

#include "base/error.hpp"
#include "nbody/initial_conditions.hpp"
#include "nbody/io/frame_io.hpp"
#include "nbody/io/simulation.hpp"

using namespace partikel;
using namespace partikel::nbody;

TEST_CASE("nbody.io: a frame round trip keeps bodies, units and parameters") {
    Model m = galaxy_pair({.n = 60, .seed = 2});
    m.params.theta = 0.75f;
    m.params.method = ForceMethod::hybrid;
    const fmt::Frame frame = make_frame(m.bodies, m.params, 12, 3.5, 0.25);
    CHECK(frame.attributes.at("nbody.units") == fmt::AttributeValue(std::string("astro")));
    CHECK(frame.time_unit_si == doctest::Approx(3.085678e16));
    const fmt::Group& g = frame.group(kBodiesGroup);
    CHECK(g.at("position").unit().si_factor == doctest::Approx(3.085678e19));
    CHECK(g.at("mass").unit().si_factor == doctest::Approx(1.989e40));
    const StartState s = read_start(frame);
    CHECK(s.step == 12);
    CHECK(s.time == 3.5);
    CHECK(s.params.units.kind == UnitSystemKind::astro);
    CHECK(s.params.theta == 0.75f);
    CHECK(s.params.method == ForceMethod::hybrid);
    CHECK(s.params.softening == m.params.softening);
    REQUIRE(s.bodies.size() == 60);
    for (std::size_t i = 0; i < 60; ++i) {
        CHECK(s.bodies.position[i].x == doctest::Approx(m.bodies.position[i].x).epsilon(1e-6));
        CHECK(s.bodies.velocity[i].z == doctest::Approx(m.bodies.velocity[i].z).epsilon(1e-6));
        CHECK(s.bodies.mass[i] == doctest::Approx(m.bodies.mass[i]).epsilon(1e-6));
        CHECK(s.bodies.id[i] == m.bodies.id[i]);
    }
}

TEST_CASE("nbody.io: SI columns are converted into astro units and refused in N-body units") {
    const Model m = plummer({.n = 4});
    fmt::Frame frame = make_frame(m.bodies, m.params, 0, 0.0, 0.0);
    fmt::Group& g = frame.group(kBodiesGroup);
    g.at("position").set_unit(units::length);  // metres
    CHECK_THROWS_WITH_AS(read_start(frame), doctest::Contains("N-body units"), FormatError);
    frame.attributes["nbody.units"] = std::string("astro");
    g.at("mass").set_unit(units::mass);
    const StartState s = read_start(frame);
    CHECK(s.bodies.position[0].x == doctest::Approx(m.bodies.position[0].x / 3.085678e19).epsilon(1e-6));
    CHECK(s.bodies.mass[0] == doctest::Approx(0.25 / 1.989e40).epsilon(1e-6));
    g.at("velocity").set_unit(units::length);  // a length where a velocity belongs
    CHECK_THROWS_AS(read_start(frame), FormatError);
}

TEST_CASE("nbody.io: bad start frames are refused with a clear error") {
    const Model m = plummer({.n = 5});
    auto frame_of = [&](std::size_t n) {
        Bodies b = m.bodies;
        b.position.resize(n), b.velocity.resize(n), b.mass.resize(n), b.id.resize(n);
        return make_frame(b, m.params, 0, 0.0, 0.0);
    };
    CHECK_THROWS_WITH_AS(read_start(frame_of(0)), doctest::Contains("at least two"), FormatError);
    CHECK_THROWS_WITH_AS(read_start(frame_of(1)), doctest::Contains("1 body"), FormatError);
    fmt::Frame no_mass = frame_of(5);
    no_mass.group(kBodiesGroup).remove_column("mass");
    CHECK_THROWS_WITH_AS(read_start(no_mass), doctest::Contains("no mass column"), FormatError);
    fmt::Frame no_group = frame_of(5);
    no_group.group(kBodiesGroup).rename("fluid");
    CHECK_THROWS_WITH_AS(read_start(no_group), doctest::Contains("\"bodies\""), FormatError);
    fmt::Frame nan_mass = frame_of(5);
    nan_mass.group(kBodiesGroup).at("mass").values<float>()[3] = std::nanf("");
    CHECK_THROWS_WITH_AS(read_start(nan_mass), doctest::Contains("row 3: mass is not finite"), FormatError);
    fmt::Frame nan_position = frame_of(5);
    nan_position.group(kBodiesGroup).at("position").values<float>()[7] = INFINITY;
    CHECK_THROWS_WITH_AS(read_start(nan_position), doctest::Contains("row 2: position"), FormatError);
    fmt::Frame negative = frame_of(5);
    negative.group(kBodiesGroup).at("mass").values<float>()[0] = -1.0f;
    CHECK_THROWS_WITH_AS(read_start(negative), doctest::Contains("negative"), FormatError);
    fmt::Frame massless = frame_of(5);
    for (float& v : massless.group(kBodiesGroup).at("mass").values<float>()) v = 0.0f;
    CHECK_THROWS_WITH_AS(read_start(massless), doctest::Contains("total mass"), FormatError);
    fmt::Frame wrong_type = frame_of(5);
    wrong_type.group(kBodiesGroup).remove_column("mass");
    wrong_type.group(kBodiesGroup).add_column("mass", fmt::ScalarType::u32, 1);
    CHECK_THROWS_WITH_AS(read_start(wrong_type), doctest::Contains("expected f32 or f64"), FormatError);
    fmt::Frame bad_method = frame_of(5);
    bad_method.attributes["nbody.method"] = std::string("fmm");
    CHECK_THROWS_WITH_AS(read_start(bad_method), doctest::Contains("fmm"), FormatError);
    fmt::Frame no_velocity = frame_of(5);
    no_velocity.group(kBodiesGroup).remove_column("velocity");
    no_velocity.group(kBodiesGroup).remove_column("id");
    const StartState s = read_start(no_velocity);
    CHECK(s.bodies.velocity[4].y == 0.0);
    CHECK(s.bodies.id[4] == 4);
}

TEST_CASE("nbody.io: the simulation's frames and diagnostics, as the run loop builds them") {
    const Model m = plummer({.n = 500, .seed = 9});
    StartState start{m.bodies, m.params, 0, 0.0};
    SimulationOptions options;
    options.write_acceleration = true;
    options.write_potential = true;
    NbodySimulation sim(Backend::cpu(2), start, options);
    const auto columns = sim.diagnostics_columns();
    std::vector<double> first = sim.diagnostics();
    REQUIRE(first.size() == columns.size());
    CHECK(columns[4].name == "energy_drift");
    CHECK(first[4] == 0.0);
    for (int i = 0; i < 4; ++i) sim.step();
    const std::vector<double> later = sim.diagnostics();
    CHECK(later[0] == doctest::Approx(4 * m.params.dt));
    CHECK(std::fabs(later[4]) < 1e-3);
    CHECK(later[11] == doctest::Approx(1.0).epsilon(0.2));  // virial ratio of a Plummer sphere
    // The CPU backend's memory is host memory: the capture's buffers are the host copies.
    const run::FrameCapture c = sim.frame_capture();
    const auto capacity = sim.frame_buffer_capacity();
    REQUIRE(c.buffers.size() == capacity.size());
    std::vector<std::span<const std::byte>> host;
    for (std::size_t k = 0; k < c.buffers.size(); ++k) {
        CHECK(c.buffers[k].bytes <= capacity[k]);
        host.emplace_back(static_cast<const std::byte*>(c.buffers[k].data), c.buffers[k].bytes);
    }
    const fmt::Frame f = sim.build_frame(host, c);
    CHECK(f.step == 4);
    const fmt::Group& g = f.group(kBodiesGroup);
    CHECK(g.count() == 500);
    for (const char* name : {"position", "velocity", "mass", "id", "acceleration", "potential"}) CHECK(g.find(name));
    auto ids = g.at("id").values<std::uint64_t>();
    CHECK(std::set<std::uint64_t>(ids.begin(), ids.end()).size() == 500);  // a permutation of the bodies
    auto phi = g.at("potential").values<float>();
    CHECK(*std::max_element(phi.begin(), phi.end()) < 0.0f);
    // A frame from the simulation restarts it.
    const StartState again = read_start(f);
    CHECK(again.step == 4);
    CHECK(again.bodies.size() == 500);
}
