// The solver's contracts: no allocation in the step loop, pressure pushes apart, momentum is
// conserved by the pair forces, results do not depend on the thread count, a restart through
// a frame is bit-identical on the CPU (Verlet included), a frame snapshot holds the state of its
// capture while the solver steps on, every scheme option runs, and CPU and CUDA agree.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <map>
#include <random>
#include <string>

#include "base/error.hpp"
#include "core/memory.hpp"
#include "particle_checks.hpp"
#include "sph/io/frame_io.hpp"
#include "sph/io/scenes.hpp"
#include "sph/io/simulation.hpp"
#include "sph/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

Scene small_tank() {
    SceneOptions o;
    o.width_m = 0.05f;
    o.dx_m = 0.005f;
    o.periodic = true;
    return make_scene("still-tank", o);
}

Scene small_dam_break() {
    SceneOptions o;
    o.width_m = 0.04f;
    o.dx_m = 0.004f;
    return make_scene("dam-break", o);
}

std::map<std::uint64_t, std::size_t> by_id(const ParticleSet& p) {
    std::map<std::uint64_t, std::size_t> m;
    for (std::size_t i = 0; i < p.size(); ++i) m[p.id[i]] = i;
    return m;
}

bool bit_identical(const PreviousStep& a, const PreviousStep& b) {
    if (a.velocity.size() != b.velocity.size() || a.density != b.density) return false;
    for (std::size_t i = 0; i < a.velocity.size(); ++i)
        for (int k = 0; k < 3; ++k)
            if (a.velocity[i][k] != b.velocity[i][k]) return false;
    return true;
}

}  // namespace

namespace {
void no_allocation_in_the_step_loop(const Backend& backend) {
    for (auto integrator : {Integrator::midpoint, Integrator::verlet}) {
        CAPTURE(to_string(integrator));
        Scene s = small_tank();
        s.params.integrator = integrator;
        s.params.shepard_every = 2;  // the filter runs inside the measured steps too
        Solver solver(backend, s.params, s.particles, 0, 0.0, {.track_wall_impulse = true});
        solver.step();  // anything lazily sized would show up here too
        const auto before = device_allocation_count();
        for (int i = 0; i < 5; ++i) solver.step();
        (void)solver.diagnostics();
        CHECK(device_allocation_count() == before);
    }
}
}  // namespace

PK_BACKEND_TEST("no device allocation inside the step loop", no_allocation_in_the_step_loop)

TEST_CASE("pressure pushes two compressed particles apart; momentum conserved") {
    SphParams p;
    p.dx_m = 0.01f;
    p.h_m = 0.015f;
    p.c0 = 10.0f;
    p.gravity = {0.0f, 0.0f, 0.0f};
    p.domain_min = {-1.0f, -1.0f, -1.0f};
    p.domain_max = {1.0f, 1.0f, 1.0f};
    p.faces = parse_faces("open");
    ParticleSet set;
    const float m = p.rho0 * p.dx_m * p.dx_m * p.dx_m;
    set.add({-0.005f, 0.0f, 0.0f}, {0, 0, 0}, 1010.0f, m, ParticleKind::fluid);
    set.add({0.005f, 0.0f, 0.0f}, {0, 0, 0}, 1010.0f, m, ParticleKind::fluid);
    Solver solver(Backend::cpu(1), p, set);
    solver.step();
    auto out = solver.download();
    auto idx = by_id(out);
    CHECK(out.velocity[idx[0]].x < 0.0f);
    CHECK(out.velocity[idx[1]].x > 0.0f);
    CHECK(out.velocity[idx[0]].x == doctest::Approx(-out.velocity[idx[1]].x).epsilon(1e-6));
}

