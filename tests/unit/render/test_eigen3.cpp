// The symmetric 3 x 3 eigen-decomposition used by the anisotropy pass (render/eigen3.hpp):
// A v = lambda v, orthonormal right-handed vectors, sorted values, for random matrices and for
// the repeated eigenvalues that break closed-form solvers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "render/eigen3.hpp"

using namespace partikel;
using namespace partikel::render;

namespace {

// A = Q diag(l) Q^T for a rotation Q built from a random unit quaternion.
void random_symmetric(std::mt19937& rng, const float l[3], float a[6], float q_out[3][3]) {
    std::normal_distribution<float> normal;
    float w = normal(rng), x = normal(rng), y = normal(rng), z = normal(rng);
    const float len = std::sqrt(w * w + x * x + y * y + z * z);
    w /= len, x /= len, y /= len, z /= len;
    const float q[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                           {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                           {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    const int idx[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
    for (int e = 0; e < 6; ++e) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s += double(q[idx[e][0]][k]) * l[k] * q[idx[e][1]][k];
        a[e] = float(s);
    }
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) q_out[r][c] = q[r][c];
}

void check_decomposition(const float a[6], const SymmetricEigen3& e, float scale) {
    const float m[3][3] = {{a[0], a[1], a[2]}, {a[1], a[3], a[4]}, {a[2], a[4], a[5]}};
    CHECK(e.values[0] >= e.values[1]);
    CHECK(e.values[1] >= e.values[2]);
    for (int k = 0; k < 3; ++k) {
        const Vec3f v = e.vectors[k];
        CHECK(norm(v) == doctest::Approx(1.0f).epsilon(1e-5));
        for (int r = 0; r < 3; ++r) {
            const float av = m[r][0] * v.x + m[r][1] * v.y + m[r][2] * v.z;
            CHECK(std::fabs(av - e.values[k] * v[r]) <= 2e-6f * scale);
        }
    }
    CHECK(std::fabs(dot(e.vectors[0], e.vectors[1])) < 1e-5f);
    CHECK(std::fabs(dot(e.vectors[0], e.vectors[2])) < 1e-5f);
    CHECK(std::fabs(dot(e.vectors[1], e.vectors[2])) < 1e-5f);
    CHECK(dot(cross(e.vectors[0], e.vectors[1]), e.vectors[2]) == doctest::Approx(1.0f).epsilon(1e-5));
}

}  // namespace

TEST_CASE("random symmetric matrices: A v = lambda v to float precision, values sorted") {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (int trial = 0; trial < 2000; ++trial) {
        const float l[3] = {uniform(rng), uniform(rng), uniform(rng)};
        float a[6], q[3][3];
        random_symmetric(rng, l, a, q);
        const SymmetricEigen3 e = symmetric_eigen3(a[0], a[1], a[2], a[3], a[4], a[5]);
        check_decomposition(a, e, 1.0f);
        float sorted[3] = {l[0], l[1], l[2]};
        std::sort(sorted, sorted + 3, [](float x, float y) { return x > y; });
        for (int k = 0; k < 3; ++k) CHECK(e.values[k] == doctest::Approx(sorted[k]).epsilon(1e-5).scale(1.0));
    }
}

TEST_CASE("repeated and zero eigenvalues: a disc, a needle, a sphere, a diagonal matrix") {
    std::mt19937 rng(7);
    const float cases[][3] = {{1.0f, 1.0f, 0.0625f}, {1.0f, 0.0625f, 0.0625f}, {1.0f, 1.0f, 1.0f},
                              {1.0f, 0.0f, 0.0f},    {0.0f, 0.0f, 0.0f},       {1e-12f, 5e-13f, 1e-13f}};
    for (const auto& l : cases) {
        float a[6], q[3][3];
        random_symmetric(rng, l, a, q);
        const SymmetricEigen3 e = symmetric_eigen3(a[0], a[1], a[2], a[3], a[4], a[5]);
        check_decomposition(a, e, std::max(std::fabs(l[0]), 1e-30f));
    }
    const SymmetricEigen3 d = symmetric_eigen3(3.0f, 0.0f, 0.0f, 1.0f, 0.0f, 2.0f);
    CHECK(d.values[0] == 3.0f);
    CHECK(d.values[1] == 2.0f);
    CHECK(d.values[2] == 1.0f);
    CHECK(std::fabs(d.vectors[0].x) == 1.0f);
    CHECK(std::fabs(d.vectors[1].z) == 1.0f);
}
