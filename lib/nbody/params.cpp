#include "nbody/params.hpp"

#include <cmath>
#include <string>

#include "base/error.hpp"
#include "base/log.hpp"
#include "base/vec.hpp"

namespace partikel::nbody {

std::string_view force_method_name(ForceMethod method) {
    switch (method) {
        case ForceMethod::direct: return "direct";
        case ForceMethod::tree: return "tree";
        case ForceMethod::hybrid: return "hybrid";
    }
    return "?";
}

ForceMethod parse_force_method(std::string_view name) {
    for (ForceMethod m : {ForceMethod::direct, ForceMethod::tree, ForceMethod::hybrid})
        if (force_method_name(m) == name) return m;
    throw UsageError("unknown force method \"" + std::string(name) + "\" (expected direct, tree or hybrid)");
}

void validate(const NbodyParams& p) {
    if (!(p.dt > 0.0) || !std::isfinite(p.dt))
        throw UsageError("nbody: the time step must be positive and finite, got " + std::to_string(p.dt));
    if (!(p.softening >= 0.0f && p.softening <= kMaxCoordinate))  // its square must fit a float
        throw UsageError("nbody: the softening length must be in 0..1e18, got " + format_g(p.softening));
    if (!(p.theta > 0.0f) || !(p.theta <= 2.0f))
        throw UsageError("nbody: the opening angle theta must be in (0, 2], got " + std::to_string(p.theta));
    if (p.leaf_capacity < 1 || p.leaf_capacity > 1024)
        throw UsageError("nbody: the leaf capacity must be in 1..1024, got " + std::to_string(p.leaf_capacity));
    if (p.max_depth < 1 || p.max_depth > kMaxTreeDepth)
        throw UsageError("nbody: the tree depth cap must be in 1.." + std::to_string(kMaxTreeDepth) +
                         " (the resolution of 63-bit Morton keys), got " + std::to_string(p.max_depth));
    if (!(p.units.G > 0.0) || !std::isfinite(p.units.G))
        throw UsageError("nbody: G must be positive and finite, got " + std::to_string(p.units.G));
    const HybridParams& h = p.hybrid;
    if (!(h.c_inc > 0.0 && h.c_inc <= 1.0) || !(h.c_dec > 0.0 && h.c_dec <= 1.0))
        throw UsageError("nbody: the hybrid factors c_inc and c_dec must be in (0, 1]");
    if (h.cpu_threads < 0) throw UsageError("nbody: hybrid CPU threads must be >= 0");
    if (!(h.initial_cpu_share >= 0.0 && h.initial_cpu_share < 1.0))
        throw UsageError("nbody: the hybrid's initial CPU share must be in [0, 1)");
}

}  // namespace partikel::nbody