TEST_CASE("pair forces conserve momentum in a free, disordered block") {
    SphParams p;
    p.dx_m = 0.01f;
    p.h_m = 0.015f;
    p.c0 = 10.0f;
    p.alpha = 0.1f;
    p.viscosity = Viscosity::laminar_sps;  // tau_a + tau_b: symmetric, so momentum is conserved too
    p.laminar_nu = 1e-3f;
    p.sps_smagorinsky = 2.0f;
    p.gravity = {0.0f, 0.0f, 0.0f};
    p.domain_min = {-1.0f, -1.0f, -1.0f};
    p.domain_max = {1.0f, 1.0f, 1.0f};
    p.faces = parse_faces("open");
    ParticleSet set;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> jitter(-0.002f, 0.002f), speed(-0.2f, 0.2f), rho(990.0f, 1010.0f);
    const float m = p.rho0 * 1e-6f;
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
            for (int k = 0; k < 8; ++k)
                set.add({i * 0.01f + jitter(rng), j * 0.01f + jitter(rng), k * 0.01f + jitter(rng)},
                        {speed(rng), speed(rng), speed(rng)}, rho(rng), m, ParticleKind::fluid);
    auto momentum = [&](const ParticleSet& s) {
        Vec3d P{0, 0, 0};
        for (std::size_t i = 0; i < s.size(); ++i)
            for (int k = 0; k < 3; ++k) P[k] += double(s.mass[i]) * s.velocity[i][k];
        return P;
    };
    const Vec3d P0 = momentum(set);
    for (auto integrator : {Integrator::midpoint, Integrator::symplectic, Integrator::verlet}) {
        CAPTURE(to_string(integrator));
        p.integrator = integrator;
        Solver solver(Backend::cpu(1), p, set);
        for (int i = 0; i < 10; ++i) solver.step();
        const Vec3d P1 = momentum(solver.download());
        // Scale: total |m v| ~ 512 * 1e-3 kg * 0.1 m/s; float round-off only.
        for (int k = 0; k < 3; ++k) CHECK(std::abs(P1[k] - P0[k]) < 1e-7);
    }
}

TEST_CASE("results do not depend on the CPU thread count") {
    Scene s = small_dam_break();
    Solver one(Backend::cpu(1), s.params, s.particles);
    Solver three(Backend::cpu(3), s.params, s.particles);
    for (int i = 0; i < 20; ++i) {
        one.step();
        three.step();
    }
    CHECK(bit_identical(one.download(), three.download()));
}

TEST_CASE("a restart through a frame continues bit-identically on the CPU") {
    Scene s = small_dam_break();
    s.params.shepard_every = 7;  // a filter before and after the restart point
    Solver straight(Backend::cpu(2), s.params, s.particles);
    for (int i = 0; i < 20; ++i) straight.step();

    Solver first(Backend::cpu(2), s.params, s.particles);
    for (int i = 0; i < 10; ++i) first.step();
    const fmt::Frame frame =
        make_frame(first.download(), first.params(), first.step_count(), first.time(), first.last_dt());
    const SimulationFrame restart = read_frame(frame);
    CHECK(restart.step == 10);
    Solver second(Backend::cpu(2), restart.params, restart.particles, restart.step, restart.time_s);
    for (int i = 0; i < 10; ++i) second.step();
    CHECK(second.time() == straight.time());
    CHECK(bit_identical(second.download(), straight.download()));
}

