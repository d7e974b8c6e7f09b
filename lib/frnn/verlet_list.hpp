// Verlet lists (Verlet 1967; measured in docs/PERFORMANCE.md, "Neighbour search"): neighbours registered within R_C = r + skin, reused for
// several steps, rebuilt when the largest displacement since the build exceeds skin / 2 (then
// no pair can have come from beyond R_C to within r). Rows and entries are original particle
// indices, so kernels keep their own particle order between rebuilds.
//
//   frnn::VerletList verlet(backend, {.grid = spec /* radius = r */, .skin = 0.1f * r}, n_max, n_max * 160);
//   verlet.update(d_positions, n);   // every step: rebuilds only when needed (no allocation)
//   auto v = verlet.view();          // by value into kernels:
//   frnn::for_each_neighbor(v, d_positions, a, [&](std::uint32_t b, Vec3f r_ab, float r2) { ... });
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/backend.hpp"
#include "frnn/cell_grid.hpp"
#include "frnn/neighbor_list.hpp"

namespace partikel::frnn {

struct VerletSpec {
    GridSpec grid;        // radius: the interaction radius r (m); the grid is built with r + skin
    float skin = 0;       // m, > 0
    ListOptions list{};   // shape, layout, order (the index space is always original)
};

// Trivially copyable; passed by value into kernels.
struct VerletView {
    NeighborListView list;
    Box box;
    float radius2;  // m^2, r^2 (the interaction radius, not r + skin)
};

// Calls f(j, r_ij, r2) for every registered j of particle i with r2 <= r^2 at the current
// positions (original order, the array given to update()).
template <class F>
PK_DEVICE_INLINE void for_each_neighbor(const VerletView& v, const Vec3f* positions, std::uint32_t i, F&& f) {
    const Vec3f p = positions[i];
    const std::uint32_t count = v.list.size(i);
    for (std::uint32_t s = 0; s < count; ++s) {
        const std::uint32_t j = v.list.at(i, s);
        const Vec3f r_ij = v.box.displacement(p, positions[j]);
        const float r2 = distance2(r_ij);
        if (r2 <= v.radius2) f(j, r_ij, r2);
    }
}

// counts[i] = neighbours of particle i (original order) within r at `positions`, through the
// list: the cost of one reuse step of the list (backend memory).
// counts[i] = neighbours of particle i within r through the list (backend memory).
template <class Exec>
void count_neighbors(const Exec& exec, const VerletView& view, const Vec3f* positions, std::size_t n,
                     std::uint32_t* counts);

class VerletList {
public:
    // capacity: list entries (CSR) or entries per particle (strided), as NeighborList.
    VerletList(const Backend& backend, const VerletSpec& spec, std::size_t max_particles, std::size_t capacity);

    // Build the grid (radius r + skin) and the list now; remember the positions.
    template <class Exec> void build(const Exec& exec, const Vec3f* positions, std::size_t n);
    // Largest displacement (m) of any particle since the last build (a device reduction and one
    // value read back). Minimum image on periodic axes.
    template <class Exec> float max_displacement(const Exec& exec, const Vec3f* positions);
    // Rebuild when nothing is built yet, n changed, or max_displacement > skin / 2. Returns true
    // when it rebuilt.
    template <class Exec> bool update(const Exec& exec, const Vec3f* positions, std::size_t n);
    // The same on the list's backend, for host code.
    void build(const Vec3f* positions, std::size_t n);
    float max_displacement(const Vec3f* positions);
    bool update(const Vec3f* positions, std::size_t n);

    VerletView view() const;
    const CellGrid& grid() const { return grid_; }
    const NeighborList& list() const { return list_; }
    NeighborList& list() { return list_; }
    const VerletSpec& spec() const { return spec_; }
    std::uint64_t builds() const { return builds_; }                           // rebuilds so far
    float last_max_displacement() const { return last_max_displacement_; }     // m, from the last update()

    // Scratch bytes of the displacement reduction (verlet_list_impl.hpp).
    template <class Exec> static std::size_t scratch_bytes(const Exec& exec, std::size_t n);

private:
    VerletSpec spec_;
    CellGrid grid_;
    NeighborList list_;
    DeviceBuffer<Vec3f> reference_;
    DeviceBuffer<float> largest_displacement2_;  // device scalar
    Workspace workspace_;
    std::size_t n_ = 0;
    bool built_ = false;
    std::uint64_t builds_ = 0;
    float last_max_displacement_ = 0;
};

}  // namespace partikel::frnn
