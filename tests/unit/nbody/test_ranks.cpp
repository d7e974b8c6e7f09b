// The N-body solver across ranks (docs/NBODY.md, "Across GPUs"): run alone (one rank, the
// default suite) and under `mpirun -np 2` and `-np 4` (label mpi, CPU ranks). Every rank also
// runs the whole problem on its own (a one-rank solver) as the reference: accelerations by id
// within twice the tree's own largest error (the same theta: only the walk's groups differ),
// the direct sum's ring within round-off; every body on exactly one rank after the migrations,
// with its mass; diagnostics of the whole state on every rank; a start with every body on rank
// 0; no device allocation in the step loop.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "core/memory.hpp"
#include "dist/communicator.hpp"
#include "nbody/initial_conditions.hpp"
#include "nbody/solver.hpp"

using namespace partikel;
using namespace partikel::nbody;

namespace {

// Bodies [n r / R, n (r + 1) / R) of `all`: an even share by index, not along the curve.
Bodies share_of(const Bodies& all, int rank, int ranks) {
    const std::size_t n = all.size();
    const std::size_t first = n * std::size_t(rank) / std::size_t(ranks), last = n * std::size_t(rank + 1) / std::size_t(ranks);
    Bodies b;
    for (std::size_t i = first; i < last; ++i) {
        b.position.push_back(all.position[i]);
        b.velocity.push_back(all.velocity[i]);
        b.mass.push_back(all.mass[i]);
        b.id.push_back(all.id[i]);
    }
    return b;
}

// The largest relative difference between this rank's accelerations and the reference's, by id.
double worst_difference(const Solver& ranks, const Solver& one) {
    const Bodies mine = ranks.download(), all = one.download();
    const std::vector<Vec4f> a = ranks.download_accelerations(), ref = one.download_accelerations();
    std::map<std::uint64_t, Vec4f> by_id;
    for (std::size_t i = 0; i < all.size(); ++i) by_id[all.id[i]] = ref[i];
    double worst = 0.0;
    for (std::size_t i = 0; i < mine.size(); ++i) {
        const Vec4f r = by_id.at(mine.id[i]);
        const double norm = std::sqrt(double(r.x) * r.x + double(r.y) * r.y + double(r.z) * r.z);
        const double dx = a[i].x - r.x, dy = a[i].y - r.y, dz = a[i].z - r.z;
        worst = std::max(worst, std::sqrt(dx * dx + dy * dy + dz * dz) / norm);
    }
    return worst;
}

}  // namespace

TEST_CASE("nbody ranks: the tree across ranks equals one rank within the tree's own error") {
    const dist::Communicator world = dist::Communicator::world();
    const Backend cpu = Backend::cpu(1);
    const Model m = plummer({.n = 6000, .seed = 5});
    NbodyParams p = m.params;
    p.theta = 0.5f;
    Solver one(cpu, p, m.bodies, 0, 0.0, {}, dist::Communicator::single());
    const double tree_error = one.force_error(6000, 3).max;
    Solver ranks(cpu, p, share_of(m.bodies, world.rank(), world.size()), 0, 0.0, {}, world);
    CHECK(ranks.total_size() == 6000);
    const double worst = world.allreduce(worst_difference(ranks, one), dist::ReduceOp::max);
    CAPTURE(tree_error);
    CHECK(worst <= 2.0 * tree_error);
    if (world.size() == 1) CHECK(worst == 0.0);

    // Five steps: every body on one rank, with its mass; the whole state's diagnostics.
    const std::uint64_t allocations = device_allocation_count();
    for (int i = 0; i < 5; ++i) {
        ranks.step();
        one.step();
    }
    CHECK(device_allocation_count() == allocations);
    const Bodies mine = ranks.download();
    std::vector<std::uint64_t> ids = world.allgather_concat(std::span<const std::uint64_t>(mine.id));
    std::sort(ids.begin(), ids.end());
    std::vector<std::uint64_t> expected(6000);
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i;
    CHECK(ids == expected);
    double mass = 0.0;
    for (double x : mine.mass) mass += x;
    CHECK(world.allreduce(mass, dist::ReduceOp::sum) == doctest::Approx(1.0).epsilon(1e-6));
    const Diagnostics d = ranks.diagnostics(), d1 = one.diagnostics();
    CHECK(d.total == doctest::Approx(d1.total).epsilon(1e-5));
    CHECK(d.kinetic == doctest::Approx(d1.kinetic).epsilon(1e-5));
    CHECK(d.lagrangian_radius[1] == doctest::Approx(d1.lagrangian_radius[1]).epsilon(1e-4));
    CHECK(std::fabs(d.momentum.x - d1.momentum.x) < 1e-6);
    CHECK(ranks.imbalance() >= 1.0);
    const Interactions in = ranks.last_interactions(), in1 = one.last_interactions();
    CHECK(double(in.total()) == doctest::Approx(double(in1.total())).epsilon(0.05));
}

TEST_CASE("nbody ranks: the direct sum's ring equals one rank's sum up to round-off") {
    const dist::Communicator world = dist::Communicator::world();
    const Backend cpu = Backend::cpu(1);
    const Model m = plummer({.n = 3000, .seed = 9});
    NbodyParams p = m.params;
    p.method = ForceMethod::direct;
    Solver one(cpu, p, m.bodies, 0, 0.0, {}, dist::Communicator::single());
    Solver ranks(cpu, p, share_of(m.bodies, world.rank(), world.size()), 0, 0.0, {}, world);
    for (int i = 0; i < 3; ++i) {
        ranks.step();
        one.step();
    }
    // The same pairs summed in another order (the rank's own sources first).
    CHECK(world.allreduce(worst_difference(ranks, one), dist::ReduceOp::max) < 1e-5);
    const Diagnostics d = ranks.diagnostics(), d1 = one.diagnostics();
    CHECK(d.potential == doctest::Approx(d1.potential).epsilon(1e-6));
    CHECK(d.total == doctest::Approx(d1.total).epsilon(1e-6));
    CHECK(d.lagrangian_radius[0] == doctest::Approx(d1.lagrangian_radius[0]).epsilon(1e-6));
    const ForceErrorStats e = ranks.force_error(500, 1);
    CHECK(e.samples == 500);
    CHECK(e.max < 1e-5);
}

TEST_CASE("nbody ranks: a start with every body on rank 0 ends evenly split") {
    const dist::Communicator world = dist::Communicator::world();
    const Backend cpu = Backend::cpu(1);
    const Model m = plummer({.n = 4000, .seed = 2});
    const Bodies start = world.root() ? m.bodies : Bodies{};
    Solver ranks(cpu, m.params, start, 0, 0.0, {}, world);
    // The split from sampled keys: each rank within 10% of an even share (equal keys aside).
    const double even = 4000.0 / world.size();
    CHECK(std::fabs(double(ranks.size()) - even) <= 0.1 * even);
    CHECK(world.allreduce(std::uint64_t(ranks.size()), dist::ReduceOp::sum) == 4000);
}
