// The SPH pair loop's neighbour lists (lib/sph/neighbor_pass.hpp): a pass that reads the lists a
// searching pass wrote visits the same neighbours in the same order as a search, so its sums are
// the same bits; with a skin, the lists hold the grid's radius and the passes sum only the pairs
// within the pair radius; a particle whose list overflowed, or which the writing pass did not
// search, is searched again. Random particles in a box periodic on two axes (minimum images).
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/buffer.hpp"
#include "frnn/cell_grid.hpp"
#include "sph/neighbor_pass.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

// Sums that depend on the visiting order (a float recurrence) and the neighbour count.
struct OrderProbe {
    static constexpr int kMinBlocksPerSM = 1;
    const Vec4f* position_mass;
    float* ordered;
    std::uint32_t* found;
    std::uint32_t skip_every;  // > 0: every skip_every-th particle does not interact
    struct Particle {
        Vec3f r;
        std::uint32_t index;
    };
    struct Sums {
        float ordered;
        std::uint32_t count;
    };
    Particle load(std::size_t a) const { return {position_mass[a].xyz(), static_cast<std::uint32_t>(a)}; }
    bool interacts(const Particle& a) const { return skip_every == 0 || a.index % skip_every != 0; }
    void pair(const Particle&, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f&, Sums& s) const {
        s.ordered = s.ordered * 1.001f + r2 + 1e-3f * float(b) + r_ab.x;
        s.count += 1;
    }
    void finish(std::size_t a, const Particle&, const Sums& s) const {
        ordered[a] = s.ordered;
        found[a] = s.count;
    }
};

}  // namespace

TEST_CASE("neighbour lists: reading passes give the searching pass's bits, a skin is listed not summed, overflow searches again") {
    const Backend cpu = Backend::cpu(1);
    const std::size_t n = 3000;
    frnn::GridSpec spec;
    spec.domain_min = {0.0f, 0.0f, 0.0f};
    spec.domain_max = {1.0f, 1.0f, 1.0f};
    spec.radius = 0.1f;
    spec.boundary = {frnn::Boundary::periodic, frnn::Boundary::open, frnn::Boundary::periodic};
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<Vec3f> positions(n);
    for (auto& p : positions) p = {u(rng), u(rng), u(rng)};
    frnn::CellGrid grid(cpu, spec, n);
    grid.build(positions.data(), n);
    const frnn::CellGridView view = grid.view();
    std::vector<Vec4f> records(n);
    for (std::size_t a = 0; a < n; ++a) records[a] = {view.positions[a].x, view.positions[a].y, view.positions[a].z, 1.0f};

    auto run = [&](NeighborLists lists, ListUse use, std::uint32_t skip_every) {
        std::vector<float> ordered(n);
        std::vector<std::uint32_t> found(n);
        const NeighborPass<OrderProbe> pass{view, records.data(),
                                            OrderProbe{records.data(), ordered.data(), found.data(), skip_every}, lists, use};
        for (std::size_t a = 0; a < n; ++a) pass(a);
        return std::make_pair(ordered, found);
    };
    const auto searched = run({}, ListUse::none, 0);
    std::uint32_t most = 0;
    for (auto c : searched.second) most = std::max(most, c);
    REQUIRE(most > 8);  // about 4 neighbours on average (3000 * 4/3 pi 0.1^3), some lists overflow below

    for (std::uint32_t capacity : {most, 8u, 0u}) {
        CAPTURE(capacity);
        std::vector<std::uint32_t> count(n), index(std::size_t{capacity} * n + 1);
        const NeighborLists lists{count.data(), index.data(), capacity, n};
        const auto written = run(lists, ListUse::write, 0);
        const auto read = run(lists, ListUse::read, 0);
        std::size_t overflowed = 0;
        for (std::size_t a = 0; a < n; ++a) {
            CHECK(count[a] == searched.second[a]);
            overflowed += count[a] > capacity;
        }
        if (capacity == most) CHECK(overflowed == 0);
        if (capacity == 8u) CHECK(overflowed > 0);
        CHECK(written == searched);
        CHECK(read == searched);  // bit for bit, the overflowed particles searched again
    }

    // A skin: lists of the grid's radius 0.1, pairs summed to 0.08 only: the same pairs as a
    // search of radius 0.08 (its sums in another order: counts equal, sums close).
    {
        frnn::GridSpec near = spec;
        near.radius = 0.08f;
        frnn::CellGrid near_grid(cpu, near, n);
        near_grid.build(positions.data(), n);
        const frnn::CellGridView nv = near_grid.view();
        std::vector<Vec4f> near_records(n);
        for (std::size_t a = 0; a < n; ++a) near_records[a] = {nv.positions[a].x, nv.positions[a].y, nv.positions[a].z, 1.0f};
        std::vector<float> near_sum(n);
        std::vector<std::uint32_t> near_found(n);
        const NeighborPass<OrderProbe> near_pass{nv, near_records.data(),
                                                 OrderProbe{near_records.data(), near_sum.data(), near_found.data(), 0}};
        for (std::size_t a = 0; a < n; ++a) near_pass(a);
        std::vector<std::uint32_t> count(n), index(std::size_t{most} * n);
        NeighborLists lists{count.data(), index.data(), most, n};
        lists.pair_radius2 = 0.08f * 0.08f;
        run(lists, ListUse::write, 0);
        const auto read = run(lists, ListUse::read, 0);
        // Both in cell order of their own grids: compare per particle through the positions.
        std::vector<std::size_t> near_of(n);
        for (std::size_t a = 0; a < n; ++a)
            for (std::size_t b = 0; b < n; ++b)
                if (nv.positions[b].x == view.positions[a].x && nv.positions[b].y == view.positions[a].y &&
                    nv.positions[b].z == view.positions[a].z)
                    near_of[a] = b;
        for (std::size_t a = 0; a < n; ++a) {
            CHECK(read.second[a] == near_found[near_of[a]]);
            CHECK(count[a] >= read.second[a]);
        }
    }

    // Particles the writing pass did not search are marked and searched by the readers.
    std::vector<std::uint32_t> count(n), index(std::size_t{most} * n);
    const NeighborLists lists{count.data(), index.data(), most, n};
    run(lists, ListUse::write, 5);
    for (std::size_t a = 0; a < n; a += 5) CHECK(count[a] == NeighborLists::kUnlisted);
    CHECK(run(lists, ListUse::read, 0) == searched);
}
