// The lattice text format, the MAD-X subset, the ring generator and the optics.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include "base/error.hpp"
#include "pic/lattice.hpp"
#include "pic/madx.hpp"
#include "support/hostile_text.hpp"
#include "pic/maps.hpp"
#include "pic/optics.hpp"

using namespace partikel;
using namespace partikel::pic;

namespace {

const char* kText = R"(# a FODO ring with everything in it
beam Z=18 A=40 energy_per_nucleon_eV=11.4e6 intensity=2e11
pipe radius=0.075
repeat 4
  quadrupole QF L=0.5 k1=1.2   # focusing
  drift D L=2.0
  sbend B L=1.5 angle=0.39269908169872414
  quadrupole QD L=0.5 k1=-1.2
  drift D L=2.0
  sbend B L=1.5 angle=0.39269908169872414
end
monitor BPM
multipole M knl=0,0,0.5,20
sextupole S k2l=0.3
octupole O k3l=-4
rfcavity RF voltage=2e3 harmonic=4 phase_deg=180
aperture A a=0.05 b=0.03
marker END
)";

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const FormatError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("pic.lattice: the text format reads, and writes back to the same lattice") {
    const Lattice l = parse_lattice_text(kText, "ring.lat");
    REQUIRE(l.elements.size() == 4 * 6 + 7);
    CHECK(l.circumference_m() == doctest::Approx(4 * 8.0));
    CHECK(l.pipe.shape == Aperture::Shape::circle);
    CHECK(l.pipe.a_m == 0.075);
    REQUIRE(l.species);
    CHECK(l.species->Z == 18);
    CHECK(*l.intensity == 2e11);
    CHECK(l.elements[3].kind == ElementKind::quadrupole);
    CHECK(l.elements[3].k1_per_m2 == -1.2);
    CHECK(l.elements[25].knl[3] == 20.0);
    CHECK(l.elements[26].knl[2] == 0.3);
    CHECK(l.elements[27].knl[3] == -4.0);
    CHECK(l.elements[28].phase_rad == doctest::Approx(constants::pi));
    CHECK(l.elements[29].aperture.shape == Aperture::Shape::ellipse);
    CHECK(l.elements[0].source == "ring.lat:5");

    const Lattice back = parse_lattice_text(format_lattice_text(l), "again.lat");
    REQUIRE(back.elements.size() == l.elements.size());
    for (std::size_t i = 0; i < l.elements.size(); ++i) {
        const Element &a = l.elements[i], &b = back.elements[i];
        CHECK(a.kind == b.kind);
        CHECK(a.name == b.name);
        CHECK(a.length_m == b.length_m);
        CHECK(a.k1_per_m2 == b.k1_per_m2);
        CHECK(a.angle_rad == b.angle_rad);
        CHECK(a.knl == b.knl);
        CHECK(a.voltage_V == b.voltage_V);
        CHECK(a.phase_rad == doctest::Approx(b.phase_rad));
        CHECK(a.aperture.a_m == b.aperture.a_m);
    }
}

TEST_CASE("pic.lattice: malformed text names the file and line") {
    CHECK(error_of([] { parse_lattice_text("drift D L=1\nkicker K L=1\n", "bad.lat"); }) ==
          "bad.lat:2: unknown element kind 'kicker'");
    CHECK(error_of([] { parse_lattice_text("drift D L=one\n", "bad.lat"); }) == "bad.lat:1: L=one is not a number");
    CHECK(error_of([] { parse_lattice_text("quadrupole Q L=1\n", "bad.lat"); }) == "bad.lat:1: missing k1=");
    CHECK(error_of([] { parse_lattice_text("drift D L=1 k1=2\n", "bad.lat"); }) == "bad.lat:1: unknown key 'k1'");
    CHECK(error_of([] { parse_lattice_text("repeat 2\ndrift D L=1\n", "bad.lat"); }) == "bad.lat:1: 'repeat' without 'end'");
    CHECK(error_of([] { parse_lattice_text("drift D L=1\nend\n", "bad.lat"); }) == "bad.lat:2: 'end' without 'repeat'");
    CHECK(error_of([] { parse_lattice_text("# nothing\n", "bad.lat"); }) == "bad.lat: no elements");
    CHECK(error_of([] { parse_lattice_text("ring gamma_t=5\nsbend B L=1 angle=0.1\n", "bad.lat"); }).find("gamma_t") !=
          std::string::npos);
    CHECK(error_of([] { parse_lattice_text(std::string("\x01\xff\n"), "bin.lat"); }) == "bin.lat:1: expected '\x01\xff NAME key=value ...'");
}

