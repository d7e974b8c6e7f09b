// The tracker on every backend: fused maps against the one-turn matrix, losses, empty beams,
// no allocation per turn, and the two depositions against each other.
#include <doctest/doctest.h>

#include <cmath>

#include "base/error.hpp"
#include "core/memory.hpp"
#include "pic/distribution.hpp"
#include "pic/optics.hpp"
#include "pic/tracker.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::pic;

namespace {

Lattice fodo_with_bends() {
    RingGenerator g;
    g.bends = true;
    g.cells = 8;
    return generate_ring(g);
}

BeamSpec small_beam(std::size_t n) {
    BeamSpec s;
    s.species = proton(1e9);
    s.macroparticles = n;
    s.transverse = Distribution::gaussian;
    s.emittance_x_m = s.emittance_y_m = 2e-6;
    s.momentum_spread = 1e-3;
    return s;
}

void one_turn_is_the_one_turn_matrix(const Backend& backend) {
    const Lattice l = fodo_with_bends();
    const BeamSpec spec = small_beam(64);
    const Optics o = compute_optics(l, make_reference(spec.species));
    const ParticleSet p0 = generate_beam(spec, o.start, l.circumference_m());
    Tracker t(backend, l, spec.species, 1e10, p0, true);
    CHECK(t.program().ops.size() == 1);  // the whole ring fused into one map
    CHECK(t.program().segments.size() == 1);
    t.track_turn();
    const ParticleSet p1 = t.download();
    const double C = l.circumference_m();
    for (std::size_t i = 0; i < p0.size(); ++i) {
        const auto want = o.one_turn.apply({p0.x[i], p0.xp[i], p0.y[i], p0.yp[i], p0.z[i], p0.delta[i]});
        CHECK(p1.x[i] == doctest::Approx(want[0]).epsilon(1e-12));
        CHECK(p1.xp[i] == doctest::Approx(want[1]).epsilon(1e-12));
        CHECK(p1.y[i] == doctest::Approx(want[2]).epsilon(1e-12));
        CHECK(p1.yp[i] == doctest::Approx(want[3]).epsilon(1e-12));
        CHECK(p1.z[i] == doctest::Approx(want[4] - C * std::floor(want[4] / C + 0.5)).epsilon(1e-12));  // coasting: wrapped
        CHECK(p1.delta[i] == want[5]);
    }
}

void beam_bigger_than_the_aperture_is_lost_and_reported(const Backend& backend) {
    Lattice l = fodo_with_bends();
    l.pipe = {Aperture::Shape::circle, 0.075, 0.075};
    BeamSpec spec = small_beam(500);
    spec.offset_x_m = 0.2;  // all outside the 75 mm pipe
    const Optics o = compute_optics(l, make_reference(spec.species));
    const ParticleSet p0 = generate_beam(spec, o.start, l.circumference_m());
    Tracker t(backend, l, spec.species, 1e10, p0, true);
    CHECK(t.program().ops.size() == 2 * l.elements.size());  // no fusion through apertures
    t.track_turn();
    t.track_turn();
    const BeamMoments m = t.moments();
    CHECK(m.n == 0.0);
    const auto losses = t.losses_per_element();
    CHECK(losses[0] == 500);
    const ParticleSet p = t.download();
    const MapContext c = map_context(l, t.reference());
    const Matrix6 first = element_map(l.elements[0], c);
    for (std::size_t i = 0; i < p.size(); ++i) {
        CHECK(p.status[i] == kLost);
        CHECK(p.lost_turn[i] == 0);
        CHECK(p.lost_element[i] == 0);
        CHECK(p.id[i] == i);
        // the coordinates where it was lost: after the first element
        const auto want = first.apply({p0.x[i], p0.xp[i], p0.y[i], p0.yp[i], p0.z[i], p0.delta[i]});
        CHECK(p.x[i] == doctest::Approx(want[0]).epsilon(1e-12));
    }
}

void an_empty_beam_tracks(const Backend& backend) {
    TrackerOptions o;
    o.space_charge.kicks_per_turn = 4;
    o.space_charge.nx = o.space_charge.ny = 16;
    Tracker t(backend, fodo_with_bends(), proton(1e9), 1e10, ParticleSet{}, true, o);
    for (int i = 0; i < 3; ++i) t.track_turn();
    CHECK(t.moments().n == 0.0);
    CHECK(t.turn() == 3);
}

void turns_allocate_nothing(const Backend& backend) {
    const Lattice l = generate_ring(RingGenerator{});
    BeamSpec spec = small_beam(3000);
    spec.longitudinal = Longitudinal::gaussian;
    spec.bunch_length_m = 20.0;
    const Optics optics = compute_optics(l, make_reference(spec.species));
    const ParticleSet p0 = generate_beam(spec, optics.start, l.circumference_m());
    for (Deposition d : {Deposition::privatised, Deposition::sorted}) {
        CAPTURE(int(d));
        TrackerOptions o;
        o.space_charge.kicks_per_turn = 3;
        o.space_charge.nx = o.space_charge.ny = 32;
        o.space_charge.slices = 8;
        o.space_charge.deposition = d;
        o.space_charge.sharing = MapSharing::per_kick;
        o.space_charge.longitudinal = true;
        o.space_charge.line_cells = 64;
        o.space_charge.pipe_radius_m = 0.1;
        o.probes = 4;
        o.probe_turns = 5;
        Tracker t(backend, l, spec.species, 1e11, p0, false, o);
        t.track_turn();
        t.moments();
        const auto before = device_allocation_count();
        for (int i = 0; i < 3; ++i) t.track_turn();
        const BeamMoments m = t.moments();
        CHECK(device_allocation_count() == before);
        CHECK(m.n == 3000.0);
        CHECK(t.probe_history().size() == 4 * 4);
        CHECK(t.space_charge()->deposition() == d);
    }
}

void depositions_agree(const Backend& backend) {
    const Lattice l = generate_ring(RingGenerator{});
    BeamSpec spec = small_beam(20000);
    spec.longitudinal = Longitudinal::elliptic;
    spec.bunch_length_m = 30.0;
    const Optics optics = compute_optics(l, make_reference(spec.species));
    const ParticleSet p0 = generate_beam(spec, optics.start, l.circumference_m());
    std::vector<std::vector<float>> fields;
    for (Deposition d : {Deposition::privatised, Deposition::sorted}) {
        SpaceChargeOptions o;
        o.kicks_per_turn = 1;
        o.nx = o.ny = 32;
        o.slices = 16;
        o.deposition = d;
        SpaceChargeSolver solver(backend, o, make_reference(spec.species), l.circumference_m(), false, 1e-15,
                                 p0.size(), 0.0);
        Beam beam(backend, p0);
        solver.solve(beam.view());
        std::vector<float> ex;
        for (const FieldNode& f : solver.field()) ex.push_back(f.here.x);
        fields.push_back(ex);
    }
    float largest = 0.0f;
    for (float v : fields[0]) largest = std::max(largest, std::abs(v));
    REQUIRE(largest > 0.0f);
    for (std::size_t i = 0; i < fields[0].size(); ++i) CHECK(std::abs(fields[0][i] - fields[1][i]) <= 1e-5f * largest);
}

}  // namespace

