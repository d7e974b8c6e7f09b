// CPU against GPU (suite "gpu"): the same bodies give the same accelerations on both backends up
// to the two processors' roundings (the GPU's approximate reciprocal square root, fused
// multiply-adds), far inside the tree's own force error, for the direct sum and the tree; and
// the same energies after some steps. The hybrid split against the GPU alone is
// nbody.solver's "the hybrid walk equals the tree walk [cuda]".
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "nbody/initial_conditions.hpp"
#include "nbody/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::nbody;

TEST_CASE("nbody.gpu: CPU and GPU accelerations agree within the tree's error" * doctest::test_suite("gpu")) {
    const Backend gpu = test::cuda_backend();
    const Backend cpu = Backend::cpu(0);
    const Model m = plummer({.n = 20000, .seed = 51});
    for (ForceMethod method : {ForceMethod::direct, ForceMethod::tree}) {
        CAPTURE(force_method_name(method));
        NbodyParams p = m.params;
        p.method = method;
        Solver on_cpu(cpu, p, m.bodies), on_gpu(gpu, p, m.bodies);
        // Both backends sort the same keys with a stable sort: the same order.
        const Bodies bc = on_cpu.download(), bg = on_gpu.download();
        REQUIRE(bc.id == bg.id);
        const std::vector<Vec4f> ac = on_cpu.download_accelerations(), ag = on_gpu.download_accelerations();
        std::vector<double> diff(ac.size());
        for (std::size_t i = 0; i < ac.size(); ++i) {
            const double dx = double(ac[i].x) - ag[i].x, dy = double(ac[i].y) - ag[i].y, dz = double(ac[i].z) - ag[i].z;
            diff[i] = std::sqrt(dx * dx + dy * dy + dz * dz) /
                      std::sqrt(double(ac[i].x) * ac[i].x + double(ac[i].y) * ac[i].y + double(ac[i].z) * ac[i].z);
        }
        std::sort(diff.begin(), diff.end());
        const double median = diff[diff.size() / 2], worst = diff.back();
        const ForceErrorStats own = on_cpu.force_error(1000, 3);
        MESSAGE("CPU against GPU: median ", median, ", largest ", worst, "; the method's own median error ", own.median);
        CHECK(median < 1e-5);
        // A cell at the edge of the opening test can be opened on one processor and not on the
        // other: such a body differs by about its own tree error.
        CHECK(worst < (method == ForceMethod::tree ? own.p99 : 1e-4));
        const double ic = double(on_cpu.last_interactions().total()), ig = double(on_gpu.last_interactions().total());
        CHECK(std::fabs(ic - ig) <= 1e-3 * ic);
        for (int i = 0; i < 10; ++i) {
            on_cpu.step();
            on_gpu.step();
        }
        const Diagnostics dc = on_cpu.diagnostics(), dg = on_gpu.diagnostics();
        CHECK(dg.total == doctest::Approx(dc.total).epsilon(1e-5));
        CHECK(dg.lagrangian_radius[1] == doctest::Approx(dc.lagrangian_radius[1]).epsilon(1e-4));
    }
}
