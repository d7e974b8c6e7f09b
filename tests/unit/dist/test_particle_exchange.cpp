// Slabs, migration and halos against brute force, on any number of ranks (one alone; 2 and 4
// under mpirun): every rank makes its own particles, they migrate to the slabs' ranks, and the
// ghosts each rank receives are exactly the other ranks' particles within the reach of its
// extent, whether the rows are listed from every row or from a cell grid's layers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "core/buffer.hpp"
#include "core/exec_cpu.hpp"
#include "core/fields.hpp"
#include "dist/particle_exchange.hpp"
#include "dist/slabs.hpp"
#include "frnn/cell_grid.hpp"

using namespace partikel;
using dist::Communicator;

namespace {

enum : int { position, id, value, scratch, field_count };
constexpr unsigned kMoved = kFieldGather | kFieldCompact;
const FieldSpec kTable[field_count] = {
    {"position", ScalarType::f32, 3, units::length, kMoved},
    {"id", ScalarType::u64, 1, units::none, kMoved},
    {"value", ScalarType::f32, 1, units::none, kMoved},
    {"scratch", ScalarType::f32, 3, units::none, kFieldScratch},
};
constexpr std::uint64_t bit(int f) { return std::uint64_t{1} << f; }

// Where particle `id` is: a fixed function, so that any rank can check any particle.
Vec3f place(std::uint64_t i) {
    std::mt19937_64 random(i * 7919 + 1);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    const float x = u(random), y = u(random), z = u(random);
    return {x * x, y, z};  // denser near x = 0: slabs of equal counts are uneven
}
float value_of(std::uint64_t i) { return 0.5f * float(i) + 1.0f; }

struct Rank {
    Communicator comm = Communicator::world();
    Backend cpu = Backend::cpu(2);
    CpuExec exec{cpu};
    static constexpr std::size_t kCapacity = 4000;
    FieldArrays table{cpu, kTable, bit(position) | bit(id) | bit(value) | bit(scratch), kCapacity};
    std::size_t n = 0;

    // 150 + 40 r particles of ids r * 1000 + k.
    Rank() {
        n = 150 + 40 * std::size_t(comm.rank());
        std::vector<Vec3f> p(n);
        std::vector<std::uint64_t> ids(n);
        std::vector<float> v(n);
        for (std::size_t k = 0; k < n; ++k) {
            ids[k] = std::uint64_t(comm.rank()) * 1000 + k;
            p[k] = place(ids[k]);
            v[k] = value_of(ids[k]);
        }
        table.upload(position, p.data(), n);
        table.upload(id, ids.data(), n);
        table.upload(value, v.data(), n);
    }
    template <class T> std::vector<T> download(int f, std::size_t from, std::size_t count) const {
        std::vector<T> all(from + count);
        table.download(f, all.data(), from + count);
        return {all.begin() + std::ptrdiff_t(from), all.end()};
    }
    std::vector<std::uint64_t> everyone_ids() const {
        std::vector<std::uint64_t> out;
        for (int r = 0; r < comm.size(); ++r)
            for (std::size_t k = 0; k < 150 + 40 * std::size_t(r); ++k) out.push_back(std::uint64_t(r) * 1000 + k);
        return out;
    }
};

dist::SlabDecomposition uniform_slabs(int ranks, int axis = 0) {
    dist::SlabDecomposition s{axis, std::vector<double>(std::size_t(ranks) + 1)};
    for (int r = 0; r <= ranks; ++r) s.borders[std::size_t(r)] = double(r) / ranks;
    s.borders.front() = -std::numeric_limits<double>::infinity();
    s.borders.back() = std::numeric_limits<double>::infinity();
    return s;
}

// Every rank's particles (position, id, value) moved to its slab of uniform_slabs; the slabs.
dist::SlabDecomposition migrate_to_uniform_slabs(Rank& rank, dist::ParticleExchange& exchange, int axis = 0) {
    dist::SlabDecomposition slabs = uniform_slabs(rank.comm.size(), axis);
    rank.n = exchange.migrate(rank.exec, rank.table, rank.table.data<Vec3f>(position), rank.n, slabs,
                              bit(position) | bit(id) | bit(value));
    return slabs;
}

}  // namespace