PK_BACKEND_TEST("pic.tracking: a turn through a fused ring is the one-turn matrix", one_turn_is_the_one_turn_matrix)
PK_BACKEND_TEST("pic.tracking: a beam bigger than the aperture is lost, flagged and counted", beam_bigger_than_the_aperture_is_lost_and_reported)
PK_BACKEND_TEST("pic.tracking: zero particles track", an_empty_beam_tracks)
PK_BACKEND_TEST("pic.tracking: turns with space charge allocate nothing", turns_allocate_nothing)
PK_BACKEND_TEST("pic.tracking: privatised and sorted deposition give the same field", depositions_agree)

TEST_CASE("pic.tracking: bad tracker options are usage errors") {
    const Backend b = Backend::cpu(1);
    ParticleSet p;
    p.resize(10);
    TrackerOptions o;
    o.space_charge.kicks_per_turn = 2;
    o.space_charge.nx = 4;
    CHECK_THROWS_AS(Tracker(b, generate_ring(RingGenerator{}), proton(1e9), 1e10, p, true, o), UsageError);
    o.space_charge.nx = 512;
    o.space_charge.ny = 512;
    o.space_charge.deposition = Deposition::privatised;
    CHECK_THROWS_AS(Tracker(b, generate_ring(RingGenerator{}), proton(1e9), 1e10, p, true, o), UsageError);
    TrackerOptions probes;
    probes.probes = 11;
    probes.probe_turns = 4;
    CHECK_THROWS_AS(Tracker(b, generate_ring(RingGenerator{}), proton(1e9), 1e10, p, true, probes), UsageError);
}
