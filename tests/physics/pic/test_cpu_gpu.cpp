// The CUDA backend against the CPU backend on the same beams (suite "gpu"): identical
// diagnostics within stated tolerances.
//   linear tracking (maps, multipoles, rf, apertures): every coordinate within 1e-12 relative
//   (the same double arithmetic; the GPU contracts a * b + c into one rounding);
//   with 2.5D space charge: the moments within 1e-5 relative after 5 turns (fields in float,
//   summed in another order by cuFFT and the GPU's atomics).
#include <doctest/doctest.h>

#include <cmath>

#include "pic/distribution.hpp"
#include "pic/optics.hpp"
#include "pic/tracker.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::pic;

namespace {

Lattice ring_with_everything() {
    RingGenerator g;
    g.cells = 8;
    g.bends = true;
    g.pipe = {Aperture::Shape::circle, 0.012, 0.012};  // cuts into the beam's tails
    Lattice l = generate_ring(g);
    Element s = make_element(ElementKind::multipole, "S");
    s.knl[2] = 2.0;
    s.knl[3] = -40.0;
    l.elements.insert(l.elements.begin() + 3, s);
    Element rf = make_element(ElementKind::rf_cavity, "RF");
    rf.voltage_V = 2e5;
    rf.harmonic = 4;
    l.elements.push_back(rf);
    return l;
}

ParticleSet beam(const Lattice& l, std::size_t n) {
    BeamSpec s;
    s.species = proton(2e9);
    s.macroparticles = n;
    s.transverse = Distribution::gaussian;
    s.emittance_x_m = s.emittance_y_m = 2e-6;
    s.longitudinal = Longitudinal::gaussian;
    s.bunch_length_m = 10.0;
    s.momentum_spread = 1e-3;
    return generate_beam(s, compute_optics(l, make_reference(s.species)).start, l.circumference_m());
}

}  // namespace

TEST_CASE("pic.gpu: linear tracking with kicks and apertures matches the CPU" * doctest::test_suite("gpu")) {
    const Lattice l = ring_with_everything();
    const ParticleSet p0 = beam(l, 20000);
    Tracker cpu(Backend::cpu(2), l, proton(2e9), 1e11, p0, false);
    Tracker gpu(test::cuda_backend(), l, proton(2e9), 1e11, p0, false);
    for (int i = 0; i < 10; ++i) {
        cpu.track_turn();
        gpu.track_turn();
    }
    const ParticleSet a = cpu.download(), b = gpu.download();
    CHECK(a.status == b.status);
    CHECK(a.lost_turn == b.lost_turn);
    CHECK(a.lost_element == b.lost_element);
    CHECK(a.alive() < a.size());  // the pipe did cut
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(a.x[i] == doctest::Approx(b.x[i]).epsilon(1e-12).scale(1e-3));
        CHECK(a.yp[i] == doctest::Approx(b.yp[i]).epsilon(1e-12).scale(1e-4));
        CHECK(a.z[i] == doctest::Approx(b.z[i]).epsilon(1e-12).scale(1.0));
        CHECK(a.delta[i] == doctest::Approx(b.delta[i]).epsilon(1e-12).scale(1e-3));
    }
    CHECK(cpu.losses_per_element() == gpu.losses_per_element());
}

TEST_CASE("pic.gpu: 2.5D space charge gives the CPU's moments" * doctest::test_suite("gpu")) {
    RingGenerator g;
    g.cells = 8;
    const Lattice l = generate_ring(g);
    const ParticleSet p0 = beam(l, 100000);
    for (Deposition d : {Deposition::privatised, Deposition::sorted}) {
        CAPTURE(int(d));
        TrackerOptions o;
        o.space_charge.kicks_per_turn = 8;
        o.space_charge.nx = o.space_charge.ny = 64;
        o.space_charge.slices = 32;
        o.space_charge.deposition = d;
        o.space_charge.longitudinal = true;
        o.space_charge.pipe_radius_m = 0.05;
        Tracker cpu(Backend::cpu(2), l, proton(2e9), 2e12, p0, false, o);
        Tracker gpu(test::cuda_backend(), l, proton(2e9), 2e12, p0, false, o);
        for (int i = 0; i < 5; ++i) {
            cpu.track_turn();
            gpu.track_turn();
        }
        const BeamMoments a = cpu.moments(), b = gpu.moments();
        CHECK(a.n == b.n);
        for (int k : {m_xx, m_xpxp, m_yy, m_ypyp, m_zz, m_dd})
            CHECK(std::sqrt(a.variance(k)) == doctest::Approx(std::sqrt(b.variance(k))).epsilon(1e-5).scale(0.0));
        for (int plane = 0; plane < 3; ++plane)
            CHECK(a.emittance(plane) == doctest::Approx(b.emittance(plane)).epsilon(1e-5).scale(0.0));
    }
}
