// The snow models' contracts (docs/SNOW.md): Mueller's kernels are normalised, the rheologies
// give their laws, pressure pushes particles apart with momentum conserved, the step loop
// allocates nothing, frames carry the yielded flag, |D| and (on request) the stress, and a
// restart through a frame continues bit-identically on the CPU (the leapfrog's half-step
// velocity travels in the frame).
#include <doctest/doctest.h>

#include <cmath>

#include "core/memory.hpp"
#include "particle_checks.hpp"
#include "sph/fields.hpp"
#include "sph/io/frame_io.hpp"
#include "sph/io/scenes.hpp"
#include "sph/snow.hpp"
#include "sph/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

// A block of 6 x 6 x 6 fluid particles, 0.5 h apart, falling onto the floor of a walled box.
Scene falling_block(Model model) {
    Scene s;
    SphParams& p = s.params;
    p.model = model;
    p.dx_m = 0.05f;
    p.h_m = 0.1f;
    p.domain_min = {0.0f, 0.0f, 0.0f};
    p.domain_max = {0.6f, 0.6f, 0.6f};
    p.faces = {Face::wall, Face::wall, Face::wall, Face::open, Face::wall, Face::wall};
    p.rheology.gas_constant = 400.0f;
    p.rheology.mu = 2.0f;
    p.rheology.mu_solid = 20.0f;
    p.rheology.yield_stress = 5.0f;
    p.rheology.power_n = 0.8f;
    p.rheology.xsph_phi = 0.1f;
    const float m = muller_lattice_mass(p.rho0, p.dx_m, p.h_m);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            for (int k = 0; k < 6; ++k)
                s.particles.add({0.15f + 0.05f * i, 0.1f + 0.05f * j, 0.15f + 0.05f * k}, {0.0f, 0.0f, 0.0f}, p.rho0, m,
                                ParticleKind::fluid);
    return s;
}

}  // namespace

TEST_CASE("Mueller kernels: poly6 integrates to 1, the spiky gradient and the viscosity Laplacian to their moments") {
    const float h = 0.3f;
    const MullerKernels k(h);
    const int n = 80;
    const double d = 2.0 * h / n, dV = d * d * d;
    double w = 0.0, grad_moment = 0.0, lap_moment = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int l = 0; l < n; ++l) {
                const double x = -h + (i + 0.5) * d, y = -h + (j + 0.5) * d, z = -h + (l + 0.5) * d;
                const double r2 = x * x + y * y + z * z, r = std::sqrt(r2);
                w += k.poly6(float(r2)) * dV;
                grad_moment += k.spiky_factor(float(r), k.gap(float(r))) * y * y * dV;  // int y dW/dy = -1
                lap_moment += k.visc_laplacian(k.gap(float(r))) * y * y * dV;      // int y^2 lap W = 2
            }
    CHECK(w == doctest::Approx(1.0).epsilon(0.01));
    CHECK(grad_moment == doctest::Approx(-1.0).epsilon(0.01));
    CHECK(lap_moment == doctest::Approx(2.0).epsilon(0.01));
    CHECK(k.poly6(h * h) == 0.0f);
    CHECK(k.gap(1.5f * h) == 0.0f);
}

TEST_CASE("rheologies: Bingham, Herschel-Bulkley and power law give their effective viscosities") {
    bool yielded = false;
    const StressLaw bingham{Model::bingham, 2.0f, 500.0f, 100.0f, 1.0f};
    CHECK(bingham.effective_viscosity(0.05f, yielded) == 500.0f);  // 2 mu_s |D| = 50 Pa < tau_y
    CHECK_FALSE(yielded);
    // Above yield tau = (tau_y/|D| + 2 mu) D: mu_eff = tau_y / (2|D|) + mu.
    CHECK(bingham.effective_viscosity(1.0f, yielded) == doctest::Approx(52.0f));
    CHECK(yielded);
    const StressLaw hb{Model::herschel_bulkley, 2.0f, 500.0f, 100.0f, 0.5f};
    CHECK(hb.effective_viscosity(4.0f, yielded) == doctest::Approx(12.5f + 2.0f * 0.5f));
    const StressLaw power{Model::power_law, 2.0f, 500.0f, 0.0f, 1.5f};
    CHECK(power.effective_viscosity(4.0f, yielded) == doctest::Approx(4.0f));
    const StressLaw thinning{Model::power_law, 2.0f, 50.0f, 0.0f, 0.5f};
    CHECK(thinning.effective_viscosity(1e-6f, yielded) == 50.0f);  // capped at mu_s
    const ClampedLinearEos eos{100.0f, 1000.0f};
    CHECK(eos.pressure(1010.0f) == doctest::Approx(1000.0f));
    CHECK(eos.pressure(990.0f) == 0.0f);  // clamped, not negative
}