TEST_CASE("slabs: owners, count quantiles, widths, the axis") {
    const auto s = dist::slabs_by_count(1, std::vector<float>{0.1f, 0.9f, 0.2f, 0.8f, 0.3f, 0.7f, 0.4f, 0.6f}, 4);
    CHECK(s.ranks() == 4);
    CHECK(s.axis == 1);
    // Two coordinates per slab; borders between neighbours.
    CHECK(s.borders[1] == doctest::Approx(0.25));
    CHECK(s.borders[2] == doctest::Approx(0.5));
    CHECK(s.borders[3] == doctest::Approx(0.75));
    CHECK(s.rank_of(-5.0) == 0);
    CHECK(s.rank_of(0.26) == 1);
    CHECK(s.rank_of(0.7) == 2);
    CHECK(s.rank_of(100.0) == 3);
    CHECK(s.rank_of(std::nan("")) == 0);
    CHECK_NOTHROW(dist::check_slab_width(s, 0.0, 1.0, 0.2));
    CHECK_THROWS_WITH_AS(dist::check_slab_width(s, 0.0, 1.0, 0.3), doctest::Contains("thinner than the halo reach"),
                         UsageError);
    // Equal widths over [lo, hi], whatever the particles; open at both ends.
    const auto even = dist::slabs_by_width(0, -1.0, 3.0, 4);
    CHECK(even.axis == 0);
    CHECK(even.borders[1] == doctest::Approx(0.0));
    CHECK(even.borders[2] == doctest::Approx(1.0));
    CHECK(even.borders[3] == doctest::Approx(2.0));
    CHECK(even.rank_of(-50.0) == 0);
    CHECK(even.rank_of(50.0) == 3);
    // The longest open axis; -1 when all are periodic.
    CHECK(dist::slab_axis({0, 0, 0}, {3, 1, 2}, {false, false, false}) == 0);
    CHECK(dist::slab_axis({0, 0, 0}, {3, 1, 2}, {true, false, false}) == 2);
    CHECK(dist::slab_axis({0, 0, 0}, {3, 1, 2}, {true, true, true}) == -1);
    CHECK(dist::SlabDecomposition::whole(2).rank_of(7.0) == 0);
}

TEST_CASE("balance: borders move toward equal cost, damped, apart, within the counts") {
    // Cost only in [0, 0.5): two ranks' balanced border is at 0.25.
    dist::CostProfile p{0.0, 1.0, std::vector<double>(100, 0.0), std::vector<double>(100, 10.0)};
    for (int b = 0; b < 50; ++b) p.cost[std::size_t(b)] = 1.0;
    const dist::SlabDecomposition now = uniform_slabs(2);
    CHECK(dist::balance(now, p, {1.0, 0.0, 0.0}).borders[1] == doctest::Approx(0.25));
    CHECK(dist::balance(now, p, {0.5, 0.0, 0.0}).borders[1] == doctest::Approx(0.375));
    // Kept at least min_width from the profile's end.
    CHECK(dist::balance(now, p, {1.0, 0.4, 0.0}).borders[1] == doctest::Approx(0.4));
    // A slab would hold 750 of 1000 particles: more than 600 allowed, so the borders stay.
    CHECK(dist::balance(now, p, {1.0, 0.0, 600.0}).borders[1] == doctest::Approx(0.5));
    // At most 100 particles (10 a bin) may cross the border in one move: it stops 0.1 below 0.5
    // instead of going to 0.25, and reaches 0.25 over further moves, none moving more than 100.
    dist::SlabDecomposition moving = now;
    CHECK(dist::balance(moving, p, {1.0, 0.0, 0.0, 100.0}).borders[1] == doctest::Approx(0.4));
    for (int move = 0; move < 4; ++move) {
        const double before = moving.borders[1];
        moving = dist::balance(moving, p, {1.0, 0.0, 0.0, 100.0});
        CHECK((before - moving.borders[1]) * 1000.0 <= doctest::Approx(100.0));
    }
    CHECK(moving.borders[1] == doctest::Approx(0.25));
    // The cap does not hold a border back that moves less.
    CHECK(dist::balance(now, p, {0.5, 0.0, 0.0, 500.0}).borders[1] == doctest::Approx(0.375));
    // Four ranks, cost rising linearly: equal areas under the ramp (borders at sqrt(k/4)).
    for (int b = 0; b < 100; ++b) p.cost[std::size_t(b)] = b + 0.5;
    const auto four = dist::balance(uniform_slabs(4), p, {1.0, 0.0, 0.0});
    for (int k = 1; k < 4; ++k) CHECK(four.borders[std::size_t(k)] == doctest::Approx(std::sqrt(k / 4.0)).epsilon(0.01));
}

