// Comparisons of particle sets shared by the SPH unit tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>

#include <doctest/doctest.h>

#include "sph/params.hpp"
#include "sph/particles.hpp"
#include "sph/solver.hpp"
#include "support/backends.hpp"

namespace partikel::sph {

// Same ids, positions, velocities and densities, bit for bit (restarts must continue exactly).
inline bool bit_identical(const ParticleSet& a, const ParticleSet& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a.id[i] != b.id[i] || a.density[i] != b.density[i]) return false;
        for (int k = 0; k < 3; ++k)
            if (a.position[i][k] != b.position[i][k] || a.velocity[i][k] != b.velocity[i][k]) return false;
    }
    return true;
}

// The largest differences between two runs of the same particles (matched by id): position (m),
// velocity (m/s) and density relative to the first.
struct LargestDifferences {
    double position = 0.0, velocity = 0.0, density = 0.0;
};
inline LargestDifferences largest_differences(const ParticleSet& a, const ParticleSet& b) {
    std::map<std::uint64_t, std::size_t> in_b;
    for (std::size_t i = 0; i < b.size(); ++i) in_b[b.id[i]] = i;
    LargestDifferences d;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::size_t j = in_b.at(a.id[i]);
        d.position = std::max(d.position, double(norm(a.position[i] - b.position[j])));
        d.velocity = std::max(d.velocity, double(norm(a.velocity[i] - b.velocity[j])));
        d.density = std::max(d.density, double(std::abs(a.density[i] - b.density[j]) / a.density[i]));
    }
    return d;
}

// The CUDA backend (deterministic) against the CPU after `steps` steps of the same start:
// float round-off (FMA contraction, summation order) grown over 100 steps of a smooth flow stays
// within 1e-3 dx in position, 1e-3 m/s in velocity (speeds reach ~0.3 m/s) and 1e-4 relative in
// density.
inline void check_cuda_matches_cpu(const SphParams& params, const ParticleSet& start, int steps = 100) {
    Solver cpu(Backend::cpu(0), params, start);
    Solver gpu(test::cuda_backend(), params, start, 0, 0.0, {.deterministic = true});
    for (int i = 0; i < steps; ++i) {
        cpu.step();
        gpu.step();
    }
    CHECK(gpu.time() == doctest::Approx(cpu.time()).epsilon(1e-5));
    const ParticleSet a = cpu.download(), b = gpu.download();
    REQUIRE(a.size() == b.size());
    const LargestDifferences d = largest_differences(a, b);
    CHECK(d.position < 1e-3 * params.dx_m);
    CHECK(d.velocity < 1e-3);
    CHECK(d.density < 1e-4);
}

}  // namespace partikel::sph
