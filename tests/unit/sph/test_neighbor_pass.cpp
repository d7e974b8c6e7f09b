// The SPH pair loop's neighbour lists (lib/sph/neighbor_pass.hpp): a pass that reads the lists a
// searching pass wrote visits the same neighbours in the same order as a search, so its sums are
// the same bits; with a skin, the lists hold the grid's radius and the passes sum only the pairs
// within the pair radius; a particle whose list overflowed, or which the writing pass did not
// search, is searched again. Random particles in a box periodic on two axes (minimum images).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <type_traits>
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

// n points uniform in the unit cube (the same for the same seed), in a cell grid of `radius`
// with the given faces, and their neighbour records in the grid's cell order with w = weight(a).
struct RandomCloud {
    frnn::CellGrid grid;
    frnn::CellGridView view;
    std::vector<Vec4f> records;
    template <class Weight>
    RandomCloud(const Backend& cpu, std::size_t n, float radius, const std::array<frnn::Boundary, 3>& faces,
                unsigned seed, Weight weight)
        : grid(cpu, spec(radius, faces), n), records(n) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        std::vector<Vec3f> positions(n);
        for (auto& p : positions) p = {u(rng), u(rng), u(rng)};
        grid.build(positions.data(), n);
        view = grid.view();
        for (std::size_t a = 0; a < n; ++a)
            records[a] = {view.positions[a].x, view.positions[a].y, view.positions[a].z, weight(a)};
    }
    static frnn::GridSpec spec(float radius, const std::array<frnn::Boundary, 3>& faces) {
        frnn::GridSpec g;
        g.domain_min = {0.0f, 0.0f, 0.0f};
        g.domain_max = {1.0f, 1.0f, 1.0f};
        g.radius = radius;
        g.boundary = faces;
        return g;
    }
};

}  // namespace

TEST_CASE("neighbour lists: reading passes give the searching pass's bits, a skin is listed not summed, overflow searches again") {
    const Backend cpu = Backend::cpu(1);
    const std::size_t n = 3000;
    const std::array<frnn::Boundary, 3> faces{frnn::Boundary::periodic, frnn::Boundary::open, frnn::Boundary::periodic};
    const auto unit_weight = [](std::size_t) { return 1.0f; };
    const RandomCloud cloud(cpu, n, 0.1f, faces, 7, unit_weight);
    const frnn::CellGridView& view = cloud.view;
    const std::vector<Vec4f>& records = cloud.records;

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
        const RandomCloud near(cpu, n, 0.08f, faces, 7, unit_weight);  // the same points
        const frnn::CellGridView& nv = near.view;
        const std::vector<Vec4f>& near_records = near.records;
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

namespace {

// A pair body in the halves of BatchedPairs (the pairs with an even b only), whose sums record
// the order they were added in; Scalar hides the halves, so that the pass runs pair() instead.
struct LaneProbe {
    static constexpr int kMinBlocksPerSM = 1;
    const Vec4f* position_mass;
    float* sum;
    float* largest;
    std::uint32_t* found;
    struct Particle {
        Vec3f r;
        std::uint32_t index;
    };
    struct Sums {
        float sum;
        float largest;
        std::uint32_t count;
        void add(const Sums& o) {
            sum = sum * 1.001f + o.sum;  // order-dependent
            largest = std::max(largest, o.largest);
            count += o.count;
        }
    };
    Particle load(std::size_t a) const { return {position_mass[a].xyz(), static_cast<std::uint32_t>(a)}; }
    bool interacts(const Particle&) const { return true; }
    bool pairs(const Particle& a, std::uint32_t b, float) const { return b % 2 == 0 && b != a.index; }
    void pair_terms(const Particle&, std::uint32_t b, Vec3f r_ab, float r2, float w_b, Sums& s) const {
        s.sum = s.sum * 1.001f + r2 + 1e-3f * float(b) + r_ab.x * w_b;
        s.largest = r2 > s.largest ? r2 : s.largest;
        s.count += 1;
    }
    void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b, Sums& s) const {
        if (pairs(a, b, record_b.w)) pair_terms(a, b, r_ab, r2, record_b.w, s);
    }
    void finish(std::size_t a, const Particle&, const Sums& s) const {
        sum[a] = s.sum;
        largest[a] = s.largest;
        found[a] = s.count;
    }
};

struct ScalarLaneProbe {
    static constexpr int kMinBlocksPerSM = 1;
    LaneProbe probe;
    using Particle = LaneProbe::Particle;
    using Sums = LaneProbe::Sums;
    Particle load(std::size_t a) const { return probe.load(a); }
    bool interacts(const Particle& a) const { return probe.interacts(a); }
    void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b, Sums& s) const {
        probe.pair(a, b, r_ab, r2, record_b, s);
    }
    void finish(std::size_t a, const Particle& self, const Sums& s) const { probe.finish(a, self, s); }
};

}  // namespace