TEST_CASE("migration: every particle ends on its slab's rank, none lost, its fields with it") {
    Rank rank;
    dist::ParticleExchange exchange(rank.comm, rank.cpu, Rank::kCapacity, 1 << 20);
    const auto slabs = uniform_slabs(rank.comm.size());
    const std::uint64_t moved = bit(position) | bit(id) | bit(value);
    for (int round = 0; round < 2; ++round) {  // the second round: nothing moves
        rank.n = exchange.migrate(rank.exec, rank.table, rank.table.data<Vec3f>(position), rank.n, slabs, moved);
        const auto ids = rank.download<std::uint64_t>(id, 0, rank.n);
        const auto p = rank.download<Vec3f>(position, 0, rank.n);
        const auto v = rank.download<float>(value, 0, rank.n);
        for (std::size_t k = 0; k < rank.n; ++k) {
            CHECK(slabs.rank_of(p[k].x) == rank.comm.rank());
            CHECK(p[k].x == place(ids[k]).x);
            CHECK(p[k].z == place(ids[k]).z);
            CHECK(v[k] == value_of(ids[k]));
        }
        // Brute force: every rank's ids together are everyone's, each once.
        std::vector<std::uint64_t> all;
        for (const auto& part : rank.comm.allgatherv(std::as_bytes(std::span<const std::uint64_t>(ids)))) {
            const auto* q = reinterpret_cast<const std::uint64_t*>(part.data());
            all.insert(all.end(), q, q + part.size() / 8);
        }
        std::sort(all.begin(), all.end());
        auto expected = rank.everyone_ids();
        std::sort(expected.begin(), expected.end());
        CHECK(all == expected);
    }
    // The histogram of positions along x, bin by bin against the host's count: runs of equal
    // bins (rows sorted by x, as in cell order) and mixed bins, rows outside [lo, hi] in the end
    // bins, more rows than one block counts.
    const auto p = rank.download<Vec3f>(position, 0, rank.n);
    auto host_histogram = [](const std::vector<Vec3f>& rows, double lo, double hi, std::size_t bins) {
        std::vector<std::uint32_t> counts(bins, 0);
        for (const Vec3f& q : rows) {
            const double u = (double(q.x) - lo) * double(bins) / (hi - lo);
            ++counts[u <= 0.0 ? 0 : u >= double(bins - 1) ? bins - 1 : std::size_t(u)];
        }
        return counts;
    };
    CHECK(exchange.histogram(rank.exec, rank.table.data<Vec3f>(position), rank.n, 0, 0.0, 1.0, 64) ==
          host_histogram(p, 0.0, 1.0, 64));
    std::vector<Vec3f> many(5000 + 17);
    for (std::size_t k = 0; k < many.size(); ++k) many[k] = place(k + 1);
    std::sort(many.begin() + 1000, many.end(), [](Vec3f a, Vec3f b) { return a.x < b.x; });
    DeviceBuffer<Vec3f> rows(rank.cpu, many.size());
    rows.copy_from_host(many);
    for (const std::size_t bins : {std::size_t(1), std::size_t(7), std::size_t(4096), std::size_t(16384)})
        CHECK(exchange.histogram(rank.exec, rows.data(), many.size(), 0, 0.1, 0.9, bins) ==
              host_histogram(many, 0.1, 0.9, bins));
    CHECK_THROWS_AS(exchange.histogram(rank.exec, rows.data(), many.size(), 0, 0.0, 1.0, 16385), UsageError);
}

