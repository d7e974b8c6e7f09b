#include "nbody/hybrid.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "base/error.hpp"
#include "core/exec_cpu.hpp"

namespace partikel::nbody {

VirtualThreads::VirtualThreads(int cpu_threads, double initial_cpu_share, double c_inc, double c_dec)
    : cpu_threads_(std::max(cpu_threads, 1)), c_inc_(c_inc), c_dec_(c_dec) {
    const double share = std::clamp(initial_cpu_share, 1e-6, 1.0);
    count_ = double(cpu_threads_) / share;
}

void VirtualThreads::update(double cpu_seconds, double gpu_seconds) {
    if (!(cpu_seconds > 0.0) || !(gpu_seconds > 0.0) || !std::isfinite(cpu_seconds) || !std::isfinite(gpu_seconds))
        return;  // nothing measured (an empty share): keep T
    const double ratio = cpu_seconds / gpu_seconds;
    if (gpu_seconds < cpu_seconds) count_ *= c_inc_ * ratio + (1.0 - c_inc_);
    else if (gpu_seconds > cpu_seconds) count_ *= c_dec_ * ratio + (1.0 - c_dec_);
    count_ = std::max(count_, double(cpu_threads_));
}

std::uint32_t cpu_group_count(std::span<const std::uint32_t> load_prefix, std::uint32_t groups, double share) {
    if (load_prefix.size() < std::size_t(groups) + 1) throw UsageError("nbody: load prefix shorter than the groups");
    const double target = share * double(load_prefix[groups]);
    const auto* begin = load_prefix.data();
    const auto* found = std::lower_bound(begin, begin + groups, target,
                                         [](std::uint32_t load, double t) { return double(load) < t; });
    return static_cast<std::uint32_t>(found - begin);
}

std::vector<std::uint32_t> split_by_load(std::span<const std::uint32_t> load_prefix, std::uint32_t groups, int parts) {
    if (parts < 1) throw UsageError("nbody: split into no parts");
    if (load_prefix.size() < std::size_t(groups) + 1) throw UsageError("nbody: load prefix shorter than the groups");
    std::vector<std::uint32_t> bounds(std::size_t(parts) + 1);
    const double total = double(load_prefix[groups]) - double(load_prefix[0]);
    const auto* begin = load_prefix.data();
    for (int q = 1; q < parts; ++q) {
        const double target = double(load_prefix[0]) + total * double(q) / double(parts);
        const auto* found = std::lower_bound(begin, begin + groups, target,
                                             [](std::uint32_t load, double t) { return double(load) < t; });
        bounds[std::size_t(q)] = static_cast<std::uint32_t>(found - begin);
    }
    bounds[0] = 0;
    bounds[std::size_t(parts)] = groups;
    for (int q = 1; q <= parts; ++q) bounds[std::size_t(q)] = std::max(bounds[std::size_t(q)], bounds[std::size_t(q) - 1]);
    return bounds;
}

void walk_on_cpu_threads(const TreeWalk& walk, std::span<const std::uint32_t> load_prefix, std::uint32_t groups,
                         int threads) {
    if (groups == 0) return;
    const int parts = std::max(1, std::min<int>(threads, int(groups)));
    const std::vector<std::uint32_t> bounds = split_by_load(load_prefix, groups, parts);
    const Backend one_thread = Backend::cpu(1);
#pragma omp parallel for num_threads(parts) schedule(static, 1)
    for (int q = 0; q < parts; ++q) {
        TreeWalk part = walk;
        part.group_begin = bounds[std::size_t(q)];
        part.group_end = bounds[std::size_t(q) + 1];
        part.first_group = nullptr;
        tree_forces(CpuExec(one_thread), part);
    }
}

int default_cpu_threads() { return std::max(1, omp_get_max_threads()); }

}  // namespace partikel::nbody
