// The Verlet list's update and queries, instantiated by verlet_list_cpu.cpp and verlet_list_cuda.cu.
#pragma once

#include <cmath>

#include "core/buffer.hpp"
#include "core/memory.hpp"
#include "base/hd.hpp"
#include "core/reduce_ops.hpp"
#include "core/workspace.hpp"
#include "frnn/verlet_list.hpp"

namespace partikel::frnn {

namespace kernels {
// |x_i - x_ref_i|^2 (minimum image).
struct Displacement2 {
    const Vec3f* positions;
    const Vec3f* reference;
    Box box;
    PK_HD float operator()(std::size_t i) const { return distance2(box.displacement(positions[i], reference[i])); }
};

struct CountVerletNeighbors {
    VerletView view;
    const Vec3f* positions;
    std::uint32_t* counts;
    PK_HD void operator()(std::size_t i) const {
        std::uint32_t found = 0;
        for_each_neighbor(view, positions, static_cast<std::uint32_t>(i), [&](std::uint32_t, Vec3f, float) { ++found; });
        counts[i] = found;
    }
};
}  // namespace kernels

template <class Exec>
void count_neighbors(const Exec& exec, const VerletView& view, const Vec3f* positions, std::size_t n,
                     std::uint32_t* counts) {
    exec.for_each(n, kernels::CountVerletNeighbors{view, positions, counts}, "frnn.verlet.count");
}

template <class Exec> std::size_t VerletList::scratch_bytes(const Exec& exec, std::size_t n) {
    return exec.template reduce_scratch_bytes<float, MaxOp>(n);
}

template <class Exec> void VerletList::build(const Exec& exec, const Vec3f* positions, std::size_t n) {
    built_ = false;
    grid_.build(exec, positions, n);
    list_.build(exec, grid_);
    if (n) copy_bytes(exec.backend(), reference_.data(), positions, n * sizeof(Vec3f), CopyDirection::device_to_device);
    n_ = n;
    built_ = true;
    last_max_displacement_ = 0;
    ++builds_;
}

template <class Exec> float VerletList::max_displacement(const Exec& exec, const Vec3f* positions) {
    if (!built_ || n_ == 0) return 0.0f;
    exec.transform_reduce(workspace_, n_, kernels::Displacement2{positions, reference_.data(), make_box(spec_.grid)},
                          MaxOp{}, 0.0f, largest_displacement2_.data());
    return std::sqrt(exec.read_value(largest_displacement2_.data()));
}

template <class Exec> bool VerletList::update(const Exec& exec, const Vec3f* positions, std::size_t n) {
    if (built_ && n == n_) {
        last_max_displacement_ = max_displacement(exec, positions);
        // A NaN displacement also rebuilds (and the grid puts NaN positions in cell 0).
        if (last_max_displacement_ <= 0.5f * spec_.skin) return false;
    }
    const float d = built_ && n == n_ ? last_max_displacement_ : 0.0f;
    build(exec, positions, n);
    last_max_displacement_ = d;
    return true;
}

// The family's instantiations, once per backend (verlet_list_cpu.cpp, verlet_list_cuda.cu).
#define PK_FRNN_VERLET_LIST_INSTANTIATE(Exec)                                                                  \
    template void count_neighbors(const Exec&, const VerletView&, const Vec3f*, std::size_t, std::uint32_t*); \
    template std::size_t VerletList::scratch_bytes(const Exec&, std::size_t);                                \
    template void VerletList::build(const Exec&, const Vec3f*, std::size_t);                                 \
    template float VerletList::max_displacement(const Exec&, const Vec3f*);                                  \
    template bool VerletList::update(const Exec&, const Vec3f*, std::size_t);

}  // namespace partikel::frnn