TEST_CASE("a Verlet restart through a frame continues bit-identically on the CPU") {
    Scene s = small_dam_break();
    s.params.integrator = Integrator::verlet;
    s.params.verlet_euler_every = 7;  // Euler steps before (7) and after (14) the restart point
    s.params.shepard_every = 6;
    Solver straight(Backend::cpu(2), s.params, s.particles);
    for (int i = 0; i < 20; ++i) straight.step();

    Solver first(Backend::cpu(2), s.params, s.particles);
    CHECK(first.download_previous().empty());  // no previous step before the first
    for (int i = 0; i < 10; ++i) first.step();
    const fmt::Frame frame = make_frame(first.download_frame(), first.params());
    REQUIRE(frame.group("fluid").find("velocity_previous") != nullptr);
    REQUIRE(frame.group("boundary").find("density_previous") != nullptr);
    const SimulationFrame restart = read_frame(frame);
    CHECK(restart.step == 10);
    CHECK(bit_identical(restart.previous, first.download_previous()));
    Solver second(Backend::cpu(2), restart.params, restart.particles, restart.step, restart.time_s, {},
                  restart.previous);
    for (int i = 0; i < 10; ++i) second.step();
    CHECK(second.time() == straight.time());
    CHECK(bit_identical(second.download(), straight.download()));
    CHECK(bit_identical(second.download_previous(), straight.download_previous()));

    // Without the previous step the restart begins with an Euler step and differs: the check
    // above is not vacuous.
    Solver euler(Backend::cpu(2), restart.params, restart.particles, restart.step, restart.time_s);
    for (int i = 0; i < 10; ++i) euler.step();
    CHECK_FALSE(bit_identical(euler.download(), straight.download()));
    // The other integrators ignore a previous step; a wrong length is refused.
    SphParams midpoint = restart.params;
    midpoint.integrator = Integrator::midpoint;
    CHECK_NOTHROW(Solver(Backend::cpu(1), midpoint, restart.particles, 10, restart.time_s, {}, restart.previous));
    PreviousStep short_previous = restart.previous;
    short_previous.density.pop_back();
    CHECK_THROWS_AS(
        (Solver(Backend::cpu(1), restart.params, restart.particles, 10, restart.time_s, {}, short_previous)),
        UsageError);
}

namespace {

bool frames_identical(const fmt::Frame& a, const fmt::Frame& b) {
    if (a.step != b.step || a.time != b.time || a.groups().size() != b.groups().size()) return false;
    for (const fmt::Group& ga : a.groups()) {
        const fmt::Group* gb = b.find_group(ga.name());
        if (!gb || gb->columns().size() != ga.columns().size()) return false;
        for (const fmt::Column& ca : ga.columns()) {
            const fmt::Column* cb = gb->find(ca.name());
            if (!cb || cb->bytes() != ca.bytes() || std::memcmp(ca.raw().data(), cb->raw().data(), ca.bytes()) != 0)
                return false;
        }
    }
    return true;
}

// Capture (what run::FrameOutput does at an output step), step on, and only then take the
// host copy: the frame built from it must be the state of the capture, bit for bit the frame
// of a synchronous download at that step, with no allocation in the loop.
void capture_holds_the_captured_state(const Backend& backend) {
    for (auto integrator : {Integrator::midpoint, Integrator::verlet}) {
        CAPTURE(to_string(integrator));
        Scene s = small_dam_break();
        s.params.integrator = integrator;
        SphSimulation sim(backend, SimulationFrame{s.params, s.particles, {}, 0, 0.0}, {.deterministic = true});
        StagedCopy staged(backend, sim.frame_buffer_capacity(), 1);
        const std::size_t verlet_bytes = integrator == Integrator::verlet ? 16 : 0;
        CHECK(staged.host_bytes() == (41 + verlet_bytes) * sim.size());
        CHECK(staged.device_bytes() == (backend.is_cuda() ? staged.host_bytes() : 0));
        sim.step();
        const auto allocations = device_allocation_count();
        for (int round = 0; round < 3; ++round) {
            CAPTURE(round);
            const fmt::Frame expected = make_frame(sim.solver().download_frame(), s.params);
            const run::FrameCapture capture = sim.frame_capture();
            staged.capture(0, capture.buffers);
            CHECK(staged.free_slot() == -1);
            CHECK_THROWS_AS(staged.capture(0, capture.buffers), UsageError);  // the slot is held
            for (int i = 0; i < 3; ++i) sim.step();  // overwrites the live fields
            const fmt::Frame got = sim.build_frame(staged.wait(0), capture);
            staged.release(0);
            CHECK(got.step == 1 + 3 * round);
            CHECK((got.find_group("fluid")->find("velocity_previous") != nullptr) == (integrator == Integrator::verlet));
            CHECK(frames_identical(got, expected));
        }
        CHECK(device_allocation_count() == allocations);
        // A capture still in flight when the copies go away is waited for.
        staged.capture(0, sim.frame_capture().buffers);
    }
}

}  // namespace

PK_BACKEND_TEST("a captured frame holds the state of its capture while the solver steps on",
                capture_holds_the_captured_state)