TEST_CASE("pic.lattice: MAD-X sequences with variables, derived elements and a beam") {
    const char* madx = R"(
! a FODO cell, four times
title, "test ring";
lq = 0.5;  kf := kq * 1.0;  kq = 1.2;
qf: quadrupole, l = lq, k1 := kf;
qd: qf, k1 = -kq;
b: sbend, l = 1.5, angle = twopi / 8;
bpm: monitor;
rf: rfcavity, l = 1.0, volt = 0.002, harmon = 4, lag = 0.5;
beam, particle = ion, mass = 40 * nmass, charge = 18, energy = 40 * nmass + 40 * 0.0114, npart = 2e11;
ring: sequence, l = 33.0, refer = entry;
  qf, at = 0;      b, at = 2.5;   qd, at = 4.0;   b, at = 6.5;
  qf, at = 8;      b, at = 10.5;  qd, at = 12.0;  b, at = 14.5;
  qf, at = 16;     b, at = 18.5;  qd, at = 20.0;  b, at = 22.5;
  qf, at = 24;     b, at = 26.5;  qd, at = 28.0;  b, at = 30.5;
  bpm, at = 32.0;  rf, at = 32.0;
endsequence;
use, sequence = ring;
)";
    const Lattice l = parse_madx(madx, "ring.madx");
    CHECK(l.circumference_m() == doctest::Approx(33.0));
    REQUIRE(l.elements.size() == 28);
    CHECK(l.elements[0].kind == ElementKind::quadrupole);
    CHECK(l.elements[0].k1_per_m2 == doctest::Approx(1.2));
    CHECK(l.elements[1].kind == ElementKind::drift);
    CHECK(l.elements[1].length_m == doctest::Approx(2.0));
    CHECK(l.elements[2].angle_rad == doctest::Approx(constants::pi / 4));
    CHECK(l.elements[3].k1_per_m2 == doctest::Approx(-1.2));
    // the thick cavity: half drift, thin kick, half drift; the monitor before it
    const std::size_t n = l.elements.size();
    CHECK(l.elements[n - 1].kind == ElementKind::drift);
    CHECK(l.elements[n - 2].kind == ElementKind::rf_cavity);
    CHECK(l.elements[n - 2].voltage_V == doctest::Approx(2000.0));
    CHECK(l.elements[n - 2].phase_rad == doctest::Approx(constants::pi));
    REQUIRE(l.species);
    CHECK(l.species->Z == 18);
    CHECK(l.species->A == 40);
    CHECK(l.species->kinetic_energy_per_nucleon_eV == doctest::Approx(11.4e6));
    CHECK(*l.intensity == 2e11);
}

