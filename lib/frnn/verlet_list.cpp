#include "frnn/verlet_list.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.hpp"
#include "core/dispatch.hpp"

namespace partikel::frnn {

namespace {

GridSpec registration_grid(const VerletSpec& spec) {
    if (!(spec.skin > 0) || !std::isfinite(spec.skin))
        throw UsageError("frnn: the Verlet skin must be positive and finite, got " + std::to_string(spec.skin));
    GridSpec g = spec.grid;
    g.radius = spec.grid.radius + spec.skin;
    return g;
}

ListOptions original_indices(ListOptions o) {
    o.indices = IndexSpace::original;
    return o;
}

}  // namespace

VerletList::VerletList(const Backend& backend, const VerletSpec& spec, std::size_t max_particles, std::size_t capacity)
    : spec_(spec),
      grid_(backend, registration_grid(spec), max_particles),
      list_(backend, max_particles, capacity, original_indices(spec.list)),
      reference_(backend, std::max<std::size_t>(max_particles, 1)),
      largest_displacement2_(backend, 1) {
    spec_.list = original_indices(spec.list);
    const std::size_t slots = std::max<std::size_t>(max_particles, 1);
    const std::size_t scratch = with_exec(backend, [&](const auto& e) { return scratch_bytes(e, slots); });
    workspace_.reserve(backend, std::max<std::size_t>(scratch, 256));
}

void VerletList::build(const Vec3f* positions, std::size_t n) {
    with_exec(grid_.backend(), [&](const auto& e) { build(e, positions, n); });
}

float VerletList::max_displacement(const Vec3f* positions) {
    return with_exec(grid_.backend(), [&](const auto& e) { return max_displacement(e, positions); });
}

bool VerletList::update(const Vec3f* positions, std::size_t n) {
    return with_exec(grid_.backend(), [&](const auto& e) { return update(e, positions, n); });
}

VerletView VerletList::view() const {
    return {list_.view(), make_box(spec_.grid), spec_.grid.radius * spec_.grid.radius};
}

}  // namespace partikel::frnn
