// Building an octree on a backend from host bodies and reading it back, for the tree tests; and a
// reference walk on the host with the classic per-body criterion.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/buffer.hpp"
#include "core/dispatch.hpp"
#include "core/memory.hpp"
#include "nbody/gravity.hpp"
#include "nbody/random.hpp"
#include "nbody/tree.hpp"

namespace partikel::nbody::testing {

struct HostTree {
    std::vector<Vec4f> bodies;  // curve order
    std::vector<std::uint32_t> order;
    std::vector<std::uint64_t> keys;
    std::vector<NodeLinks> links;
    std::vector<std::uint8_t> levels;
    std::vector<Vec4f> com, cube, quad;
    std::vector<float> qyz;
    std::vector<Vec4f> accel;  // from tree_forces, when walked
    std::uint64_t cells = 0, pairs = 0;
};

template <class T> std::vector<T> read(const Backend& b, const T* device, std::size_t count) {
    std::vector<T> host(count);
    copy_bytes(b, host.data(), device, count * sizeof(T), CopyDirection::device_to_host);
    return host;
}

inline BoundingBox box_of(const std::vector<Vec3d>& x) {
    BoundingBox box{{x[0].x, x[0].y, x[0].z}, {x[0].x, x[0].y, x[0].z}, 0};
    for (const Vec3d& p : x)
        for (int a = 0; a < 3; ++a) {
            box.lo[a] = std::min(box.lo[a], p[a]);
            box.hi[a] = std::max(box.hi[a], p[a]);
        }
    return box;
}

struct WalkOptions {
    bool walk = true;
    float theta = 0.5f;
    float softening = 0.0f;
    bool quadrupole = true;
    bool potential = false;
};

// Builds the tree of (x, m) on `backend` and, with options.walk, walks it.
inline HostTree build_tree(const Backend& backend, const std::vector<Vec3d>& x, const std::vector<double>& m,
                           int capacity, int depth, WalkOptions options = {}) {
    const std::size_t n = x.size();
    HostTree h;
    DeviceBuffer<BoundingBox> box(backend, 1);
    const BoundingBox host_box = box_of(x);
    box.copy_from_host(std::span<const BoundingBox>(&host_box, 1));
    DeviceBuffer<Vec3d> positions(backend, n);
    positions.copy_from_host(x);
    Octree tree(backend, n, capacity, depth);
    with_exec(backend, [&](const auto& e) {
        tree.compute_keys(e, box.data(), positions.data(), n);
        tree.sort_keys(e, n);
    });
    h.order = read(backend, tree.order(), n);
    h.keys = read(backend, tree.sorted_keys(), n);
    h.bodies.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        const Vec3d p = x[h.order[k]];
        h.bodies[k] = Vec4f{float(p.x), float(p.y), float(p.z), float(m[h.order[k]])};
    }
    DeviceBuffer<Vec4f> bodies(backend, n);
    bodies.copy_from_host(h.bodies);
    DeviceBuffer<Vec4f> accel(backend, n);
    DeviceBuffer<std::uint32_t> cells(backend, group_count(n)), pairs(backend, group_count(n));
    with_exec(backend, [&](const auto& e) {
        tree.build_nodes(e, box.data(), tree.sorted_keys(), n);
        tree.compute_multipoles(e, bodies.data());
        if (options.walk) {
            TreeWalk w;
            w.tree = tree.view();
            w.bodies = bodies.data();
            w.body_count = n;
            w.target_end = n;
            w.softening = options.softening;
            w.theta = options.theta;
            w.quadrupole = options.quadrupole;
            w.with_potential = options.potential;
            w.group_end = group_count(n);
            w.out = accel.data();
            w.cell_interactions = cells.data();
            w.body_interactions = pairs.data();
            tree_forces(e, w);
        }
    });
    const TreeView v = tree.view();
    const std::size_t nodes = v.node_count;
    h.links = read(backend, v.links, nodes);
    h.levels = read(backend, tree.node_levels(), nodes);
    h.com = read(backend, v.com_mass, nodes);
    h.cube = read(backend, v.cube, nodes);
    h.quad = read(backend, v.quad, nodes);
    h.qyz = read(backend, v.quad_yz, nodes);
    if (options.walk) {
        h.accel = accel.to_vector();
        for (auto c : cells.to_vector()) h.cells += c;
        for (auto p : pairs.to_vector()) h.pairs += p;
    }
    return h;
}