TEST_CASE("halo: the ghosts are exactly the other ranks' particles within reach, refreshed on demand") {
    Rank rank;
    dist::ParticleExchange exchange(rank.comm, rank.cpu, Rank::kCapacity, 1 << 20);
    const auto slabs = migrate_to_uniform_slabs(rank, exchange);
    const float reach = 0.07f;
    const Vec3f* p = rank.table.data<Vec3f>(position);
    const dist::Extent mine = exchange.extent(rank.exec, p, rank.n, 0);
    const std::size_t ghosts = exchange.plan_halo(rank.exec, p, rank.n, 0, reach, mine);
    CHECK(ghosts == exchange.ghosts());
    exchange.exchange_halo(rank.exec, rank.table, bit(position) | bit(id) | bit(value));
    exchange.unpack_halo(rank.exec, rank.table, rank.n);
    const auto ghost_ids = rank.download<std::uint64_t>(id, rank.n, ghosts);
    const auto ghost_p = rank.download<Vec3f>(position, rank.n, ghosts);
    const auto ghost_v = rank.download<float>(value, rank.n, ghosts);
    // Brute force: other ranks' particles (owner by slab) within reach of this rank's extent.
    const auto extents = rank.comm.allgather(mine);
    std::multiset<std::uint64_t> expected, got(ghost_ids.begin(), ghost_ids.end());
    for (const std::uint64_t i : rank.everyone_ids()) {
        const float x = place(i).x;
        const int owner = slabs.rank_of(x);
        if (owner == rank.comm.rank() || mine.empty()) continue;
        if (x >= mine.lo - reach && x <= mine.hi + reach) expected.insert(i);
    }
    CHECK(got == expected);
    for (std::size_t k = 0; k < ghosts; ++k) {
        CHECK(ghost_p[k].y == place(ghost_ids[k]).y);
        CHECK(ghost_v[k] == value_of(ghost_ids[k]));
        const int owner = slabs.rank_of(ghost_p[k].x);
        // The lower ranks' ghosts come first, all at or below ghosts_below().
        CHECK((owner < rank.comm.rank()) == (k < exchange.ghosts_from_below()));
        if (owner < rank.comm.rank()) CHECK(ghost_p[k].x <= exchange.ghosts_below());
        else CHECK(ghost_p[k].x >= exchange.ghosts_above());
    }
    // New values on the owners; a refresh of that field alone, into the ghosts in reversed order.
    std::vector<float> v = rank.download<float>(value, 0, rank.n);
    for (auto& x : v) x = -x;
    rank.table.upload(value, v.data(), rank.n);
    std::vector<std::uint32_t> reversed(ghosts);
    for (std::size_t k = 0; k < ghosts; ++k) reversed[k] = std::uint32_t(ghosts - 1 - k);
    exchange.exchange_halo(rank.exec, rank.table, bit(value));
    CHECK_THROWS_AS(exchange.received(rank.table, id), UsageError);  // not in the last exchange
    exchange.unpack_halo(rank.exec, rank.table, rank.n, reversed.data());
    const auto refreshed = rank.download<float>(value, rank.n, ghosts);
    for (std::size_t k = 0; k < ghosts; ++k) CHECK(refreshed[k] == -value_of(ghost_ids[ghosts - 1 - k]));
}

namespace {

// The ghosts of a plan: every other rank's particle within `reach` of this rank's extent must be
// among them; with `exact`, nothing else.
void check_ghosts(Rank& rank, dist::ParticleExchange& exchange, dist::Extent mine, float reach, bool exact,
                  float shift) {
    const std::size_t ghosts = exchange.ghosts();
    exchange.exchange_halo(rank.exec, rank.table, bit(id) | bit(position));
    exchange.unpack_halo(rank.exec, rank.table, rank.n);
    const auto ghost_ids = rank.download<std::uint64_t>(id, rank.n, ghosts);
    const auto ghost_p = rank.download<Vec3f>(position, rank.n, ghosts);
    std::multiset<std::uint64_t> expected, got(ghost_ids.begin(), ghost_ids.end());
    const auto slabs = uniform_slabs(rank.comm.size());
    for (const std::uint64_t i : rank.everyone_ids()) {
        const float x0 = place(i).x;
        if (slabs.rank_of(x0) == rank.comm.rank() || mine.empty()) continue;  // owned where it started
        const float x = x0 + shift;
        if (x >= mine.lo - reach && x <= mine.hi + reach) expected.insert(i);
    }
    if (exact) CHECK(got == expected);
    else CHECK(std::includes(got.begin(), got.end(), expected.begin(), expected.end()));
    for (std::size_t k = 0; k < ghosts; ++k) {
        CHECK(ghost_p[k].x == place(ghost_ids[k]).x + shift);
        // The lower ranks' ghosts within reach lie at or below ghosts_below().
        const bool below = k < exchange.ghosts_from_below();
        if (below && ghost_p[k].x <= mine.hi + reach) CHECK(ghost_p[k].x <= exchange.ghosts_below());
        if (!below && ghost_p[k].x >= mine.lo - reach) CHECK(ghost_p[k].x >= exchange.ghosts_above());
    }
}

}  // namespace

