// dist::NodeSharedSegments on any number of ranks: alone (one rank, the default suite) and under
// `mpirun -np 2` and `-np 4` on one host (label mpi), where the segments are MPI shared windows.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "dist/communicator.hpp"
#include "dist/node_shared_segments.hpp"

using namespace partikel;
using dist::Communicator;
using dist::NodeSharedSegments;

namespace {

// The byte at `i` of part `part` of `rank`'s `gather`-th gather: differs between all four.
std::byte pattern(int rank, int gather, int part, std::size_t i) {
    return std::byte((i * 131 + std::size_t(rank) * 29 + std::size_t(gather) * 7 + std::size_t(part) * 3) & 0xff);
}

// Part sizes that vary with the rank and the gather (the sizes travel with each gather): an
// always-empty part, a small odd one and one of several copy pieces.
constexpr std::size_t kCapacity[] = {0, 37, (std::size_t{24} << 20) + 13};
std::size_t part_bytes(int rank, int gather, int part) {
    if (part == 0) return 0;
    if (part == 1) return kCapacity[1] - std::size_t((rank + gather) % 3);
    return kCapacity[2] - std::size_t(gather) * 1000 - std::size_t(rank);
}

}  // namespace

TEST_CASE("node shared segments: every rank's pattern on the root, windows reused only after the root released them") {
    const Communicator c = Communicator::world();
    auto shared = NodeSharedSegments::allocate(c, kCapacity, 2);
    // Test ranks run on one host.
    REQUIRE(shared.has_value());
    CHECK(shared->windows() == 2);
    CHECK(shared->root() == c.root());
    // The root's parts are never copied: it owns no shared memory.
    CHECK(shared->segment_bytes() == (c.root() ? 0 : 2 * (64 + kCapacity[2] + 64)));

    constexpr int kGathers = 6;
    std::vector<std::vector<std::byte>> data(3);
    for (int g = 0; g < kGathers; ++g) {
        for (int p = 0; p < 3; ++p) {
            data[std::size_t(p)].resize(part_bytes(c.rank(), g, p));
            for (std::size_t i = 0; i < data[std::size_t(p)].size(); ++i) data[std::size_t(p)][i] = pattern(c.rank(), g, p, i);
        }
        const std::vector<std::span<const std::byte>> parts(data.begin(), data.end());
        const int window = g % 2;
        const auto all = shared->gather(window, parts);
        if (!c.root()) {
            CHECK(all.empty());
            // The other ranks go on at once; they may not refill this window before the root
            // released it, however long the root takes.
            shared->release(window);
            continue;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        REQUIRE(all.size() == std::size_t(c.size()));
        for (int r = 0; r < c.size(); ++r) {
            REQUIRE(all[std::size_t(r)].size() == 3);
            for (int p = 0; p < 3; ++p) {
                const auto got = all[std::size_t(r)][std::size_t(p)];
                REQUIRE(got.size() == part_bytes(r, g, p));
                std::size_t wrong = 0;
                for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != pattern(r, g, p, i);
                CHECK_MESSAGE(wrong == 0, "rank ", r, " gather ", g, " part ", p);
                // In the shared segments (the root's own parts are its vectors), on cache lines.
                if (p > 0 && r != 0) CHECK(reinterpret_cast<std::uintptr_t>(got.data()) % 64 == 0);
            }
        }
        // Its own parts are the ones it passed.
        CHECK(all[0][2].data() == data[2].data());
        shared->release(window);
    }
}

TEST_CASE("node shared segments: a part larger than its segment is an error on its rank, before anything is sent") {
    const Communicator c = Communicator::world();
    const std::size_t capacity[] = {16, 1000};
    auto shared = NodeSharedSegments::allocate(c, capacity, 1);
    REQUIRE(shared.has_value());
    std::vector<std::byte> small(16), big(1001);
    // The same mistake on every rank (no rank waits for another that threw).
    std::vector<std::span<const std::byte>> parts{small, big};
    const std::string expected = "part 1 of rank " + std::to_string(c.rank()) + " holds 1001 bytes";
    CHECK_THROWS_WITH_AS(shared->gather(0, parts), doctest::Contains(expected.c_str()), UsageError);
    std::vector<std::span<const std::byte>> one{small};
    CHECK_THROWS_AS(shared->gather(0, one), UsageError);
    CHECK_THROWS_AS(shared->gather(1, parts), UsageError);
    // Nothing was sent: the window still works.
    parts[1] = std::span<const std::byte>(big).first(1000);
    big[999] = std::byte(c.rank() + 1);
    const auto all = shared->gather(0, parts);
    if (c.root())
        for (int r = 0; r < c.size(); ++r) CHECK(all[std::size_t(r)][1][999] == std::byte(r + 1));
    shared->release(0);
}

TEST_CASE("node shared segments on one rank: the parts themselves, no shared memory") {
    const std::size_t capacity[] = {8};
    auto shared = NodeSharedSegments::allocate(Communicator::single(), capacity, 2);
    REQUIRE(shared.has_value());
    CHECK(shared->root());
    CHECK(shared->segment_bytes() == 0);
    std::vector<std::byte> bytes(8, std::byte{5});
    const std::vector<std::span<const std::byte>> parts{bytes};
    for (int g = 0; g < 3; ++g) {
        const auto all = shared->gather(g % 2, parts);
        REQUIRE(all.size() == 1);
        CHECK(all[0][0].data() == bytes.data());
        shared->release(g % 2);
    }
    CHECK_THROWS_AS(NodeSharedSegments::allocate(Communicator::single(), capacity, 0), UsageError);
}
