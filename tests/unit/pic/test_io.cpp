// Beams as frames (stream and HDF5 round trips, bad frames) and tracking as a run::Simulation:
// captures build the same frame as a download, and a run restarted from a frame continues
// bit for bit.
#include <doctest/doctest.h>

#include <filesystem>

#include "base/error.hpp"
#include "core/memory.hpp"
#include "formats/reader.hpp"
#include "pic/distribution.hpp"
#include "pic/io/frame_io.hpp"
#include "pic/io/simulation.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::pic;

namespace {

io::BeamParameters argon_parameters() {
    io::BeamParameters b;
    b.species.Z = 18;
    b.species.A = 40;
    b.species.kinetic_energy_per_nucleon_eV = 11.4e6;
    b.intensity = 2e11;
    b.coasting = true;
    b.circumference_m = 288.0;
    return b;
}

ParticleSet sample(std::size_t n) {
    BeamSpec s;
    s.macroparticles = n;
    Twiss t;
    t.beta_x_m = t.beta_y_m = 10.0;
    ParticleSet p = generate_beam(s, t, 288.0);
    p.status[1] = kLost;
    p.lost_turn[1] = 7;
    p.lost_element[1] = 3;
    return p;
}

void check_equal(const ParticleSet& a, const ParticleSet& b) {
    REQUIRE(a.size() == b.size());
    CHECK(a.x == b.x);
    CHECK(a.xp == b.xp);
    CHECK(a.y == b.y);
    CHECK(a.yp == b.yp);
    CHECK(a.z == b.z);
    CHECK(a.delta == b.delta);
    CHECK(a.id == b.id);
    CHECK(a.status == b.status);
    CHECK(a.lost_turn == b.lost_turn);
    CHECK(a.lost_element == b.lost_element);
}

std::string temp_path(const char* name) { return (std::filesystem::temp_directory_path() / name).string(); }

}  // namespace

TEST_CASE("pic.io: frames round trip through the stream and HDF5 encodings") {
    const ParticleSet p = sample(500);
    const fmt::Frame frame = io::make_frame(p, argon_parameters(), 12, 3.5e-4);
    for (const char* name : {"pic_io_test.pks", "pic_io_test.h5"}) {
        CAPTURE(name);
        const std::string path = temp_path(name);
        auto writer = fmt::open_writer(path);
        writer->write(frame);
        writer->finish();
        auto reader = fmt::open_reader(path);
        const auto back = reader->next();
        REQUIRE(back);
        const io::StartState s = io::read_frame(*back);
        check_equal(s.particles, p);
        CHECK(s.turn == 12);
        CHECK(s.time_s == doctest::Approx(3.5e-4));
        REQUIRE(s.parameters);
        CHECK(s.parameters->species.Z == 18);
        CHECK(s.parameters->intensity == 2e11);
        CHECK(s.parameters->coasting);
        const fmt::Column& x = back->group("beam").at("x");
        CHECK(x.unit() == units::length);
        CHECK(back->group("beam").find("particleStatus") != nullptr);
        std::filesystem::remove(path);
        std::filesystem::remove(path.substr(0, path.size() - 3) + ".xdmf");
    }
}

TEST_CASE("pic.io: frames without the beam's columns are format errors") {
    fmt::Frame no_beam;
    no_beam.add_group("fluid", 3);
    CHECK_THROWS_WITH_AS(io::read_frame(no_beam), "the frame has no group \"beam\"", FormatError);
    fmt::Frame partial = io::make_frame(sample(4), argon_parameters(), 0, 0.0);
    partial.group("beam").remove_column("delta");
    CHECK_THROWS_WITH_AS(io::read_frame(partial), "group \"beam\": no column \"delta\"", FormatError);
    fmt::Frame wrong = io::make_frame(sample(4), argon_parameters(), 0, 0.0);
    wrong.group("beam").remove_column("x");
    wrong.group("beam").add_column("x", ScalarType::i32, 1);
    CHECK_THROWS_WITH_AS(io::read_frame(wrong), "group \"beam\": column \"x\" has type i32, expected a float", FormatError);
    // only the coordinates are required
    fmt::Frame minimal;
    fmt::Group& g = minimal.add_group("beam", 2);
    for (const char* c : {"x", "xp", "y", "yp", "z", "delta"}) g.add_column(c, ScalarType::f32, 1);
    const io::StartState s = io::read_frame(minimal);
    CHECK(s.particles.id == std::vector<std::uint64_t>{0, 1});
    CHECK(s.particles.alive() == 2);
    CHECK(!s.parameters);
}

