// Verlet lists: exact at r while every particle moved less than skin / 2, rebuilt (and
// reported) once one moved further, no allocation in update().
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "core/buffer.hpp"
#include "core/dispatch.hpp"
#include "core/memory.hpp"
#include "frnn/brute_force.hpp"
#include "frnn/verlet_list.hpp"
#include "inputs.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::frnn;

namespace {

// Neighbour counts through the Verlet list equal the brute-force counts at `positions`.
bool counts_match(const Backend& b, const VerletList& verlet, const std::vector<Vec3f>& positions,
                  const DeviceBuffer<Vec3f>& pos, float radius) {
    const std::size_t n = positions.size();
    DeviceBuffer<std::uint32_t> counts(b, n);
    with_exec(b, [&](const auto& e) { count_neighbors(e, verlet.view(), pos.data(), n, counts.data()); });
    const auto got = counts.to_vector();
    const auto want = brute_force_neighbors(positions, make_box(verlet.spec().grid), radius);
    for (std::size_t i = 0; i < n; ++i)
        if (got[i] != want.row(i).size()) return false;
    return true;
}

void verlet_body(const Backend& b) {
    for (int mask : {0, 7}) {
        for (ListLayout layout : {ListLayout::csr, ListLayout::strided}) {
            CAPTURE(mask);
            CAPTURE(layout == ListLayout::strided);
            auto in = testing::jittered_lattice(12, 12, 10, 71);
            const std::size_t n = in.positions.size();
            VerletSpec spec;
            spec.grid = testing::spec_for(in, 1, mask);
            spec.skin = 0.1f;  // m, with r = 0.3
            spec.list.layout = layout;
            spec.list.shape = SearchShape::sphere;
            VerletList verlet(b, spec, n, layout == ListLayout::csr ? n * 400 : 400);
            DeviceBuffer<Vec3f> pos(b, n);
            pos.copy_from_host(in.positions);
            CHECK(verlet.update(pos.data(), n));  // first call builds
            CHECK(verlet.builds() == 1);
            CHECK(counts_match(b, verlet, in.positions, pos, in.radius));

            // Every particle moves by less than skin / 2: the list is reused and stays exact.
            std::mt19937 rng(5);
            std::uniform_real_distribution<float> u(-1.0f, 1.0f);
            std::uint64_t allocations = 0;  // inside update() only
            for (int step = 0; step < 3; ++step) {
                for (auto& p : in.positions) {
                    Vec3f d{u(rng), u(rng), u(rng)};
                    const float len = norm(d);
                    if (len > 0) p += d * (0.016f / len);  // 3 steps: at most 0.048 < skin / 2
                }
                pos.copy_from_host(in.positions);
                const auto before = device_allocation_count();
                CHECK_FALSE(verlet.update(pos.data(), n));
                allocations += device_allocation_count() - before;
                CHECK(verlet.last_max_displacement() <= 0.05f);
                CHECK(verlet.last_max_displacement() > 0.0f);
                CHECK(counts_match(b, verlet, in.positions, pos, in.radius));
            }
            CHECK(allocations == 0);
            CHECK(verlet.builds() == 1);

            // One particle moves beyond skin / 2: rebuilt, reported, exact again.
            in.positions[n / 2].x += 0.15f;
            pos.copy_from_host(in.positions);
            CHECK(verlet.max_displacement(pos.data()) > 0.05f);
            const auto before = device_allocation_count();
            CHECK(verlet.update(pos.data(), n));
            CHECK(device_allocation_count() == before);
            CHECK(verlet.builds() == 2);
            CHECK(verlet.last_max_displacement() > 0.05f);
            CHECK(counts_match(b, verlet, in.positions, pos, in.radius));
            CHECK(verlet.max_displacement(pos.data()) == 0.0f);
        }
    }
}

}  // namespace

PK_BACKEND_TEST("frnn.verlet: reuse within skin/2, rebuild beyond, exact at r", verlet_body)

TEST_CASE("frnn.verlet: a skin is required") {
    VerletSpec spec;
    spec.grid.domain_max = {1, 1, 1};
    spec.grid.radius = 0.1f;
    CHECK_THROWS_AS(VerletList(Backend::cpu(1), spec, 10, 100), UsageError);
}
