// Conservation: the direct sum's pair forces are equal and opposite and central, so total
// momentum and angular momentum stay constant to round-off (the leapfrog conserves both exactly
// for such forces); the tree's cell forces are not symmetric, so its momentum drift is reported
// and bounded by its force error.
#include <doctest/doctest.h>

#include <cmath>

#include "nbody/initial_conditions.hpp"
#include "nbody/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::nbody;

namespace {

struct Scales {
    double momentum = 0;  // sum m |v|
    double angular = 0;   // sum m |x x v|
    double force = 0;     // sum m |a|
};

Scales scales(const Bodies& b, const std::vector<Vec4f>& a) {
    Scales s;
    for (std::size_t i = 0; i < b.size(); ++i) {
        s.momentum += b.mass[i] * norm(b.velocity[i]);
        s.angular += b.mass[i] * norm(cross(b.position[i], b.velocity[i]));
        s.force += b.mass[i] * std::sqrt(double(a[i].x) * a[i].x + double(a[i].y) * a[i].y + double(a[i].z) * a[i].z);
    }
    return s;
}

Vec3d net_force(const Bodies& b, const std::vector<Vec4f>& a) {
    Vec3d f{0, 0, 0};
    for (std::size_t i = 0; i < b.size(); ++i) f += b.mass[i] * Vec3d{a[i].x, a[i].y, a[i].z};
    return f;
}

void conservation(const Backend& backend) {
    const Model m = plummer({.n = 2048, .seed = 31});
    for (ForceMethod method : {ForceMethod::direct, ForceMethod::tree}) {
        CAPTURE(force_method_name(method));
        NbodyParams p = m.params;
        p.method = method;
        Solver s(backend, p, m.bodies);
        const Bodies b0 = s.download();
        const Scales scale = scales(b0, s.download_accelerations());
        const double net0 = norm(net_force(b0, s.download_accelerations())) / scale.force;
        const Diagnostics d0 = s.diagnostics();
        for (int i = 0; i < 64; ++i) s.step();
        const Diagnostics d1 = s.diagnostics();
        const double dp = norm(d1.momentum - d0.momentum) / scale.momentum;
        const double dl = norm(d1.angular_momentum - d0.angular_momentum) / scale.angular;
        MESSAGE("net force / sum m|a| ", net0, "; after 64 steps: momentum change ", dp, ", angular momentum change ", dl);
        if (method == ForceMethod::direct) {
            CHECK(net0 < 1e-6);  // single-precision pair sums: round-off
            CHECK(dp < 1e-6);
            CHECK(dl < 1e-6);
        } else {
            CHECK(net0 < 1e-3);  // a few times the median force error
            CHECK(dp < 1e-3);
        }
    }
}

}  // namespace

PK_BACKEND_TEST("nbody.conservation: momentum and angular momentum of direct summation to round-off", conservation)
