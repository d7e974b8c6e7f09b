// Sort-last shares (render/io/frame_particles.hpp): a rank that reads the frame itself keeps
// exactly the share rank 0 would have cut and sent it, in pinned memory as on the heap.
// FrameParticles reads one group's positions in place and copies where it must. The pinned
// column pool (run/pinned_columns.hpp) allocates in a sequence's first frames only.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "base/error.hpp"
#include "formats/frame.hpp"
#include "render/io/frame_particles.hpp"
#include "run/pinned_columns.hpp"

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
    const auto pool = std::make_shared<run::PinnedColumns>(Backend::cpu(1));
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
                const fmt::Frame pinned = io::slab_share(all, ranks, r, halo_m, pool);
                check_same(pinned, mine);
                for (const fmt::Group& pg : pinned.groups())
                    for (const fmt::Column& c : pg.columns()) CHECK(c.raw().data() != nullptr);
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

namespace {
// A frame of a fluid group and two wall groups, positions from `rng` (f32, or f64 for the walls).
fmt::Frame three_groups(std::mt19937& rng, std::size_t fluid, const std::shared_ptr<fmt::ColumnMemory>& memory = {}) {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    fmt::Frame f;
    fmt::Group& g = f.add_group("fluid", fluid);
    auto xyz = g.add_column(fmt::Column::uninitialized("position", ScalarType::f32, 3, fluid, {}, memory)).values<float>();
    for (float& x : xyz) x = u(rng);
    auto& walls = f.add_group("walls", 40);
    for (double& x : walls.add_column("position", ScalarType::f64, 3).values<double>()) x = u(rng);
    auto& floor = f.add_group("floor", 30);
    for (float& x : floor.add_column("position", ScalarType::f32, 3).values<float>()) x = -u(rng);
    return f;
}

std::vector<Vec3f> as_vector(std::span<const Vec3f> s) { return {s.begin(), s.end()}; }
bool same(std::span<const Vec3f> a, std::span<const Vec3f> b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}
}  // namespace

TEST_CASE("FrameParticles reads one group's f32 positions in place, and copies several groups or skipped ones") {
    std::mt19937 rng(3);
    fmt::Frame frame = three_groups(rng, 500);
    io::ParticleSelection fluid;  // fluid style: the fluid, and every other group as opaque
    io::FrameParticles particles;
    particles.load(frame, fluid, 0);
    const auto xyz = frame.group("fluid").at("position").values<float>();
    FrameInput in = particles.input();
    // In place: the renderer uploads from the column the reader decoded.
    CHECK(static_cast<const void*>(in.particles.position.data()) == static_cast<const void*>(xyz.data()));
    REQUIRE(in.particles.position.size() == 500);
    // Two opaque groups (one f64): copied, in order.
    REQUIRE(in.opaque.position.size() == 70);
    const auto walls = frame.group("walls").at("position");
    CHECK(in.opaque.position[0].x == float(walls.as_double(0, 0)));
    CHECK(in.opaque.position[40].x == frame.group("floor").at("position").values<float>()[0]);
    const std::vector<Vec3f> in_place = as_vector(in.particles.position);

    // A non-finite position: left out, so the rest is a copy (and counted).
    xyz[3 * 7 + 1] = std::numeric_limits<float>::infinity();
    particles.load(frame, fluid, 1);
    in = particles.input();
    CHECK(particles.skipped() == 1);
    REQUIRE(in.particles.position.size() == 499);
    CHECK(static_cast<const void*>(in.particles.position.data()) != static_cast<const void*>(xyz.data()));
    std::vector<Vec3f> expected = in_place;
    expected.erase(expected.begin() + 7);
    CHECK(same(in.particles.position, expected));

    // One opaque group named: in place too; the fluid's positions equal what a copy would hold.
    xyz[3 * 7 + 1] = 0.5f;
    io::ParticleSelection floor_only;
    floor_only.opaque_groups = {"floor"};
    particles.load(frame, floor_only, 2);
    in = particles.input();
    CHECK(static_cast<const void*>(in.opaque.position.data()) ==
          static_cast<const void*>(frame.group("floor").at("position").values<float>().data()));
    // Points over every group: three groups, one part, copied in order; bounds see them all.
    io::ParticleSelection points;
    points.style = Style::points;
    particles.load(frame, points, 3);
    in = particles.input();
    REQUIRE(in.particles.position.size() == 570);
    CHECK(in.particles.position[499].y == xyz[3 * 499 + 1]);
    CHECK(in.particles.position[500].x == float(walls.as_double(0, 0)));
    Vec3f lo, hi;
    REQUIRE(particles.bounds(lo, hi));
    CHECK(lo.x < 0.0f);  // the floor's
    // A position beyond 1e18 m is refused in place as in a copy.
    xyz[0] = 2e18f;
    CHECK_THROWS_AS(particles.load(frame, fluid, 4), FormatError);
    CHECK(io::FrameParticles::reads(fluid, "fluid", "position"));
    CHECK(!io::FrameParticles::reads(fluid, "fluid", "velocity"));
    points.colour = "velocity.x";
    points.radius = "size";
    CHECK(io::FrameParticles::reads(points, "fluid", "velocity"));
    CHECK(io::FrameParticles::reads(points, "fluid", "size"));
    CHECK(!io::FrameParticles::reads(points, "fluid", "density"));
}

TEST_CASE("the pinned column pool allocates in a sequence's first frames only, and grows for a larger frame") {
    std::mt19937 rng(5);
    const auto pool = std::make_shared<run::PinnedColumns>(
        Backend::cpu(1), [](std::string_view, std::string_view column) { return column == "position"; });
    CHECK(pool->wants("fluid", "position"));
    CHECK(!pool->wants("fluid", "velocity"));
    // Frames one ahead of the one in use, as splat-render's reading thread keeps them.
    std::optional<fmt::Frame> current, ahead = three_groups(rng, 1000, pool);
    for (int frame = 0; frame < 6; ++frame) {
        current = std::move(ahead);
        ahead = three_groups(rng, 1000, pool);
        if (frame == 1) CHECK(pool->allocations() == 2);  // two frames alive at once: two blocks
    }
    CHECK(pool->allocations() == 2);
    CHECK(pool->blocks() == 2);
    // A larger frame grows a free block (1/8 to spare); one a little larger again fits it.
    current.reset();
    ahead.reset();
    current = three_groups(rng, 1500, pool);
    CHECK(pool->allocations() == 3);
    CHECK(pool->blocks() == 2);
    current = three_groups(rng, 1600, pool);  // assigned before the old one goes: the other block grows
    current.reset();
    const std::uint64_t settled = pool->allocations();
    for (int frame = 0; frame < 4; ++frame) current = three_groups(rng, 1600, pool);
    CHECK(pool->allocations() == settled);
    CHECK(pool->bytes() >= 2 * 1600 * 12);
    // A copy of a pooled column lives on the heap; a moved one keeps its block.
    const fmt::Column copy = current->group("fluid").at("position");
    CHECK(copy.raw().data() != current->group("fluid").at("position").raw().data());
    CHECK(std::equal(copy.raw().begin(), copy.raw().end(), current->group("fluid").at("position").raw().begin()));
}
