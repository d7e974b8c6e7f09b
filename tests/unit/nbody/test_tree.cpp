// The octree built on the device from sorted Morton keys (nbody/tree.hpp): the pre-order layout
// and its next links, leaves and the capacity rule, cells that contain their bodies, multipoles
// equal to sums over the bodies, and the group walk against direct summation; on random,
// clustered and degenerate inputs, on every backend.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "support/backends.hpp"
#include "tree_fixture.hpp"

using namespace partikel;
using namespace partikel::nbody;
using namespace partikel::nbody::testing;

namespace {

int levels_shared(std::uint64_t a, std::uint64_t b) {
    for (int level = kMaxTreeDepth; level > 0; --level)
        if ((a >> (63 - 3 * level)) == (b >> (63 - 3 * level))) return level;
    return 0;
}

// Every structural property of a built tree; returns the number of leaves.
std::size_t check_structure(const HostTree& h, int capacity, int depth) {
    const std::size_t n = h.bodies.size(), nodes = h.links.size();
    REQUIRE(nodes >= 1);
    CHECK(h.links[0].begin == 0);
    CHECK(h.links[0].end() == n);
    CHECK(h.levels[0] == 0);
    CHECK(h.links[0].next == nodes);
    std::vector<int> covered(n, 0);
    std::size_t leaves = 0;
    for (std::size_t k = 0; k < nodes; ++k) {
        CAPTURE(k);
        const NodeLinks& node = h.links[k];
        REQUIRE(node.begin < node.end());
        REQUIRE(node.end() <= n);
        const std::uint32_t count = node.end() - node.begin;
        // All bodies of a cell share its key prefix; the bodies just outside do not.
        for (std::uint32_t i = node.begin; i < node.end(); ++i) CHECK(levels_shared(h.keys[node.begin], h.keys[i]) >= h.levels[k]);
        if (node.begin > 0) CHECK(levels_shared(h.keys[node.begin - 1], h.keys[node.begin]) < h.levels[k]);
        if (node.end() < n) CHECK(levels_shared(h.keys[node.end() - 1], h.keys[node.end()]) < h.levels[k]);
        // The skip link: the node after the subtree begins where this one ends.
        REQUIRE(node.next > k);
        REQUIRE(node.next <= nodes);
        if (node.next < nodes) CHECK(h.links[node.next].begin == node.end());
        for (std::size_t d = k + 1; d < node.next; ++d) {
            CHECK(h.levels[d] > h.levels[k]);
            CHECK(h.links[d].begin >= node.begin);
            CHECK(h.links[d].end() <= node.end());
        }
        if (node.leaf()) {
            ++leaves;
            CHECK(node.next == k + 1);
            CHECK((count <= std::uint32_t(capacity) || h.levels[k] == depth));
            for (std::uint32_t i = node.begin; i < node.end(); ++i) ++covered[i];
        } else {
            CHECK(count > std::uint32_t(capacity));
            CHECK(h.levels[k] < depth);
            // Children partition the cell's bodies, in order, one level down.
            std::uint32_t expected = node.begin;
            for (std::uint32_t c = std::uint32_t(k) + 1; c < node.next; c = h.links[c].next) {
                CHECK(h.levels[c] == h.levels[k] + 1);
                CHECK(h.links[c].begin == expected);
                expected = h.links[c].end();
            }
            CHECK(expected == node.end());
        }
        // The cube holds its bodies (to float rounding of the cube's centre and edge).
        const Vec4f cube = h.cube[k];
        CHECK(node.half == cube.w);
        const float slack = 1e-5f * (std::fabs(cube.x) + std::fabs(cube.y) + std::fabs(cube.z) + cube.w);
        for (std::uint32_t i = node.begin; i < node.end(); ++i) {
            CHECK(std::fabs(h.bodies[i].x - cube.x) <= cube.w + slack);
            CHECK(std::fabs(h.bodies[i].y - cube.y) <= cube.w + slack);
            CHECK(std::fabs(h.bodies[i].z - cube.z) <= cube.w + slack);
        }
    }
    for (std::size_t i = 0; i < n; ++i) CHECK(covered[i] == 1);
    return leaves;
}

// Mass, centre of mass and traceless quadrupole of every node against sums over its bodies in double.
void check_multipoles(const HostTree& h) {
    for (std::size_t k = 0; k < h.links.size(); ++k) {
        CAPTURE(k);
        const NodeLinks& node = h.links[k];
        double m = 0, mx = 0, my = 0, mz = 0;
        for (std::uint32_t i = node.begin; i < node.end(); ++i) {
            const Vec4f b = h.bodies[i];
            m += b.w;
            mx += b.w * double(b.x);
            my += b.w * double(b.y);
            mz += b.w * double(b.z);
        }
        CHECK(h.com[k].w == doctest::Approx(m).epsilon(1e-5));
        const double cx = mx / m, cy = my / m, cz = mz / m;
        const double size = 2.0 * h.cube[k].w;
        CHECK(std::fabs(h.com[k].x - cx) <= 1e-5 * size + 1e-6 * std::fabs(cx));
        CHECK(std::fabs(h.com[k].y - cy) <= 1e-5 * size + 1e-6 * std::fabs(cy));
        CHECK(std::fabs(h.com[k].z - cz) <= 1e-5 * size + 1e-6 * std::fabs(cz));
        double q[5] = {0, 0, 0, 0, 0};  // xx, yy, xy, xz, yz
        for (std::uint32_t i = node.begin; i < node.end(); ++i) {
            const Vec4f b = h.bodies[i];
            const double dx = b.x - cx, dy = b.y - cy, dz = b.z - cz, d2 = dx * dx + dy * dy + dz * dz;
            q[0] += b.w * (3 * dx * dx - d2);
            q[1] += b.w * (3 * dy * dy - d2);
            q[2] += b.w * 3 * dx * dy;
            q[3] += b.w * 3 * dx * dz;
            q[4] += b.w * 3 * dy * dz;
        }
        const double scale = 1e-4 * m * size * size;  // float sums over up to 8 levels
        CHECK(std::fabs(h.quad[k].x - q[0]) <= scale);
        CHECK(std::fabs(h.quad[k].y - q[1]) <= scale);
        CHECK(std::fabs(h.quad[k].z - q[2]) <= scale);
        CHECK(std::fabs(h.quad[k].w - q[3]) <= scale);
        CHECK(std::fabs(h.qyz[k] - q[4]) <= scale);
    }
}

std::vector<double> masses(std::size_t n, std::uint64_t seed) {
    std::vector<double> m(n);
    Random r(seed, 1);
    for (auto& v : m) v = 0.5 + r.uniform();  // unequal masses: the centre of mass is not the centroid
    return m;
}

void tree_structure(const Backend& backend) {
    struct Case {
        const char* name;
        std::vector<Vec3d> x;
        int capacity;
        int depth;
    };
    std::vector<Case> cases;
    cases.push_back({"uniform cube", uniform_cube(3000, 1), 32, 21});
    cases.push_back({"cluster", cluster(3000, 2), 32, 21});
    cases.push_back({"cluster, capacity 1", cluster(500, 3), 1, 21});
    cases.push_back({"cluster, depth cap 3", cluster(2000, 4), 8, 3});
    std::vector<Vec3d> coincident = uniform_cube(200, 5);
    for (int i = 0; i < 100; ++i) coincident.push_back(Vec3d{0.25, 0.5, 0.75});  // more than a leaf holds
    cases.push_back({"100 coincident bodies", coincident, 32, 21});
    cases.push_back({"one body", {Vec3d{1.0, 2.0, 3.0}}, 32, 21});
    cases.push_back({"exactly a leaf", uniform_cube(32, 6), 32, 21});
    cases.push_back({"a leaf and one", uniform_cube(33, 7), 32, 21});
    for (const Case& c : cases) {
        CAPTURE(std::string(c.name));
        const HostTree h = build_tree(backend, c.x, masses(c.x.size(), 9), c.capacity, c.depth, {.walk = false});
        const std::size_t leaves = check_structure(h, c.capacity, c.depth);
        if (c.depth == kMaxTreeDepth) CHECK(leaves >= (c.x.size() + c.capacity - 1) / c.capacity);
        check_multipoles(h);
    }
}

// With a tiny opening angle the walk is nearly a direct sum; at theta = 0.5 quadrupoles beat
// monopoles; the group walk never does fewer interactions than the per-body walk (it opens every
// cell the per-body walk opens) and, along the Morton curve, not many more.
void tree_forces_vs_direct(const Backend& backend) {
    const std::vector<Vec3d> x = cluster(4000, 11);
    const std::vector<double> m = masses(x.size(), 12);
    const float eps = 0.01f;
    const HostTree exactish = build_tree(backend, x, m, 16, 21, {.theta = 0.05f, .softening = eps, .potential = true});
    const std::vector<Vec4f> ref = direct_reference(exactish.bodies, eps);
    double worst = 0, worst_phi = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        worst = std::max(worst, relative_error(exactish.accel[i], ref[i]));
        worst_phi = std::max(worst_phi, std::fabs(double(exactish.accel[i].w) - ref[i].w) / std::fabs(ref[i].w));
    }
    MESSAGE("theta 0.05: max relative force error ", worst, ", potential ", worst_phi);
    CHECK(worst < 2e-4);
    CHECK(worst_phi < 2e-5);

