// Parameters of a gravitational N-body run (docs/NBODY.md). All lengths, times and masses are
// in model units (nbody/units.hpp).
#pragma once

#include <cstddef>
#include <string_view>

#include "nbody/units.hpp"

namespace partikel::nbody {

enum class ForceMethod {
    direct,  // O(N^2) summation, tiled through shared memory (Nyland, Harris & Prins, GPU Gems 3 ch. 31)
    tree,    // Barnes & Hut (1986) octree with monopole or quadrupole cells
    hybrid,  // the tree, its walks split between the GPU and CPU threads (Hochstetter 2012, sec. 5.8.5)
};

std::string_view force_method_name(ForceMethod method);
ForceMethod parse_force_method(std::string_view name);  // "direct", "tree", "hybrid"; UsageError otherwise

// The CPU/GPU split of the hybrid method: "virtual threads" T, of which the CPU runs
// `cpu_threads`, so that the CPU's share of the estimated work is cpu_threads / T. After each
// step T is multiplied by c_inc t_CPU/t_GPU + (1 - c_inc) when the GPU was faster, and by
// c_dec t_CPU/t_GPU + (1 - c_dec) when it was slower (Hochstetter 2012, eq. 5.1).
struct HybridParams {
    double c_inc = 0.5;
    double c_dec = 0.1;
    int cpu_threads = 0;                // CPU threads doing walks (0: OpenMP's default)
    double initial_cpu_share = 0.05;    // of the estimated work, before the first measurement
};

struct NbodyParams {
    UnitSystem units = nbody_units();  // and with it G
    ForceMethod method = ForceMethod::tree;
    double dt = 1.0 / 128.0;           // fixed leapfrog step (model time unit)
    float softening = 0.01f;           // Plummer softening length epsilon (model length unit); 0 allowed
    float theta = 0.5f;                // opening angle: a cell of edge l is used whole when l/d < theta
    int leaf_capacity = 32;            // a cell with more bodies is split (unless at max_depth)
    int max_depth = 21;                // deepest level; 21 is the resolution of the 63-bit Morton keys
    bool quadrupole = true;            // cells carry quadrupole moments (else monopoles only)
    HybridParams hybrid;
};

// UsageError naming the first bad parameter.
void validate(const NbodyParams& params);

inline constexpr int kMaxTreeDepth = 21;  // kMortonBitsPerAxis (core/morton.hpp)

}  // namespace partikel::nbody
