// The solver's contract: bad input is refused with a clear error, one body moves uniformly,
// coincident bodies give finite, documented results, a position that becomes non-finite stops
// the run with NumericalError (no hang), no allocation inside the step loop, and the hybrid
// split gives the tree's accelerations; plus the split's bookkeeping (Hochstetter 2012, eq. 5.1).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "base/error.hpp"
#include "core/memory.hpp"
#include "nbody/direct.hpp"
#include "nbody/hybrid.hpp"
#include "nbody/initial_conditions.hpp"
#include "nbody/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::nbody;

namespace {

Bodies two_bodies(Vec3d a, Vec3d b) {
    Bodies s;
    s.position = {a, b};
    s.velocity = {Vec3d{0, 0, 0}, Vec3d{0, 0, 0}};
    s.mass = {0.5, 0.25};
    s.id = {7, 8};
    return s;
}

NbodyParams with_method(ForceMethod m) {
    NbodyParams p;
    p.method = m;
    return p;
}

void bad_input(const Backend& backend) {
    const NbodyParams p;
    CHECK_THROWS_AS(Solver(backend, p, Bodies{}), UsageError);  // zero bodies
    Bodies nan = two_bodies(Vec3d{0, 0, 0}, Vec3d{1, 0, 0});
    nan.position[1].y = std::nan("");
    CHECK_THROWS_WITH_AS(Solver(backend, p, nan), doctest::Contains("id 8"), UsageError);
    Bodies negative = two_bodies(Vec3d{0, 0, 0}, Vec3d{1, 0, 0});
    negative.mass[0] = -1.0;
    CHECK_THROWS_AS(Solver(backend, p, negative), UsageError);
    Bodies massless = two_bodies(Vec3d{0, 0, 0}, Vec3d{1, 0, 0});
    massless.mass = {0.0, 0.0};
    CHECK_THROWS_AS(Solver(backend, p, massless), UsageError);
    Bodies unequal = two_bodies(Vec3d{0, 0, 0}, Vec3d{1, 0, 0});
    unequal.id.pop_back();
    CHECK_THROWS_AS(Solver(backend, p, unequal), UsageError);
    const Bodies ok = two_bodies(Vec3d{0, 0, 0}, Vec3d{1, 0, 0});
    for (float theta : {0.0f, -0.5f, std::nanf("")}) {
        NbodyParams q;
        q.theta = theta;
        CHECK_THROWS_WITH_AS(Solver(backend, q, ok), doctest::Contains("theta"), UsageError);
    }
    NbodyParams q;
    q.dt = 0.0;
    CHECK_THROWS_AS(Solver(backend, q, ok), UsageError);
    q = NbodyParams{};
    q.softening = -1.0f;
    CHECK_THROWS_AS(Solver(backend, q, ok), UsageError);
    q = NbodyParams{};
    q.max_depth = 24;  // beyond the 63-bit keys' 21 levels
    CHECK_THROWS_WITH_AS(Solver(backend, q, ok), doctest::Contains("21"), UsageError);
    q = NbodyParams{};
    q.leaf_capacity = 0;
    CHECK_THROWS_AS(Solver(backend, q, ok), UsageError);
}

// One body feels no force: it moves in a straight line; its potential energy is 0 and the
// virial ratio is undefined (NaN).
void one_body(const Backend& backend) {
    for (ForceMethod m : {ForceMethod::direct, ForceMethod::tree, ForceMethod::hybrid}) {
        CAPTURE(force_method_name(m));
        Bodies b;
        b.position = {Vec3d{1.0, 2.0, 3.0}};
        b.velocity = {Vec3d{0.5, -0.25, 0.0}};
        b.mass = {2.0};
        b.id = {42};
        NbodyParams p = with_method(m);
        p.dt = 0.125;
        Solver s(backend, p, b);
        for (int i = 0; i < 8; ++i) s.step();
        const Bodies after = s.download();
        CHECK(after.position[0].x == doctest::Approx(1.5));
        CHECK(after.position[0].y == doctest::Approx(1.75));
        CHECK(after.position[0].z == doctest::Approx(3.0));
        const Diagnostics d = s.diagnostics();
        CHECK(d.potential == 0.0);
        CHECK(d.kinetic == doctest::Approx(0.5 * 2.0 * (0.25 + 0.0625)));
        CHECK(std::isnan(d.virial_ratio));
        CHECK(d.lagrangian_radius[1] == 0.0);
    }
}

// Coincident bodies: no force between them (the separation is zero); with softening eps their
// pair potential is -G m1 m2 / eps, without it -G m1 m2 / 1e-10 (the softening floor).
void coincident(const Backend& backend) {
    for (ForceMethod m : {ForceMethod::direct, ForceMethod::tree}) {
        CAPTURE(force_method_name(m));
        const Bodies b = two_bodies(Vec3d{1, 1, 1}, Vec3d{1, 1, 1});
        NbodyParams p = with_method(m);
        p.softening = 0.1f;
        Solver s(backend, p, b);
        for (const Vec4f& a : s.download_accelerations()) CHECK((a.x == 0.0f && a.y == 0.0f && a.z == 0.0f));
        CHECK(s.diagnostics().potential == doctest::Approx(-0.5 * 0.25 / 0.1).epsilon(1e-6));
        p.softening = 0.0f;
        Solver hard(backend, p, b);
        s.step();
        hard.step();
        for (const Vec4f& a : hard.download_accelerations()) CHECK((a.x == 0.0f && a.y == 0.0f && a.z == 0.0f));
        CHECK(hard.diagnostics().potential == doctest::Approx(-0.5 * 0.25 * 1e10).epsilon(1e-6));
    }
}

// A body far beyond single precision (1e300) turns the forces into NaN; the next step finds the
// non-finite position and says which body, instead of carrying on or hanging.
void runaway(const Backend& backend) {
    for (ForceMethod m : {ForceMethod::direct, ForceMethod::tree}) {
        CAPTURE(force_method_name(m));
        const Bodies b = two_bodies(Vec3d{0, 0, 0}, Vec3d{1e300, 0, 0});
        Solver s(backend, with_method(m), b);
        CHECK_THROWS_WITH_AS(
            {
                for (int i = 0; i < 3; ++i) s.step();
            },
            doctest::Contains("non-finite position"), NumericalError);
    }
}

void no_allocation_in_the_loop(const Backend& backend) {
    const Model model = plummer({.n = 3000, .seed = 3});
    for (ForceMethod m : {ForceMethod::direct, ForceMethod::tree, ForceMethod::hybrid}) {
        CAPTURE(force_method_name(m));
        NbodyParams p = model.params;
        p.method = m;
        Solver s(backend, p, model.bodies);
        s.step();  // first use of any lazily grown scratch
        s.diagnostics();
        const std::uint64_t before = device_allocation_count();
        for (int i = 0; i < 3; ++i) {
            s.step();
            s.diagnostics();
            s.last_interactions();
        }
        CHECK(device_allocation_count() == before);
    }
}

// The hybrid walk computes exactly the tree's accelerations (the same walk, split between the
// backend and CPU threads; on the CPU backend both parts run the same code on the CPU).
void hybrid_equals_tree(const Backend& backend) {
    const Model model = plummer({.n = 5000, .seed = 4});
    NbodyParams p = model.params;
    p.method = ForceMethod::tree;
    Solver tree(backend, p, model.bodies);
    p.method = ForceMethod::hybrid;
    p.hybrid.initial_cpu_share = 0.3;
    p.hybrid.cpu_threads = 3;
    Solver hybrid(backend, p, model.bodies);
    for (int step = 0; step < 3; ++step) {
        tree.step();
        hybrid.step();
        const std::vector<Vec4f> a = tree.download_accelerations(), b = hybrid.download_accelerations();
        REQUIRE(a.size() == b.size());
        double worst = 0.0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            const double norm = std::sqrt(double(a[i].x) * a[i].x + double(a[i].y) * a[i].y + double(a[i].z) * a[i].z);
            const double dx = double(a[i].x) - b[i].x, dy = double(a[i].y) - b[i].y, dz = double(a[i].z) - b[i].z;
            worst = std::max(worst, std::sqrt(dx * dx + dy * dy + dz * dz) / norm);
        }
        const HybridStatus h = hybrid.hybrid_status();
        MESSAGE("step ", step, ": CPU share ", h.cpu_share, ", CPU groups ", h.cpu_groups, " of ", h.groups,
                ", worst relative difference ", worst);
        CHECK(h.cpu_groups > 0);
        CHECK(h.cpu_groups < h.groups);
        // Bit-identical on the CPU; on the GPU the same cells (the walk's decisions are rounded
        // alike on both), summed with each processor's rounding (approximate reciprocal square
        // root, fused multiply-adds).
        CHECK(worst <= (backend.is_cpu() ? 0.0 : 1e-5));
        CHECK(tree.last_interactions().total() == hybrid.last_interactions().total());
    }
}

}  // namespace

