// Transverse space charge against theory:
//   a KV beam matched in a constant-focusing channel keeps its rms sizes (within 1 %) and its
//   particles oscillate at the depressed phase advance k = eps / a^2 of the envelope equation
//   a'' + k0^2 a - K / a - eps^2 / a^3 = 0 (Kapchinskij and Vladimirskij 1959; Reiser, "Theory
//   and Design of Charged Particle Beams", 2008, sec. 4.4), within 2 %;
//   the small-amplitude incoherent tune shift of a round Gaussian coasting beam in a FODO ring
//   is Laslett's dQ = -N r_c / (4 pi eps_rms beta^2 gamma^3) (Laslett 1963), within 5 %.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "pic/distribution.hpp"
#include "pic/optics.hpp"
#include "pic/tracker.hpp"
#include "pic/tune.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::pic;

namespace {

// The thesis's beam: argon 18+ at 11.4 MeV per nucleon.
ParticleSpecies argon() { return ion(18, 40, 11.4e6); }

// Median fractional tune of the probes in one plane.
double median_tune(const Tracker& t, std::size_t probes, int plane, double beta, double alpha) {
    const auto history = t.probe_history();
    const std::size_t turns = t.probe_turns_recorded();
    std::vector<double> tunes;
    for (std::size_t k = 0; k < probes; ++k) {
        std::vector<double> u, up;
        for (std::size_t turn = 0; turn < turns; ++turn) {
            const Coordinates& c = history[turn * probes + k];
            u.push_back(plane == 0 ? c.x : c.y);
            up.push_back(plane == 0 ? c.xp : c.yp);
        }
        tunes.push_back(fractional_tune(u, up, beta, alpha));
    }
    std::sort(tunes.begin(), tunes.end());
    return tunes[tunes.size() / 2];
}

struct KvCase {
    std::size_t particles = 20000;
    int grid = 64;
    int turns = 48;
};

void kv_depressed_phase_advance(const Backend& backend, const KvCase& c) {
    // 4 cells of constant focusing, 60 deg per cell bare, tune depression k / k0 = 0.7
    RingGenerator g;
    g.cell = RingGenerator::Cell::constant_focusing;
    g.cells = 4;
    g.phase_advance_deg = 60.0;
    g.cell_length_m = 10.0;
    const Lattice l = generate_ring(g);
    const ParticleSpecies s = argon();
    const ReferenceParticle r = make_reference(s);
    const double k0 = (60.0 * constants::pi / 180.0) / 10.0, depression = 0.7, k = depression * k0;
    const double eps_rms = 10e-6, eps = 4.0 * eps_rms;
    const double a2 = eps / k;                              // matched radius: k = eps / a^2
    const double K = (k0 * k0 - k * k) * a2;                // perveance from the envelope equation
    const double lambda = K * 2.0 * constants::pi * constants::epsilon0_F_per_m * r.gamma * r.gamma * r.gamma * r.beta *
                          r.beta * r.rest_energy_J() / r.charge_C;
    const double intensity = lambda * l.circumference_m() / r.charge_C;

    Twiss matched;
    matched.beta_x_m = matched.beta_y_m = 1.0 / k;
    BeamSpec spec;
    spec.species = s;
    spec.transverse = Distribution::kv;
    spec.macroparticles = c.particles;
    spec.emittance_x_m = spec.emittance_y_m = eps_rms;
    spec.momentum_spread = 0.0;
    TrackerOptions o;
    o.space_charge.kicks_per_turn = 24;  // 10 deg of bare phase between kicks
    o.space_charge.sharing = MapSharing::per_kick;
    o.space_charge.nx = o.space_charge.ny = c.grid;
    o.probes = 32;
    o.probe_turns = c.turns;
    Tracker t(backend, l, s, intensity, generate_beam(spec, matched, l.circumference_m()), true, o);
    const BeamMoments m0 = t.moments();
    double worst = 0.0;
    for (int turn = 0; turn < c.turns; ++turn) {
        t.track_turn();
        const BeamMoments m = t.moments();
        for (int v : {m_xx, m_yy}) worst = std::max(worst, std::abs(std::sqrt(m.variance(v) / m0.variance(v)) - 1.0));
    }
    CHECK(worst < 0.01);
    const double want = 4.0 * 60.0 * depression / 360.0;  // depressed phase advance per turn / 2 pi
    for (int plane : {0, 2}) {
        const double q = median_tune(t, 32, plane, 1.0 / k, 0.0);
        CAPTURE(plane);
        CHECK(q == doctest::Approx(want).epsilon(0.02));
    }
}

void kv_matched_beam(const Backend& backend) { kv_depressed_phase_advance(backend, {}); }
void kv_matched_beam_large(const Backend& backend) { kv_depressed_phase_advance(backend, {400000, 128, 128}); }

void laslett_tune_shift(const Backend& backend) {
    RingGenerator g;
    g.cells = 8;
    g.phase_advance_deg = 72.0;
    const Lattice l = generate_ring(g);
    const ParticleSpecies s = argon();
    const ReferenceParticle r = make_reference(s);
    const Optics optics = compute_optics(l, r);
    const double eps_rms = 10e-6, dq = -0.05;
    const double intensity = -dq * 4.0 * constants::pi * eps_rms * r.beta * r.beta * r.gamma * r.gamma * r.gamma /
                             r.classical_radius_m();
    BeamSpec spec;
    spec.species = s;
    spec.transverse = Distribution::gaussian;
    spec.macroparticles = 20000;
    spec.emittance_x_m = spec.emittance_y_m = eps_rms;
    spec.momentum_spread = 0.0;
    ParticleSet p = generate_beam(spec, optics.start, l.circumference_m());
    // probes: small betatron amplitudes (0.1 sigma) at several phases, in x and y
    const std::size_t probes = 16;
    const double ax = 0.1 * std::sqrt(eps_rms * optics.start.beta_x_m), ay = 0.1 * std::sqrt(eps_rms * optics.start.beta_y_m);
    for (std::size_t i = 0; i < probes; ++i) {
        const double phi = 2.0 * constants::pi * double(i) / double(probes);
        p.x[i] = ax * std::cos(phi);
        p.xp[i] = -ax / optics.start.beta_x_m * (std::sin(phi) + optics.start.alpha_x * std::cos(phi));
        p.y[i] = ay * std::sin(phi);
        p.yp[i] = ay / optics.start.beta_y_m * (std::cos(phi) - optics.start.alpha_y * std::sin(phi));
    }
    TrackerOptions o;
    o.space_charge.kicks_per_turn = 16;
    o.space_charge.sharing = MapSharing::per_kick;  // the beam's shape changes around a FODO ring
    o.space_charge.nx = o.space_charge.ny = 64;
    o.probes = probes;
    o.probe_turns = 96;
    Tracker t(backend, l, s, intensity, p, true, o);
    for (int turn = 0; turn < 96; ++turn) t.track_turn();
    for (int plane : {0, 2}) {
        CAPTURE(plane);
        const double bare = (plane == 0 ? optics.tune_x : optics.tune_y);
        const double q = median_tune(t, probes, plane, plane == 0 ? optics.start.beta_x_m : optics.start.beta_y_m,
                                     plane == 0 ? optics.start.alpha_x : optics.start.alpha_y);
        const double shift = q - (bare - std::floor(bare));
        CHECK(shift == doctest::Approx(dq).epsilon(0.05));
    }
}

}  // namespace

// Thousands of field solves each: once on the CPU (all its threads) and, in the gpu suite, on CUDA.
#define PK_SPACE_CHARGE_TEST(name, body)                                               \
    TEST_CASE(name " [cpu]") { body(Backend::cpu(0)); }                                  \
    TEST_CASE(name " [cuda]" * doctest::test_suite("gpu")) { body(test::cuda_backend()); }

PK_SPACE_CHARGE_TEST("pic.space_charge: a matched KV beam keeps its size and shows the depressed phase advance",
                     kv_matched_beam)
PK_SPACE_CHARGE_TEST("pic.space_charge: the incoherent tune shift of a Gaussian coasting beam is Laslett's",
                     laslett_tune_shift)
TEST_CASE("pic.space_charge: KV beam, 400k particles on 128 x 128" * doctest::test_suite("slow")) {
    kv_matched_beam_large(Backend::cpu(0));
}