// Every compiled variant of the rates pass (Wendland / cubic spline, with and without density
// diffusion) and every integrator, on every backend.
void every_scheme_keeps_a_still_tank_still(const Backend& backend) {
    struct Variant {
        const char* name;
        void (*apply)(SphParams&);
    };
    const Variant variants[] = {
        {"default", [](SphParams&) {}},
        {"summation + xsph",
         [](SphParams& p) {
             p.density = DensityScheme::summation;
             p.xsph_epsilon = 0.5f;
         }},
        {"molteni", [](SphParams& p) { p.diffusion = DensityDiffusion::molteni; }},
        {"fourtakas", [](SphParams& p) { p.diffusion = DensityDiffusion::fourtakas; }},
        {"laminar", [](SphParams& p) { p.viscosity = Viscosity::laminar; }},
        {"laminar-sps", [](SphParams& p) { p.viscosity = Viscosity::laminar_sps; }},
        {"cubic", [](SphParams& p) { p.kernel = KernelKind::cubic_spline; }},
        {"symplectic", [](SphParams& p) { p.integrator = Integrator::symplectic; }},
        {"verlet",
         [](SphParams& p) {
             p.integrator = Integrator::verlet;
             p.verlet_euler_every = 10;
         }},
        {"dualsphysics: cubic, fourtakas, verlet",
         [](SphParams& p) {
             p.kernel = KernelKind::cubic_spline;
             p.diffusion = DensityDiffusion::fourtakas;
             p.integrator = Integrator::verlet;
         }},
    };
    for (const auto& v : variants) {
        CAPTURE(std::string(v.name));
        Scene s = small_tank();
        v.apply(s.params);
        Solver solver(backend, s.params, s.particles, 0, 0.0, {.track_wall_impulse = true});
        for (int i = 0; i < 40; ++i) solver.step();
        const Diagnostics d = solver.diagnostics();
        CHECK(d.removed == 0);
        // Still water stays still: speeds far below sqrt(g depth) = 0.7 m/s.
        CHECK(d.max_speed < 0.05);
        CHECK(d.min_density > 0.99 * s.params.rho0);
        CHECK(d.max_density < 1.01 * s.params.rho0);
        // The walls carry the weight: the vertical wall impulse is of the order of M g t.
        const double weight_impulse = 9.81 * double(d.fluid_count) * s.params.lattice_mass_kg() * d.time_s;
        CHECK(d.wall_impulse_N_s.y > 0.5 * weight_impulse);
        CHECK(d.wall_impulse_N_s.y < 1.5 * weight_impulse);
    }
}

PK_BACKEND_TEST("every scheme option keeps a still tank still", every_scheme_keeps_a_still_tank_still)

TEST_CASE("particles leaving through an open face are removed and counted") {
    SphParams p;
    p.dx_m = 0.01f;
    p.h_m = 0.015f;
    p.gravity = {0.0f, -9.81f, 0.0f};
    p.domain_min = {0.0f, 0.0f, 0.0f};
    p.domain_max = {0.2f, 0.2f, 0.2f};
    p.faces = parse_faces("wall,wall,open,open,wall,wall");  // no floor
    ParticleSet set;
    const float m = p.rho0 * 1e-6f;
    set.add({0.1f, 0.01f, 0.1f}, {0.0f, -2.0f, 0.0f}, 1000.0f, m, ParticleKind::fluid);
    set.add({0.1f, 0.15f, 0.1f}, {0.0f, 0.0f, 0.0f}, 1000.0f, m, ParticleKind::fluid);
    Solver solver(Backend::cpu(1), p, set);
    while (solver.time() < 0.05) solver.step();
    CHECK(solver.removed() == 1);
    CHECK(solver.size() == 1);
    CHECK(solver.download().id[0] == 1);
}

