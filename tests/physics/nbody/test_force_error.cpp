// The tree's force error against direct summation (accumulated in double) on a Plummer sphere:
// the table of the median, 90th and 99th percentile relative errors against theta = 0.3 .. 1.0
// with quadrupoles and with monopoles only. Required: at theta = 0.5 with quadrupoles the median
// is below 1e-3; quadrupoles beat monopoles; the error grows with theta. 8,192 bodies here,
// 100,000 in the slow variant.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "nbody/initial_conditions.hpp"
#include "nbody/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::nbody;

namespace {

void error_table(const Backend& backend, std::size_t n) {
    const Model m = plummer({.n = n, .seed = 21});
    double median_quad_05 = 0, median_mono_05 = 0, median_quad_03 = 0, median_quad_10 = 0;
    std::string table = "\n theta  cells  median      p90         p99         interactions/body\n";
    for (bool quadrupole : {true, false}) {
        for (int t = 3; t <= 10; ++t) {
            NbodyParams p = m.params;
            p.theta = float(t) / 10.0f;
            p.quadrupole = quadrupole;
            Solver s(backend, p, m.bodies);
            const ForceErrorStats e = s.force_error(2000, 5);
            const Interactions i = s.last_interactions();
            char row[160];
            std::snprintf(row, sizeof row, " %.1f    %s   %.3e   %.3e   %.3e   %.0f\n", double(p.theta),
                          quadrupole ? "quad" : "mono", e.median, e.p90, e.p99, double(i.total()) / double(n));
            table += row;
            if (t == 5) (quadrupole ? median_quad_05 : median_mono_05) = e.median;
            if (quadrupole && t == 3) median_quad_03 = e.median;
            if (quadrupole && t == 10) median_quad_10 = e.median;
        }
    }
    MESSAGE(n, " Plummer bodies, ", backend.describe(), table);
    CHECK(median_quad_05 < 1e-3);
    CHECK(median_quad_05 < median_mono_05);
    CHECK(median_quad_03 < median_quad_05);
    CHECK(median_quad_05 < median_quad_10);
}

void small_sphere(const Backend& backend) { error_table(backend, 8192); }
void large_sphere(const Backend& backend) { error_table(backend, 100000); }

}  // namespace

PK_BACKEND_TEST("nbody.force_error: tree against direct on 8,192 Plummer bodies", small_sphere)
TEST_SUITE("slow") {
    PK_BACKEND_TEST("nbody.force_error: tree against direct on 100,000 Plummer bodies", large_sphere)
}
