#include "nbody/bodies.hpp"

#include <cmath>
#include <string>

#include "base/error.hpp"

namespace partikel::nbody {

namespace {

bool finite(Vec3d v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

}  // namespace

void validate(const Bodies& b, bool whole) {
    const std::size_t n = b.position.size();
    if (b.velocity.size() != n || b.mass.size() != n || b.id.size() != n)
        throw UsageError("nbody: bodies have " + std::to_string(n) + " positions, " + std::to_string(b.velocity.size()) +
                         " velocities, " + std::to_string(b.mass.size()) + " masses and " + std::to_string(b.id.size()) +
                         " ids");
    if (n == 0 && whole) throw UsageError("nbody: no bodies");
    if (n >= (std::size_t{1} << 31)) throw UsageError("nbody: at most 2^31 - 1 bodies, got " + std::to_string(n));
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string who = "nbody: body " + std::to_string(i) + " (id " + std::to_string(b.id[i]) + ")";
        if (!finite(b.position[i])) throw UsageError(who + " has a non-finite position");
        if (!finite(b.velocity[i])) throw UsageError(who + " has a non-finite velocity");
        if (!std::isfinite(b.mass[i]) || b.mass[i] < 0.0)
            throw UsageError(who + " has mass " + std::to_string(b.mass[i]) + " (must be finite and >= 0)");
        total += b.mass[i];
    }
    if (!(total > 0.0) && whole) throw UsageError("nbody: the total mass is zero");
}

void move_to_centre_of_mass_frame(Bodies& b) {
    double m = 0.0;
    Vec3d mx{0, 0, 0}, mv{0, 0, 0};
    for (std::size_t i = 0; i < b.size(); ++i) {
        m += b.mass[i];
        mx += b.mass[i] * b.position[i];
        mv += b.mass[i] * b.velocity[i];
    }
    if (!(m > 0.0)) return;
    const Vec3d x0 = mx / m, v0 = mv / m;
    for (std::size_t i = 0; i < b.size(); ++i) {
        b.position[i] -= x0;
        b.velocity[i] -= v0;
    }
}

}  // namespace partikel::nbody