    auto median_error = [&](const HostTree& h) {
        std::vector<double> e(ref.size());
        for (std::size_t i = 0; i < ref.size(); ++i) e[i] = relative_error(h.accel[i], ref[i]);
        std::nth_element(e.begin(), e.begin() + e.size() / 2, e.end());
        return e[e.size() / 2];
    };
    const HostTree quad = build_tree(backend, x, m, 32, 21, {.theta = 0.5f, .softening = eps, .quadrupole = true});
    const HostTree mono = build_tree(backend, x, m, 32, 21, {.theta = 0.5f, .softening = eps, .quadrupole = false});
    const double e_quad = median_error(quad), e_mono = median_error(mono);
    MESSAGE("theta 0.5: median relative error quadrupole ", e_quad, ", monopole ", e_mono);
    CHECK(e_quad < 1e-3);
    CHECK(e_quad < 0.5 * e_mono);
    const std::uint64_t group = quad.cells + quad.pairs, single = per_body_interactions(quad, 0.5f);
    MESSAGE("interactions per body: group walk ", double(group) / x.size(), ", per-body walk ", double(single) / x.size());
    CHECK(group >= single);
    CHECK(group < 3 * single);
}

// The walk against the same group walk written out plainly (group_walk_reference): the same
// cells and pairs, and forces within rounding, for theta below and above 1/sqrt(3) (the cube
// guard), with and without quadrupoles and potentials, a last group of 25 bodies and softening
// 0. The CPU kernel runs the reference's operations in its order (only the bodies' lanes are
// vectorised), so there the difference is 0 (measured); the GPU contracts multiply-adds and
// takes an approximate 1/sqrt (2 ulp), each term within a few ulp, so the sums stay within
// 1e-5 of the magnitudes summed.
void tree_walk_vs_reference(const Backend& backend) {
    const std::vector<Vec3d> x = cluster(3001, 21);
    const std::vector<double> m = masses(x.size(), 22);
    const WalkOptions cases[] = {{.theta = 0.5f, .softening = 0.01f, .quadrupole = true, .potential = true},
                                 {.theta = 0.5f, .softening = 0.0f, .quadrupole = false, .potential = false},
                                 {.theta = 0.8f, .softening = 0.01f, .quadrupole = true, .potential = false},
                                 {.theta = 0.8f, .softening = 0.0f, .quadrupole = false, .potential = true}};
    for (const WalkOptions& o : cases) {
        CAPTURE(o.theta);
        CAPTURE(o.quadrupole);
        CAPTURE(o.potential);
        const HostTree h = build_tree(backend, x, m, 32, 21, o);
        const GroupWalkReference ref = group_walk_reference(h, o);
        CHECK(h.cells == ref.cells);
        CHECK(h.pairs == ref.pairs);
        double worst = 0, worst_phi = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            const double ex = double(h.accel[i].x) - ref.accel[i].x, ey = double(h.accel[i].y) - ref.accel[i].y,
                         ez = double(h.accel[i].z) - ref.accel[i].z;
            worst = std::max(worst, std::sqrt(ex * ex + ey * ey + ez * ez) / ref.magnitude[i]);
            if (o.potential)
                worst_phi = std::max(worst_phi, std::fabs(double(h.accel[i].w) - ref.accel[i].w) / std::fabs(ref.accel[i].w));
        }
        MESSAGE("theta ", o.theta, ": largest difference from the plain group walk, force ", worst, ", potential ",
                worst_phi);
        CHECK(worst < 1e-5);
        CHECK(worst_phi < 1e-5);
        if (backend.is_cpu()) {
            CHECK(worst == 0.0);
            CHECK(worst_phi == 0.0);
        }
    }
}

}  // namespace

PK_BACKEND_TEST("nbody.tree: pre-order nodes, leaves, cubes and multipoles", tree_structure)
PK_BACKEND_TEST("nbody.tree: the group walk against direct summation", tree_forces_vs_direct)
PK_BACKEND_TEST("nbody.tree: the walk equals the group walk written out plainly", tree_walk_vs_reference)

TEST_CASE("nbody.tree: node bound and bad sizes") {
    // 1 000 bodies, capacity 32: 1 000 leaves at most plus 1 + 8 + 30 * 19 internal cells.
    CHECK(Octree::max_nodes(1000, 32, 21) == 1000 + 1 + 8 + 30 * 19);
    CHECK(Octree::max_nodes(10, 32, 21) == 10);
    CHECK_THROWS_AS(Octree(Backend::cpu(1), 0, 32, 21), UsageError);
    CHECK_THROWS_AS(Octree(Backend::cpu(1), 10, 32, 22), UsageError);
}
