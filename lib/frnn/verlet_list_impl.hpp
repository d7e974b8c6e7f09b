// Displacement reduction of the Verlet list, instantiated by verlet_list.cpp and .cu.
#pragma once

#include "core/buffer.hpp"
#include "core/launch.hpp"
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
void count_verlet_neighbors_with(const Exec& exec, const VerletView& view, const Vec3f* positions, std::size_t n,
                                 std::uint32_t* counts) {
    exec.for_each(n, kernels::CountVerletNeighbors{view, positions, counts}, "frnn.verlet.count");
}

template <class Exec>
void max_displacement2_with(const Exec& exec, Workspace& ws, const Vec3f* positions, const Vec3f* reference, const Box& box,
                            std::size_t n, float* out) {
    exec.transform_reduce(ws, n, kernels::Displacement2{positions, reference, box}, MaxOp{}, 0.0f, out);
}

template <class Exec> std::size_t max_displacement2_scratch(const Exec& exec, std::size_t n) {
    return exec.template reduce_scratch_bytes<float, MaxOp>(n);
}

namespace cuda_side {
std::size_t max_displacement2_scratch(const Backend& backend, std::size_t n);
void max_displacement2(const Backend& backend, Workspace& ws, const Vec3f* positions, const Vec3f* reference,
                       const Box& box, std::size_t n, float* out);
void count_neighbors(const Backend& backend, const VerletView& view, const Vec3f* positions, std::size_t n,
                     std::uint32_t* counts);
}  // namespace cuda_side

}  // namespace partikel::frnn