TEST_CASE("pic.lattice: MAD-X errors name the file and line") {
    auto err = [](const std::string& text) { return error_of([&] { parse_madx(text, "x.madx"); }); };
    CHECK(err("s1: sextupole, l=0.1, k2=1;\nr: sequence, l=1; s1, at=0.5; endsequence;") ==
          "x.madx:1: unsupported element class 'sextupole' (supported: drift, quadrupole, sbend, multipole, rfcavity, "
          "marker, monitor)");
    CHECK(err("q: quadrupole, l=0.1 k1=1;\n") == "x.madx:1: unexpected 'k1' in an expression");
    CHECK(err("a = 1;\nb = (2;\n") == "x.madx:2: missing ')'");
    CHECK(err("a = 1;\n\nb = 2 * c;\n") == "x.madx:3: undefined variable 'c'");
    CHECK(err("d: drift, l=1;\nr: sequence, l=3;\n d, at=1;\n d, at=1.5;\nendsequence;") ==
          "x.madx:4: 'd' overlaps the element before it (starts at 1.000000 m, the previous ends at 1.500000 m)");
    CHECK(err("q: quadrupole, l=0.2, k1=1, k1s=0.1;\nr: sequence, l=1; q, at=0.5; endsequence;") ==
          "x.madx:1: a skew quadrupole (k1s) is not supported");
    CHECK(err("d: drift, l=1;\nr: sequence, l=2; d, at=1;\nendsequence;\ntwiss;") == "x.madx:4: unsupported statement 'twiss'");
    CHECK(err("d: drift, l=1;\nr: sequence, l=2;\n d, at=1\n") == "x.madx:3: missing ';' at the end of the statement");
    CHECK(err("a = 1 $ 2;") == "x.madx:1: unexpected character '$'");
    CHECK(err("b: sbend, l=1, angle=0.1, e1=0.05;\nr: sequence, l=2; b, at=1; endsequence;") ==
          "x.madx:1: sbend attribute e1 is not supported");
}

TEST_CASE("pic.lattice: the FODO generator sets the phase advance per cell") {
    for (bool bends : {false, true}) {
        CAPTURE(bends);
        RingGenerator g;
        g.bends = bends;
        const Lattice l = generate_ring(g);
        CHECK(l.elements.size() == std::size_t(16 * (bends ? 6 : 4)));
        CHECK(l.circumference_m() == doctest::Approx(16 * 18.0));
        const MapContext c = map_context(l, make_reference(proton(1e9)));
        Matrix6 cell = Matrix6::identity();
        for (std::size_t i = 0; i < l.elements.size() / 16; ++i) cell = element_map(l.elements[i], c) * cell;
        const double mu = 129.3 * constants::pi / 180.0;
        CHECK(std::abs(std::acos(0.5 * (cell(0, 0) + cell(1, 1))) - mu) < 1e-12);
        CHECK(std::abs(std::acos(0.5 * (cell(2, 2) + cell(3, 3))) - mu) < 1e-12);
    }
    RingGenerator bad;
    bad.phase_advance_deg = 190.0;
    CHECK_THROWS_AS(generate_ring(bad), UsageError);
}

