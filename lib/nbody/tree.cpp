#include "nbody/tree.hpp"

#include <algorithm>
#include <string>

#include "base/error.hpp"
#include "core/dispatch.hpp"

namespace partikel::nbody {

std::size_t Octree::max_nodes(std::size_t bodies, int leaf_capacity, int max_depth) {
    const std::size_t internal_per_level = bodies / (std::size_t(leaf_capacity) + 1);
    std::size_t internal = 0, cells = 1;  // cells: 8^level, until it exceeds the per-level bound
    for (int level = 0; level < max_depth; ++level) {
        internal += std::min(cells, internal_per_level);
        if (cells < internal_per_level) cells *= 8;
    }
    return std::max<std::size_t>(bodies, 1) + internal;
}

Octree::Octree(const Backend& backend, std::size_t max_bodies, int leaf_capacity, int max_depth)
    : backend_(backend),
      max_bodies_(max_bodies),
      max_nodes_(max_nodes(max_bodies, leaf_capacity, max_depth)),
      leaf_capacity_(leaf_capacity),
      max_depth_(max_depth) {
    if (max_bodies == 0 || max_bodies >= (std::size_t{1} << 31))
        throw UsageError("nbody: a tree holds 1 .. 2^31 - 1 bodies, asked for " + std::to_string(max_bodies));
    if (leaf_capacity < 1 || max_depth < 1 || max_depth > kMaxTreeDepth)
        throw UsageError("nbody: bad tree leaf capacity or depth cap");
    keys_ = DeviceBuffer<std::uint64_t>(backend, max_bodies);
    sorted_keys_ = DeviceBuffer<std::uint64_t>(backend, max_bodies);
    index_ = DeviceBuffer<std::uint32_t>(backend, max_bodies);
    order_ = DeviceBuffer<std::uint32_t>(backend, max_bodies);
    window_levels_ = DeviceBuffer<std::uint8_t>(backend, max_bodies);
    leaf_level_ = DeviceBuffer<std::uint8_t>(backend, max_bodies);
    node_offset_ = DeviceBuffer<std::uint32_t>(backend, max_bodies + 1);
    com_mass_ = DeviceBuffer<Vec4f>(backend, max_nodes_);
    cube_ = DeviceBuffer<Vec4f>(backend, max_nodes_);
    quad_ = DeviceBuffer<Vec4f>(backend, max_nodes_);
    links_ = DeviceBuffer<NodeLinks>(backend, max_nodes_);
    node_level_ = DeviceBuffer<std::uint8_t>(backend, max_nodes_);
    quad_yz_ = DeviceBuffer<float>(backend, max_nodes_);
    const std::size_t scratch = with_exec(backend, [&](const auto& e) { return scratch_bytes(e, max_bodies); });
    workspace_.reserve(backend, std::max<std::size_t>(scratch, 256));
}

TreeView Octree::view() const {
    TreeView v;
    v.com_mass = com_mass_.data();
    v.cube = cube_.data();
    v.links = links_.data();
    v.quad = quad_.data();
    v.quad_yz = quad_yz_.data();
    v.node_count = static_cast<std::uint32_t>(node_count_);
    return v;
}

std::size_t Octree::device_bytes() const {
    return keys_.bytes() + sorted_keys_.bytes() + index_.bytes() + order_.bytes() + window_levels_.bytes() +
           leaf_level_.bytes() + node_offset_.bytes() + com_mass_.bytes() + cube_.bytes() + quad_.bytes() +
           links_.bytes() + node_level_.bytes() + quad_yz_.bytes() + workspace_.size();
}

}  // namespace partikel::nbody