TEST_CASE("snow: pressure pushes two compressed particles apart; momentum conserved") {
    for (Model model : {Model::newtonian_muller, Model::bingham}) {
        CAPTURE(to_string(model));
        SphParams p;
        p.model = model;
        p.h_m = 0.1f;
        p.dx_m = 0.05f;
        p.gravity = {0.0f, 0.0f, 0.0f};
        p.domain_min = {-1.0f, -1.0f, -1.0f};
        p.domain_max = {1.0f, 1.0f, 1.0f};
        p.faces = {Face::open, Face::open, Face::open, Face::open, Face::open, Face::open};
        p.rheology.gas_constant = 100.0f;
        p.rho0 = 100.0f;  // below the summation density of two heavy particles: positive pressure
        ParticleSet set;
        set.add({-0.02f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 1000.0f, 1.0f, ParticleKind::fluid);
        set.add({0.02f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 1000.0f, 1.0f, ParticleKind::fluid);
        Solver solver(Backend::cpu(1), p, set);
        for (int i = 0; i < 5; ++i) solver.step();
        const ParticleSet s = solver.download();
        const std::size_t left = s.position[0].x < s.position[1].x ? 0 : 1, right = 1 - left;
        CHECK(s.position[left].x < -0.02f);
        CHECK(s.position[right].x > 0.02f);
        CHECK(s.velocity[left].x + s.velocity[right].x == doctest::Approx(0.0f).epsilon(1e-6));
    }
}

namespace {
void snow_step_allocates_nothing(const Backend& backend) {
    for (Model model : {Model::newtonian_muller, Model::bingham}) {
        CAPTURE(to_string(model));
        const Scene s = falling_block(model);
        Solver solver(backend, s.params, s.particles);
        solver.step();
        const auto before = device_allocation_count();
        for (int i = 0; i < 5; ++i) solver.step();
        (void)solver.diagnostics();
        CHECK(device_allocation_count() == before);
    }
}
}  // namespace
PK_BACKEND_TEST("snow: no device allocation inside the step loop", snow_step_allocates_nothing)

TEST_CASE("snow: frames carry velocity_half, strain_rate, yielded and, on request, stress") {
    const Scene s = falling_block(Model::bingham);
    for (bool write_stress : {false, true}) {
        Solver solver(Backend::cpu(1), s.params, s.particles, 0, 0.0, {.write_stress = write_stress});
        for (int i = 0; i < 3; ++i) solver.step();
        HostState state;
        state.count = solver.size();
        std::vector<std::vector<std::byte>> copies;
        for (const FieldBuffer& f : solver.written_fields()) {
            copies.emplace_back(f.bytes.bytes);
            solver.download_field(f.field, copies.back().data());
            state.fields[std::size_t(f.field)] = copies.back();
        }
        const fmt::Frame frame = make_frame(state, solver.params(), solver.step_count(), solver.time(), solver.last_dt());
        const fmt::Group& g = frame.group("fluid");
        CHECK(g.find("velocity_half") != nullptr);
        CHECK(g.find("strain_rate") != nullptr);
        CHECK(g.find("yielded") != nullptr);
        CHECK((g.find("stress") != nullptr) == write_stress);
        const SimulationFrame back = read_frame(frame);
        CHECK(back.params.model == Model::bingham);
        CHECK(back.params.rheology.yield_stress == s.params.rheology.yield_stress);
        CHECK(back.previous.velocity_half.size() == solver.size());
    }
}

TEST_CASE("snow: a restart through a frame continues bit-identically on the CPU") {
    for (Model model : {Model::newtonian_muller, Model::herschel_bulkley}) {
        CAPTURE(to_string(model));
        const Scene s = falling_block(model);
        Solver straight(Backend::cpu(2), s.params, s.particles);
        for (int i = 0; i < 20; ++i) straight.step();
        Solver first(Backend::cpu(2), s.params, s.particles);
        for (int i = 0; i < 10; ++i) first.step();
        const SimulationFrame restart = read_frame(make_frame(first.download_frame(), first.params()));
        REQUIRE(restart.previous.velocity_half.size() == first.size());
        Solver second(Backend::cpu(2), restart.params, restart.particles, restart.step, restart.time_s, {},
                      restart.previous);
        for (int i = 0; i < 10; ++i) second.step();
        CHECK(second.time() == straight.time());
        CHECK(bit_identical(second.download(), straight.download()));
        // Without the half-step velocity the leapfrog restarts from v - a dt/2 and differs.
        Solver cold(Backend::cpu(2), restart.params, restart.particles, restart.step, restart.time_s);
        for (int i = 0; i < 10; ++i) cold.step();
        CHECK_FALSE(bit_identical(cold.download(), straight.download()));
    }
}
