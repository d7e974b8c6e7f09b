// Sort-last shares (render/io/frame_particles.hpp): a rank that reads the frame itself keeps
// exactly the share rank 0 would have cut and sent it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "base/error.hpp"
#include "formats/frame.hpp"
#include "render/io/frame_particles.hpp"

using namespace partikel;
using namespace partikel::render;

namespace {
// Every column of both frames' groups, bit for bit.
void check_same(const fmt::Frame& a, const fmt::Frame& b) {
    REQUIRE(a.groups().size() == b.groups().size());
    for (std::size_t g = 0; g < a.groups().size(); ++g) {
        const fmt::Group& x = a.groups()[g];
        const fmt::Group& y = b.groups()[g];
        CHECK(x.name() == y.name());
        REQUIRE(x.count() == y.count());
        REQUIRE(x.columns().size() == y.columns().size());
        for (std::size_t c = 0; c < x.columns().size(); ++c) {
            CHECK(x.columns()[c].name() == y.columns()[c].name());
            const auto bx = x.columns()[c].raw(), by = y.columns()[c].raw();
            REQUIRE(bx.size() == by.size());
            CHECK(std::equal(bx.begin(), bx.end(), by.begin()));
        }
    }
}
}  // namespace

TEST_CASE("slab_share equals split_by_slabs' share of every rank, halo or none") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<Vec3f> position(5000), opaque(300);
    std::vector<float> value(position.size()), radius(position.size());
    for (auto& p : position) p = {3.0f * u(rng), u(rng), 0.5f * u(rng)};  // longest along x
    for (auto& p : opaque) p = {3.0f * u(rng), -0.1f, 0.5f * u(rng)};
    for (std::size_t i = 0; i < value.size(); ++i) {
        value[i] = u(rng);
        radius[i] = 0.01f + 0.01f * u(rng);
    }
    const FrameInput all{.particles = {.position = position, .radius_m = radius, .value = value},
                         .opaque = {.position = opaque}};
    for (const float halo_m : {0.0f, 0.05f})
        for (const int ranks : {1, 2, 3, 4}) {
            const std::vector<fmt::Frame> shares = io::split_by_slabs(all, ranks, halo_m);
            REQUIRE(shares.size() == std::size_t(ranks));
            std::uint64_t owned = 0;
            for (int r = 0; r < ranks; ++r) {
                CAPTURE(halo_m);
                CAPTURE(ranks);
                CAPTURE(r);
                const fmt::Frame mine = io::slab_share(all, ranks, r, halo_m);
                check_same(mine, shares[std::size_t(r)]);
                const fmt::Group& g = mine.groups()[0];
                if (const fmt::Column* h = g.find("halo")) {
                    for (const std::uint8_t flag : h->values<std::uint8_t>()) owned += flag == 0;
                } else {
                    owned += g.count();
                }
            }
            CHECK(owned == position.size());  // each particle drawn by exactly one rank
        }
    CHECK_THROWS_AS(io::slab_share(all, 2, 2, 0.0f), UsageError);
}