TEST_CASE("pic.optics: tunes, periodic Twiss functions, slip factor and an unstable lattice") {
    RingGenerator g;
    g.gamma_t = 5.4;
    Lattice l = generate_ring(g);
    // a monitor after the first and after the fifth cell: the same optics
    l.elements.insert(l.elements.begin() + 20, make_element(ElementKind::monitor, "M2"));
    l.elements.insert(l.elements.begin() + 4, make_element(ElementKind::monitor, "M1"));
    const ReferenceParticle r = make_reference(proton(1e9));
    const Optics o = compute_optics(l, r);
    CHECK(o.tune_x == doctest::Approx(16 * 129.3 / 360.0).epsilon(1e-12));
    CHECK(o.tune_y == doctest::Approx(16 * 129.3 / 360.0).epsilon(1e-12));
    REQUIRE(o.monitors.size() == 2);
    CHECK(o.monitors[0].twiss.beta_x_m == doctest::Approx(o.start.beta_x_m).epsilon(1e-10));
    CHECK(o.monitors[1].twiss.beta_y_m == doctest::Approx(o.start.beta_y_m).epsilon(1e-10));
    CHECK(o.monitors[1].twiss.phase_x_rad - o.monitors[0].twiss.phase_x_rad == doctest::Approx(4 * 129.3 * constants::pi / 180));
    CHECK(o.slip_factor == doctest::Approx(1.0 / (5.4 * 5.4) - 1.0 / (r.gamma * r.gamma)).epsilon(1e-12));
    CHECK(!o.synchrotron_tune);
    CHECK(format_optics(l, o).find("tunes: Qx = 5.74666") != std::string::npos);

    // rf: the small-amplitude synchrotron tune sqrt(-eta C A k) / 2 pi (A = q V / (beta^2 E), k = 2 pi h / C)
    Element rf = make_element(ElementKind::rf_cavity, "RF");
    rf.voltage_V = 5e3;
    rf.harmonic = 2;
    rf.phase_rad = o.slip_factor > 0.0 ? constants::pi : 0.0;
    l.elements.push_back(rf);
    const Optics with_rf = compute_optics(l, r);
    REQUIRE(with_rf.synchrotron_tune);
    const double C = l.circumference_m(), A = r.charge_C * 5e3 / (r.beta * r.beta * r.total_energy_J());
    const double qs = std::sqrt(std::abs(o.slip_factor) * C * A * 2.0 * constants::pi * 2.0 / C) / (2.0 * constants::pi);
    CHECK(*with_rf.synchrotron_tune == doctest::Approx(qs).epsilon(1e-3));

    Lattice unstable = generate_ring(RingGenerator{});
    for (Element& e : unstable.elements) e.k1_per_m2 *= 2.0;
    try {
        compute_optics(unstable, r);
        FAIL("an unstable lattice must be an error");
    } catch (const UsageError& e) {
        CHECK(std::string(e.what()).find("unstable in x") != std::string::npos);
    }
}

// Hostile lattices (tests/support/hostile_text.hpp): each parses to a lattice or fails with one
// error naming the file, never a crash, a hang or undefined behaviour (the sanitizer build runs
// this too): nesting 30,000 deep, repeats of a billion, 1e400, bytes out of place.
TEST_CASE("hostile MAD-X and text lattices give a lattice or an error naming the file") {
    const std::string madx = "k := 0.05 * (1 + 2^-3);\nqf: quadrupole, l = 1, k1 = k;\nqd: qf, k1 = -k;\n"
                             "d: drift, l = 4.5;\nm: multipole, knl = {0, 0.01};\n"
                             "beam, particle = proton, energy = 2, npart = 1e11;\n"
                             "ring: sequence, l = 12, refer = entry;\nqf, at = 0;\nd, at = 1;\nqd, at = 5.5;\n"
                             "m, at = 6.5;\nd, at = 6.5;\nendsequence;\nuse, sequence = ring;\n";
    const std::string text = "beam Z=1 A=1 energy_per_nucleon_eV=1e9 intensity=1e11\npipe radius=0.05\nrepeat 4\n"
                             "quadrupole qf L=1 k1=0.05\ndrift d L=4.5\nquadrupole qd L=1 k1=-0.05\n"
                             "multipole m knl=0,0.01\nend\nrfcavity rf voltage=1e3 harmonic=4\n";
    CHECK_NOTHROW(parse_madx(madx, "fuzz.madx"));
    CHECK_NOTHROW(parse_lattice_text(text, "fuzz.txt"));
    std::size_t refused = 0;
    for (const std::string& hostile : partikel::test::hostile_texts(madx, 24, 600)) {
        try {
            parse_madx(hostile, "fuzz.madx");
        } catch (const Error& e) {
            CHECK(std::string_view(e.what()).starts_with("fuzz.madx"));
            ++refused;
        }
    }
    for (const std::string& hostile : partikel::test::hostile_texts(text, 25, 600)) {
        try {
            parse_lattice_text(hostile, "fuzz.txt");
        } catch (const Error& e) {
            CHECK(std::string_view(e.what()).starts_with("fuzz.txt"));
            ++refused;
        }
    }
    CHECK(refused > 600);  // most hostile texts are refused: the test reaches the parsers' checks
}