// DualSPHysics's RhopOut: a fluid particle whose density leaves the limits is removed after the
// step (and counted), before its speed can stop the run; boundary particles are never removed.
TEST_CASE("fluid outside the density limits is removed and counted; without limits it stays") {
    for (bool limits : {true, false}) {
        CAPTURE(limits);
        SphParams p;
        p.dx_m = 0.01f;
        p.h_m = 0.015f;
        p.gravity = {0.0f, 0.0f, 0.0f};
        p.domain_min = {0.0f, 0.0f, 0.0f};
        p.domain_max = {0.4f, 0.4f, 0.4f};
        if (limits) {
            p.density_min = 700.0f;
            p.density_max = 1300.0f;
        }
        ParticleSet set;
        const float m = p.rho0 * 1e-6f;
        set.add({0.1f, 0.1f, 0.1f}, {0.0f, 0.0f, 0.0f}, 1000.0f, m, ParticleKind::fluid);
        set.add({0.3f, 0.1f, 0.1f}, {0.0f, 0.0f, 0.0f}, 1400.0f, m, ParticleKind::fluid);   // too dense
        set.add({0.1f, 0.3f, 0.1f}, {0.0f, 0.0f, 0.0f}, 650.0f, m, ParticleKind::fluid);    // too light
        set.add({0.3f, 0.3f, 0.3f}, {0.0f, 0.0f, 0.0f}, 1400.0f, m, ParticleKind::boundary);
        Solver solver(Backend::cpu(1), p, set);
        solver.step();
        CHECK(solver.removed() == (limits ? 2u : 0u));
        CHECK(solver.size() == (limits ? 2u : 4u));
    }
    SphParams bad;
    bad.density_min = 1100.0f;
    bad.density_max = 1300.0f;
    CHECK_THROWS_AS(validate(bad), UsageError);
}

TEST_CASE("CPU and CUDA agree after 100 steps of a dam break" * doctest::test_suite("gpu")) {
    Scene s = small_dam_break();
    // The default scheme, and laminar+SPS with a viscosity and Smagorinsky constant large enough
    // that both terms shape the flow (the SPS stress pass and its use in the rates).
    SUBCASE("artificial viscosity") {}
    SUBCASE("laminar+SPS") {
        s.params.viscosity = Viscosity::laminar_sps;
        s.params.laminar_nu = 1e-4f;
        s.params.sps_smagorinsky = 2.0f;
    }
    CAPTURE(to_string(s.params.viscosity));
    check_cuda_matches_cpu(s.params, s.particles);
}

TEST_CASE("two deterministic CUDA runs of a dam break are bit-identical" * doctest::test_suite("gpu")) {
    // --deterministic fixes the order within cells (stable grid build), so every summation runs
    // in the same order: 100 steps (two Shepard filters, both stages' grid rebuilds) must repeat
    // exactly, not just within round-off.
    Scene s = small_dam_break();
    const SolverOptions options{.deterministic = true};
    Solver first(test::cuda_backend(), s.params, s.particles, 0, 0.0, options);
    Solver second(test::cuda_backend(), s.params, s.particles, 0, 0.0, options);
    for (int i = 0; i < 100; ++i) {
        first.step();
        second.step();
    }
    CHECK(first.time() == second.time());
    CHECK(bit_identical(first.download(), second.download()));
}

namespace {

// Open space without gravity, 2 m wide, dx = 1 cm, time steps of at most 1 ms.
SphParams empty_space() {
    SphParams p;
    p.dx_m = 0.01f;
    p.h_m = 0.015f;
    p.gravity = {0.0f, 0.0f, 0.0f};
    p.domain_min = {-1.0f, -1.0f, -1.0f};
    p.domain_max = {1.0f, 1.0f, 1.0f};
    p.dt_max_s = 1e-3f;
    return p;
}

}  // namespace

