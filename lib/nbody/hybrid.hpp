// The hybrid force walk's bookkeeping (Hochstetter 2012, sec. 5.8.5): how the groups of bodies
// are split between the GPU and CPU threads. The walk itself is tree_forces (nbody/tree.hpp) on
// both sides; the solver (solver_impl.hpp) queues the GPU's share, copies the tree to the host
// meanwhile, and walks the CPU's share on CPU threads.
//
// Work estimate: per group, the sum over its bodies of 1 + the level of its leaf
// (group_load_prefix), as a prefix sum L(g) over groups. With T virtual threads of which the CPU
// runs p, the CPU takes the groups g < s with L(s) >= (p / T) L(total), and CPU thread q the
// groups between the q-th and (q+1)-th p-th of that share. After each step T follows eq. 5.1
// (VirtualThreads::update).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/backend.hpp"
#include "nbody/tree.hpp"

namespace partikel::nbody {

class VirtualThreads {
public:
    // p = cpu_threads >= 1; T starts at p / initial_cpu_share (T = p, everything on the CPU,
    // for a share of 1; a share of 0 is taken as 1e-6).
    VirtualThreads(int cpu_threads, double initial_cpu_share, double c_inc, double c_dec);

    double count() const { return count_; }
    int cpu_threads() const { return cpu_threads_; }
    double cpu_share() const { return double(cpu_threads_) / count_; }

    // Eq. 5.1: T *= c_inc t_cpu/t_gpu + (1 - c_inc) when t_gpu < t_cpu (the GPU was faster: it
    // gets more), T *= c_dec t_cpu/t_gpu + (1 - c_dec) when t_gpu > t_cpu, unchanged when equal;
    // never below p (the CPU cannot take more than everything). Times in any unit, > 0.
    void update(double cpu_seconds, double gpu_seconds);

private:
    int cpu_threads_;
    double count_;
    double c_inc_, c_dec_;
};

// The first group of each of `parts` CPU threads and the end: boundaries[q] .. boundaries[q+1]
// are thread q's groups, splitting [0, groups) into parts of nearly equal load.
// load_prefix: the exclusive prefix (groups + 1 entries, host memory).
std::vector<std::uint32_t> split_by_load(std::span<const std::uint32_t> load_prefix, std::uint32_t groups, int parts);

// The smallest s with load_prefix[s] >= share * load_prefix[groups]: the CPU walks groups [0, s).
std::uint32_t cpu_group_count(std::span<const std::uint32_t> load_prefix, std::uint32_t groups, double share);

// Walks groups [0, groups) of `walk` (all pointers host memory) on `threads` CPU threads, thread
// q taking its part of split_by_load, each part on one thread.
void walk_on_cpu_threads(const TreeWalk& walk, std::span<const std::uint32_t> load_prefix, std::uint32_t groups,
                         int threads);

// OpenMP's default number of threads (the hybrid's p when HybridParams::cpu_threads is 0).
int default_cpu_threads();

}  // namespace partikel::nbody