PK_BACKEND_TEST("nbody.solver: bad input is refused with a clear error", bad_input)
PK_BACKEND_TEST("nbody.solver: one body moves in a straight line", one_body)
PK_BACKEND_TEST("nbody.solver: coincident bodies give finite, documented results", coincident)
PK_BACKEND_TEST("nbody.solver: a non-finite position stops the run with NumericalError", runaway)
PK_BACKEND_TEST("nbody.solver: no device allocation inside the step loop", no_allocation_in_the_loop)
PK_BACKEND_TEST("nbody.solver: the hybrid walk equals the tree walk", hybrid_equals_tree)

TEST_CASE("nbody.hybrid: virtual threads follow eq. 5.1") {
    VirtualThreads t(4, 0.5, 0.5, 0.1);  // p = 4, T = 8
    CHECK(t.count() == doctest::Approx(8.0));
    CHECK(t.cpu_share() == doctest::Approx(0.5));
    t.update(2.0, 1.0);  // GPU twice as fast: T *= 0.5 * 2 + 0.5
    CHECK(t.count() == doctest::Approx(12.0));
    t.update(1.0, 2.0);  // GPU twice as slow: T *= 0.1 * 0.5 + 0.9
    CHECK(t.count() == doctest::Approx(11.4));
    t.update(1.0, 1.0);  // balanced: unchanged
    CHECK(t.count() == doctest::Approx(11.4));
    t.update(0.0, 1.0);  // nothing measured on the CPU: unchanged
    CHECK(t.count() == doctest::Approx(11.4));
    for (int i = 0; i < 100; ++i) t.update(1.0, 100.0);  // a slow GPU: T falls, never below p
    CHECK(t.count() == doctest::Approx(4.0));
    CHECK(t.cpu_share() == doctest::Approx(1.0));
}