TEST_CASE("halo: later plans list against the last extents widened, in one all-gather, or list again") {
    Rank rank;
    dist::ParticleExchange exchange(rank.comm, rank.cpu, Rank::kCapacity, 1 << 20);
    const auto slabs = migrate_to_uniform_slabs(rank, exchange);
    const float reach = 0.07f;
    auto plan = [&](float shift) {
        // Every particle moved by `shift` along x from where it started.
        std::vector<Vec3f> p = rank.download<Vec3f>(position, 0, rank.n);
        const auto ids = rank.download<std::uint64_t>(id, 0, rank.n);
        for (std::size_t k = 0; k < rank.n; ++k) p[k].x = place(ids[k]).x + shift;
        rank.table.upload(position, p.data(), rank.n);
        const Vec3f* positions = rank.table.data<Vec3f>(position);
        // Where the last plan foresees the rows, as a grid built before the plan would take it.
        const dist::Extent window = exchange.window(slabs, reach);
        // Where the ghosts' bounds will be, foreseen alike (the halo overlap's interior rows).
        const auto foreseen = exchange.foreseen_ghost_bounds(slabs, reach);
        const dist::Extent mine = exchange.extent(rank.exec, positions, rank.n, 0);
        const auto calls = rank.comm.call_counts().collectives;
        exchange.plan_halo(rank.exec, positions, rank.n, 0, reach, window.empty() ? mine : window);
        const auto made = rank.comm.call_counts().collectives - calls;
        // The extent came back with the counts.
        CHECK(exchange.mine().lo == mine.lo);
        CHECK(exchange.mine().hi == mine.hi);
        return std::tuple{mine, made, foreseen};
    };
    const bool several = rank.comm.size() > 1;
    auto [first, first_calls, nothing_foreseen] = plan(0.0f);
    CHECK(first_calls == (several ? 2u : 0u));  // the extents, then the counts
    // Before the first plan nothing is foreseen: no row counts as interior.
    CHECK(nothing_foreseen.below > nothing_foreseen.above);
    check_ghosts(rank, exchange, first, reach, true, 0.0f);
    // A drift of a fortieth of the reach: the widened lists hold, one all-gather, and the
    // ghosts lie within the bounds foreseen.
    auto [drifted, drifted_calls, foreseen] = plan(reach / 40);
    CHECK(drifted_calls == (several ? 1u : 0u));
    CHECK(exchange.speculated_plans() == (several ? 1u : 0u));
    CHECK(exchange.ghosts_below() <= foreseen.below);
    CHECK(exchange.ghosts_above() >= foreseen.above);
    if (several && rank.comm.rank() > 0) CHECK(foreseen.below < drifted.hi);  // a bound, not "everything"
    if (several && rank.comm.rank() + 1 < rank.comm.size()) CHECK(foreseen.above > drifted.lo);
    check_ghosts(rank, exchange, drifted, reach, false, reach / 40);
    // A jump of the whole reach: every rank lists again against the new extents.
    auto [jumped, jumped_calls, jump_foreseen] = plan(reach / 40 + reach);
    (void)jump_foreseen;  // a jump past the windows: the foresight may fail (neighbor_pass recomputes)
    CHECK(jumped_calls == (several ? 2u : 0u));
    CHECK(exchange.speculated_plans() == (several ? 1u : 0u));
    check_ghosts(rank, exchange, jumped, reach, true, reach / 40 + reach);
}

TEST_CASE("capacity: a migration that would overflow a rank is an error on every rank") {
    Rank rank;
    if (rank.comm.size() == 1) return;  // one rank never migrates
    // Everything to the last rank, whose capacity holds less than all.
    dist::ParticleExchange exchange(rank.comm, rank.cpu, 200, 1 << 20);
    dist::SlabDecomposition last = uniform_slabs(rank.comm.size());
    for (std::size_t r = 1; r < last.borders.size() - 1; ++r) last.borders[r] = -1.0;
    const std::size_t n = std::min<std::size_t>(rank.n, 200);
    const std::string expected = "rank " + std::to_string(rank.comm.size() - 1) + ": migration would leave";
    CHECK_THROWS_WITH_AS(exchange.migrate(rank.exec, rank.table, rank.table.data<Vec3f>(position), n, last,
                                          bit(position) | bit(id) | bit(value)),
                         doctest::Contains(expected.c_str()), UsageError);
}