TEST_CASE("batched pairs on the CPU: the pairs that pass, lane l summing pairs l, l + 8, ..., the lanes in order") {
    static_assert(BatchedPairs<LaneProbe> && !BatchedPairs<ScalarLaneProbe>);
    constexpr int kLanes = NeighborBatch<LaneProbe>::kLanes;
    const Backend cpu = Backend::cpu(1);
    const std::size_t n = 4000;
    const RandomCloud cloud(cpu, n, 0.12f, {frnn::Boundary::periodic, frnn::Boundary::open, frnn::Boundary::open}, 11,
                            [](std::size_t a) { return a % 3 == 0 ? -2.0f : 0.5f; });
    const frnn::CellGridView& view = cloud.view;
    const std::vector<Vec4f>& records = cloud.records;

    struct Result {
        std::vector<float> sum, largest;
        std::vector<std::uint32_t> found;
        bool operator==(const Result&) const = default;
    };
    auto run = [&](auto tag, NeighborLists lists, ListUse use) {
        Result r{std::vector<float>(n), std::vector<float>(n), std::vector<std::uint32_t>(n)};
        const LaneProbe probe{records.data(), r.sum.data(), r.largest.data(), r.found.data()};
        using Interaction = typename decltype(tag)::type;
        Interaction interaction;
        if constexpr (std::is_same_v<Interaction, LaneProbe>)
            interaction = probe;
        else
            interaction = Interaction{probe};
        const NeighborPass<Interaction> pass{view, records.data(), interaction, lists, use};
        for (std::size_t a = 0; a < n; ++a) pass(a);
        return r;
    };
    // Every neighbour in the search's order, from a scalar pass's lists.
    std::uint32_t capacity = 0;
    {
        std::vector<std::uint32_t> count(n);
        for (std::size_t a = 0; a < n; ++a)
            frnn::for_each_neighbor_record(view, records.data(), view.positions[a],
                                           [&](std::uint32_t, Vec3f, float, const Vec4f&) { ++count[a]; });
        for (auto c : count) capacity = std::max(capacity, c);
    }
    std::vector<std::uint32_t> count(n), index(std::size_t{capacity} * n);
    const NeighborLists lists{count.data(), index.data(), capacity, n};
    const Result scalar = run(std::type_identity<ScalarLaneProbe>{}, lists, ListUse::write);
    const Result batched = run(std::type_identity<LaneProbe>{}, {}, ListUse::none);

    std::size_t full_batches = 0;
    for (std::size_t a = 0; a < n; ++a) {
        // The lanes written out: pair k of those that pass goes to lane k % 8; a last partial
        // batch into sums of its own, added to its lanes.
        const Vec3f p = view.positions[a];
        LaneProbe probe{records.data(), nullptr, nullptr, nullptr};
        const LaneProbe::Particle self = probe.load(a);
        LaneProbe::Sums lanes[kLanes]{}, last[kLanes]{};
        std::uint32_t k = 0;
        std::vector<std::uint32_t> passing;
        for (std::uint32_t i = 0; i < count[a]; ++i) {
            const std::uint32_t b = index[std::size_t{i} * n + a];
            if (probe.pairs(self, b, records[b].w)) passing.push_back(b);
        }
        const std::uint32_t in_full = std::uint32_t(passing.size()) / kLanes * kLanes;
        full_batches += in_full / kLanes;
        for (std::uint32_t b : passing) {
            const Vec3f r_ab = view.box.displacement(p, records[b].xyz());
            LaneProbe::Sums& s = k < in_full ? lanes[k % kLanes] : last[k % kLanes];
            probe.pair_terms(self, b, r_ab, frnn::distance2(r_ab), records[b].w, s);
            ++k;
        }
        for (std::uint32_t l = 0; l < k - in_full; ++l) lanes[l].add(last[l]);
        LaneProbe::Sums expected = lanes[0];
        for (int l = 1; l < kLanes; ++l) expected.add(lanes[l]);
        CAPTURE(a);
        CHECK(batched.found[a] == scalar.found[a]);
        CHECK(batched.found[a] == passing.size());
        CHECK(batched.largest[a] == scalar.largest[a]);
        CHECK(batched.sum[a] == expected.sum);  // bit for bit
    }
    CHECK(full_batches > n);  // most particles fill several batches
    // The batched pass reading the lists gives the bits of its search.
    CHECK(run(std::type_identity<LaneProbe>{}, lists, ListUse::read) == batched);
}