namespace {

io::TrackingSetup setup(int kicks) {
    io::TrackingSetup s;
    RingGenerator g;
    g.cells = 8;
    g.pipe = {Aperture::Shape::circle, 0.075, 0.075};
    s.lattice = generate_ring(g);
    s.beam = argon_parameters();
    s.beam.intensity = 2e10;  // a tune shift of about -0.06: nothing reaches the pipe
    s.tracker.space_charge.kicks_per_turn = kicks;
    s.tracker.space_charge.nx = s.tracker.space_charge.ny = 32;
    s.tracker.space_charge.deposition = Deposition::sorted;  // the same sums on every run
    return s;
}

ParticleSet matched_beam(const io::TrackingSetup& s, std::size_t n) {
    BeamSpec spec;
    spec.species = s.beam.species;
    spec.macroparticles = n;
    spec.emittance_x_m = spec.emittance_y_m = 12.5e-6;  // the thesis beam: well inside the 75 mm pipe
    return generate_beam(spec, compute_optics(s.lattice, make_reference(spec.species)).start, s.lattice.circumference_m());
}

fmt::Frame captured(io::TrackingSimulation& sim) {
    const run::FrameCapture c = sim.frame_capture();
    std::vector<std::vector<std::byte>> host;
    std::vector<std::span<const std::byte>> spans;
    const auto capacity = sim.frame_buffer_capacity();
    REQUIRE(capacity.size() == c.buffers.size());
    for (std::size_t i = 0; i < c.buffers.size(); ++i) {
        CHECK(c.buffers[i].bytes <= capacity[i]);
        host.emplace_back(c.buffers[i].bytes);
        copy_bytes(sim.backend(), host.back().data(), c.buffers[i].data, c.buffers[i].bytes, CopyDirection::device_to_host);
    }
    for (const auto& h : host) spans.emplace_back(h);
    return sim.build_frame(spans, c);
}

void simulation_frames_and_restart(const Backend& backend) {
    const io::TrackingSetup s = setup(4);
    const ParticleSet start = matched_beam(s, 2000);
    io::TrackingSimulation whole(backend, s, start);
    for (int i = 0; i < 4; ++i) whole.step();
    CHECK(whole.step_count() == 4);
    CHECK(whole.time() == doctest::Approx(4 * whole.revolution_period_s()));

    io::TrackingSimulation first(backend, s, start);
    first.step();
    first.step();
    const fmt::Frame frame = captured(first);
    CHECK(frame.step == 2);
    const io::StartState resumed = io::read_frame(frame);
    check_equal(resumed.particles, first.tracker().download());
    io::TrackingSimulation second(backend, s, resumed.particles, resumed.turn);
    second.step();
    second.step();
    CHECK(second.step_count() == 4);
    check_equal(second.tracker().download(), whole.tracker().download());

    const auto columns = whole.diagnostics_columns();
    const auto row = whole.diagnostics();
    REQUIRE(row.size() == columns.size());
    CHECK(columns[0].name == "turn");
    CHECK(row[0] == 4.0);
    CHECK(row[2] == 2000.0);  // alive
    CHECK(row[17] > 0.0);     // emittance_x_m
}

}  // namespace

PK_BACKEND_TEST("pic.io: a tracking simulation's frames restart it bit for bit", simulation_frames_and_restart)

TEST_CASE("pic.io: diagnostics report losses per row, tunes from probes, and non-finite beams") {
    const Backend b = Backend::cpu(2);
    io::TrackingSetup s = setup(0);
    s.tracker.probes = 8;
    s.tracker.probe_turns = 64;
    ParticleSet p = matched_beam(s, 1000);
    for (std::size_t i = 900; i < 1000; ++i) p.x[i] = 0.2;  // outside the pipe: lost in turn 0
    io::TrackingSimulation sim(b, s, p);
    for (int i = 0; i < 40; ++i) sim.step();
    const auto columns = sim.diagnostics_columns();
    REQUIRE(columns.back().name == "tune_y");
    auto row = sim.diagnostics();
    CHECK(row[3] == 100.0);  // lost
    CHECK(row[4] == 100.0);  // newly lost
    const Optics o = compute_optics(s.lattice, sim.tracker().reference());
    CHECK(row[columns.size() - 2] == doctest::Approx(o.tune_x - std::floor(o.tune_x)).epsilon(1e-3));
    sim.step();
    row = sim.diagnostics();
    CHECK(row[4] == 0.0);

    io::TrackingSetup plain = setup(0);
    plain.lattice.pipe = {};
    ParticleSet bad = matched_beam(plain, 10);
    bad.x[3] = NAN;
    io::TrackingSimulation broken(b, plain, bad);
    broken.step();
    CHECK_THROWS_AS(broken.diagnostics(), NumericalError);
}