TEST_CASE("moving boundary particles follow their prescribed motion; fixed ones stay") {
    SphParams p = empty_space();
    p.boundary_motion = {{0.05f, 0.0f, 0.0f}, 0.5f};
    for (auto integrator : {Integrator::midpoint, Integrator::symplectic, Integrator::verlet}) {
        CAPTURE(to_string(integrator));
        p.integrator = integrator;
        ParticleSet set;
        const float m = p.rho0 * 1e-6f;
        set.add({0.0f, 0.0f, 0.0f}, {0, 0, 0}, 1000.0f, m, ParticleKind::moving_boundary);
        set.add({0.5f, 0.5f, 0.5f}, {0, 0, 0}, 1000.0f, m, ParticleKind::boundary);
        set.add({-0.5f, 0.5f, 0.5f}, {0, 0, 0}, 1000.0f, m, ParticleKind::fluid);
        Solver solver(Backend::cpu(1), p, set);
        for (int i = 0; i < 100; ++i) solver.step();
        const ParticleSet out = solver.download();
        auto idx = by_id(out);
        const double expected = 0.05 * std::sin(2.0 * M_PI * solver.time() / 0.5);
        CHECK(out.position[idx[0]].x == doctest::Approx(expected).epsilon(1e-4));
        CHECK(out.position[idx[1]].x == 0.5f);
    }
}

TEST_CASE("a steady boundary motion travels at its velocity for its duration, then rests") {
    SphParams p = empty_space();
    p.boundary_motion.velocity_m_s = {0.0f, 1.5f, 0.0f};
    p.boundary_motion.duration_s = 0.05f;
    p.c0 = 1.0f;  // dt = dt_max
    for (auto integrator : {Integrator::midpoint, Integrator::symplectic, Integrator::verlet}) {
        CAPTURE(to_string(integrator));
        p.integrator = integrator;
        ParticleSet set;
        set.add({0.0f, 0.0f, 0.0f}, {0, 0, 0}, 1000.0f, p.rho0 * 1e-6f, ParticleKind::moving_boundary);
        Solver solver(Backend::cpu(1), p, set);
        for (int i = 0; i < 30; ++i) solver.step();  // 30 ms: moving
        CHECK(solver.download().position[0].y == doctest::Approx(1.5 * solver.time()).epsilon(1e-4));
        CHECK(solver.download().velocity[0].y == doctest::Approx(1.5));
        for (int i = 0; i < 40; ++i) solver.step();  // past 50 ms: at rest, 7.5 cm up
        CHECK(solver.download().position[0].y == doctest::Approx(0.075).epsilon(1e-4));
        CHECK(solver.download().velocity[0].y == 0.0f);
    }
}

TEST_CASE("dam-break --gate-speed: a gate against the column lifts away until it clears it") {
    SceneOptions o;
    o.dx_m = kMartinMoyceWidth_m / 8.0f;
    o.gate_speed_m_s = 1.5f;
    const Scene s = make_scene("dam-break", o);
    const float a = kMartinMoyceWidth_m, dx = s.params.dx_m;
    float gate_lo = 1e9f, gate_hi = -1e9f, fluid_front = -1e9f, gate_top = -1e9f;
    for (std::size_t i = 0; i < s.particles.size(); ++i) {
        const Vec3f r = s.particles.position[i];
        if (s.particles.kind[i] == ParticleKind::moving_boundary) {
            gate_lo = std::min(gate_lo, r.x);
            gate_hi = std::max(gate_hi, r.x);
            gate_top = std::max(gate_top, r.y);
        } else if (s.particles.kind[i] == ParticleKind::fluid) {
            fluid_front = std::max(fluid_front, r.x);
        }
    }
    CHECK(gate_lo == doctest::Approx(fluid_front + dx));      // the next lattice column
    CHECK(gate_hi == doctest::Approx(a + 0.5f * dx));          // one layer
    CHECK(gate_top == doctest::Approx(2.0f * a + 1.5f * dx));  // above the column
    CHECK(s.params.boundary_motion.velocity_m_s.y == 1.5f);
    // It stops a layer above the column's top, inside the domain.
    const float lifted = s.params.boundary_motion.velocity_m_s.y * s.params.boundary_motion.duration_s;
    CHECK(lifted == doctest::Approx(2.0f * a + 3.0f * dx));
    CHECK(gate_top + lifted < s.params.domain_max.y);
    SceneOptions none = o;
    none.gate_speed_m_s = 0.0f;
    CHECK(make_scene("dam-break", none).particles.count(ParticleKind::moving_boundary) == 0);
}