TEST_CASE("nbody.hybrid: groups split by the prefix sums of their load") {
    const std::vector<std::uint32_t> even{0, 10, 20, 30, 40};
    CHECK(split_by_load(even, 4, 2) == std::vector<std::uint32_t>{0, 2, 4});
    CHECK(split_by_load(even, 4, 4) == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
    // One heavy group: the thread that gets it gets little else.
    const std::vector<std::uint32_t> heavy{0, 100, 110, 120, 130};
    CHECK(split_by_load(heavy, 4, 2) == std::vector<std::uint32_t>{0, 1, 4});
    CHECK(cpu_group_count(even, 4, 0.5) == 2);
    CHECK(cpu_group_count(even, 4, 0.0) == 0);
    CHECK(cpu_group_count(even, 4, 1.0) == 4);
    CHECK_THROWS_AS(split_by_load(even, 4, 0), UsageError);
}

TEST_CASE("nbody.direct: slices that overshoot the sources read none beyond them") {
    // 100,000 sources in 64 slices of 1,792 (the GPU's force-error reference for 2,000 samples):
    // slices 0..55 cover them, 56..63 are empty.
    const std::uint32_t n = 100000, length = 1792;
    std::uint64_t covered = 0;
    for (std::uint32_t slice = 0; slice < 64; ++slice) {
        const SourceRange r = direct_slice_sources(slice, length, n);
        CAPTURE(slice);
        CHECK(r.first <= r.end);
        CHECK(r.end <= n);
        CHECK(r.end - r.first <= length);
        covered += r.end - r.first;
    }
    CHECK(covered == n);
    CHECK(direct_slice_sources(55, length, n).end == n);
    CHECK(direct_slice_sources(56, length, n).first == direct_slice_sources(56, length, n).end);
}