TEST_CASE("halo: lists from the cell layers of a grid are the lists from every row, along each axis") {
    for (int case_index = 0; case_index < 6; ++case_index) {
        const int axis = case_index % 3;
        const bool narrow = case_index >= 3;
        CAPTURE(axis);
        CAPTURE(narrow);
        Rank rank;
        dist::ParticleExchange exchange(rank.comm, rank.cpu, Rank::kCapacity, 1 << 20);
        const auto slabs = migrate_to_uniform_slabs(rank, exchange, axis);
        const float reach = 0.07f;
        Vec3f* p = rank.table.data<Vec3f>(position);
        const dist::Extent mine = exchange.extent(rank.exec, p, rank.n, axis);
        // The rows in the cell order of a grid of cells 0.05 m wide: 20 layers over [0, 1] along
        // the axis, a range within reach a few of them; across it 2 x 2 cells over [0, 0.1] (the
        // rows beyond in the edge cells), so that the layers hold fewer cells than the rank has
        // rows. Windowed along the axis to this rank's extent widened by the reach (as sph's
        // grid), or `narrow`ed to within 0.1 m of it, the rows beyond in the edge layers.
        frnn::GridSpec spec{.domain_min = {0, 0, 0}, .domain_max = {0.1f, 0.1f, 0.1f}, .radius = 0.05f};
        spec.domain_max[axis] = 1.0f;
        frnn::CellGrid grid(rank.cpu, spec, Rank::kCapacity);
        if (!narrow && !mine.empty()) grid.set_window(axis, mine.lo - reach, mine.hi + reach);
        if (narrow && !mine.empty() && mine.hi - mine.lo > 0.2f) grid.set_window(axis, mine.lo + 0.1f, mine.hi - 0.1f);
        grid.build(rank.exec, p, rank.n);
        std::vector<std::uint32_t> order(rank.n);
        rank.exec.copy_to_host(order.data(), grid.sorted_to_original(), rank.n * sizeof(std::uint32_t));
        const auto p0 = rank.download<Vec3f>(position, 0, rank.n);
        const auto ids0 = rank.download<std::uint64_t>(id, 0, rank.n);
        std::vector<Vec3f> sorted(rank.n);
        std::vector<std::uint64_t> sorted_ids(rank.n);
        for (std::size_t k = 0; k < rank.n; ++k) {
            sorted[k] = p0[order[k]];
            sorted_ids[k] = ids0[order[k]];
        }
        rank.table.upload(position, sorted.data(), rank.n);
        rank.table.upload(id, sorted_ids.data(), rank.n);
        const frnn::CellGridView g = grid.view();
        const dist::CellLayers layers{g.cell_start, {g.dims[0], g.dims[1], g.dims[2]}, g.origin[axis],
                                      g.inv_cell_size[axis]};
        // Two plans each (the first against the extents, the second against them widened): the
        // ghosts from the layers come in the same order as those from every row, and are every
        // other rank's particle within the reach of this rank's extent.
        dist::ParticleExchange every_row(rank.comm, rank.cpu, Rank::kCapacity, 1 << 20);
        auto ghost_ids = [&](dist::ParticleExchange& plan, const dist::CellLayers* cells) {
            const dist::Extent window = plan.window(slabs, reach);
            plan.plan_halo(rank.exec, p, rank.n, axis, reach, window.empty() ? mine : window, cells);
            plan.exchange_halo(rank.exec, rank.table, bit(id));
            plan.unpack_halo(rank.exec, rank.table, rank.n);
            return rank.download<std::uint64_t>(id, rank.n, plan.ghosts());
        };
        for (int round = 0; round < 2; ++round) {
            CAPTURE(round);
            const auto from_layers = ghost_ids(exchange, &layers);
            CHECK(from_layers == ghost_ids(every_row, nullptr));
            if (round > 0) continue;
            std::multiset<std::uint64_t> expected, got(from_layers.begin(), from_layers.end());
            for (const std::uint64_t i : rank.everyone_ids()) {
                const float x = place(i)[axis];
                if (slabs.rank_of(x) == rank.comm.rank() || mine.empty()) continue;
                if (x >= mine.lo - reach && x <= mine.hi + reach) expected.insert(i);
            }
            CHECK(got == expected);
        }
        // Every listing read the layers (a rank has a neighbour on each side or one).
        CHECK(exchange.cell_layer_listings() == (rank.comm.size() > 1 ? 2u : 0u));
        CHECK(every_row.cell_layer_listings() == 0u);
    }
}