// Accelerations (a, phi) by direct summation in double on the host, G = 1.
inline std::vector<Vec4f> direct_reference(const std::vector<Vec4f>& b, float softening) {
    const double eps2 = softening2(softening);
    std::vector<Vec4f> out(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) {
        double ax = 0, ay = 0, az = 0, phi = 0;
        for (std::size_t j = 0; j < b.size(); ++j) {
            if (j == i) continue;
            const double dx = double(b[j].x) - b[i].x, dy = double(b[j].y) - b[i].y, dz = double(b[j].z) - b[i].z;
            const double r2 = dx * dx + dy * dy + dz * dz + eps2;
            const double rinv = 1.0 / std::sqrt(r2);
            const double s = b[j].w * rinv * rinv * rinv;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
            phi -= b[j].w * rinv;
        }
        out[i] = Vec4f{float(ax), float(ay), float(az), float(phi)};
    }
    return out;
}

inline double relative_error(Vec4f a, Vec4f ref) {
    const double ex = double(a.x) - ref.x, ey = double(a.y) - ref.y, ez = double(a.z) - ref.z;
    const double n = std::sqrt(double(ref.x) * ref.x + double(ref.y) * ref.y + double(ref.z) * ref.z);
    return std::sqrt(ex * ex + ey * ey + ez * ez) / n;
}

// Interactions of the classic walk: each body on its own, a cell used whole when l / d < theta
// with d the distance from the body to the cell's centre of mass.
inline std::uint64_t per_body_interactions(const HostTree& h, float theta) {
    std::uint64_t count = 0;
    for (const Vec4f& b : h.bodies) {
        std::uint32_t k = 0;
        while (k < h.links.size()) {
            const NodeLinks& node = h.links[k];
            const double dx = double(b.x) - h.com[k].x, dy = double(b.y) - h.com[k].y, dz = double(b.z) - h.com[k].z;
            const double l = 2.0 * h.cube[k].w;
            if (l * l < double(theta) * theta * (dx * dx + dy * dy + dz * dz)) {
                ++count;
                k = node.next;
            } else if (node.leaf()) {
                count += node.end() - node.begin;
                k = node.next;
            } else {
                ++k;
            }
        }
    }
    return count;
}

// The group walk of tree_impl.hpp written out plainly, body by body, in the kernel's float
// operations: groups of kGroupSize consecutive bodies; at node k each body's test
// (dx^2 + dy^2 + dz^2 > h^2 (2/theta)^2, and for theta > 1/sqrt(3) the body outside the cell's
// cube widened by 1.0001); the cell used whole when every body of the group passes, a leaf
// otherwise summed body by body, any other cell opened. Every body sums its interactions in the
// walk's order. Also counts the group's cells and pairs as the kernel does (per body), and
// gives per body the sum of the magnitudes of its terms, the scale of its rounding.
struct GroupWalkReference {
    std::vector<Vec4f> accel;
    std::vector<double> magnitude;
    std::uint64_t cells = 0, pairs = 0;
};

inline GroupWalkReference group_walk_reference(const HostTree& h, const WalkOptions& o) {
    const std::size_t n = h.bodies.size();
    const float eps2 = softening2(o.softening);
    const float open_factor = (2.0f / o.theta) * (2.0f / o.theta);
    const bool guard = o.theta * o.theta > 1.0f / 3.0f;
    GroupWalkReference r;
    r.accel.resize(n);
    r.magnitude.assign(n, 0.0);
    auto add = [&](std::size_t i, Vec3f& a, float& phi, auto term) {
        Vec3f d{0.0f, 0.0f, 0.0f};
        float p = 0.0f;
        term(d, p);
        r.magnitude[i] += std::sqrt(double(d.x) * d.x + double(d.y) * d.y + double(d.z) * d.z);
        term(a, phi);
    };
    for (std::size_t first = 0; first < n; first += kGroupSize) {
        const std::size_t end = std::min(n, first + kGroupSize);
        std::vector<Vec3f> a(end - first, Vec3f{0.0f, 0.0f, 0.0f});
        std::vector<float> phi(end - first, 0.0f);
        std::uint32_t k = 0;
        while (k < h.links.size()) {
            const NodeLinks& node = h.links[k];
            const Vec4f com = h.com[k];
            bool whole = true;
            for (std::size_t i = first; i < end; ++i) {
                const Vec4f b = h.bodies[i];
                const float dx = b.x - com.x, dy = b.y - com.y, dz = b.z - com.z;
                bool far = dx * dx + dy * dy + dz * dz > node.half * node.half * open_factor;
                const float reach = 1.0001f * h.cube[k].w;
                if (guard)
                    far = far && (std::fabs(b.x - h.cube[k].x) > reach || std::fabs(b.y - h.cube[k].y) > reach ||
                                  std::fabs(b.z - h.cube[k].z) > reach);
                whole = whole && far;
            }
            if (whole) {
                const Vec4f q = o.quadrupole ? h.quad[k] : Vec4f{0.0f, 0.0f, 0.0f, 0.0f};
                const float qyz = o.quadrupole ? h.qyz[k] : 0.0f;
                for (std::size_t i = first; i < end; ++i)
                    add(i, a[i - first], phi[i - first], [&](Vec3f& acc, float& p) {
                        if (o.potential) {
                            if (o.quadrupole) add_cell<true, true>(h.bodies[i], com, q, qyz, eps2, acc, p);
                            else add_cell<true, false>(h.bodies[i], com, q, qyz, eps2, acc, p);
                        } else {
                            if (o.quadrupole) add_cell<false, true>(h.bodies[i], com, q, qyz, eps2, acc, p);
                            else add_cell<false, false>(h.bodies[i], com, q, qyz, eps2, acc, p);
                        }
                    });
                r.cells += end - first;
                k = node.next;
            } else if (node.leaf()) {
                for (std::size_t i = first; i < end; ++i)
                    for (std::uint32_t j = node.begin; j < node.end(); ++j)
                        add(i, a[i - first], phi[i - first], [&](Vec3f& acc, float& p) {
                            if (o.potential) add_point_mass<true, float>(h.bodies[i], h.bodies[j], eps2, acc, p, j == i);
                            else add_point_mass<false, float>(h.bodies[i], h.bodies[j], eps2, acc, p, j == i);
                        });
                r.pairs += (end - first) * (node.end() - node.begin);
                k = node.next;
            } else {
                ++k;
            }
        }
        for (std::size_t i = first; i < end; ++i)
            r.accel[i] = Vec4f{a[i - first].x, a[i - first].y, a[i - first].z, o.potential ? phi[i - first] : 0.0f};
    }
    return r;
}

// Positions: uniform in the unit cube, or a Plummer-like cluster (r ~ 1/sqrt(u^-2/3 - 1)).
inline std::vector<Vec3d> uniform_cube(std::size_t n, std::uint64_t seed) {
    std::vector<Vec3d> x(n);
    Random r(seed, 0);
    for (auto& p : x) p = Vec3d{r.uniform(), r.uniform(), r.uniform()};
    return x;
}

inline std::vector<Vec3d> cluster(std::size_t n, std::uint64_t seed) {
    std::vector<Vec3d> x(n);
    Random r(seed, 0);
    for (auto& p : x) {
        const double radius = 1.0 / std::sqrt(std::pow(r.uniform_positive() * 0.99, -2.0 / 3.0) - 1.0);
        const double z = 2.0 * r.uniform() - 1.0, phi = 6.283185307179586 * r.uniform();
        const double s = std::sqrt(1.0 - z * z);
        p = Vec3d{radius * s * std::cos(phi), radius * s * std::sin(phi), radius * z};
    }
    return x;
}

}  // namespace partikel::nbody::testing
