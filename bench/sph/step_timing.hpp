// The step clock of the SPH benchmarks (bench_sph, bench_snow): `warmup` untimed steps, then the
// mean wall time of `steps` steps between two synchronisations of the backend.
#pragma once

#include "core/backend.hpp"
#include "core/timer.hpp"
#include "sph/solver.hpp"

namespace partikel::bench {

inline double mean_step_seconds(const Backend& backend, sph::Solver& solver, int warmup, int steps) {
    for (int i = 0; i < warmup; ++i) solver.step();
    backend.synchronize();
    Stopwatch clock;
    for (int i = 0; i < steps; ++i) solver.step();
    backend.synchronize();
    return clock.seconds() / steps;
}

}  // namespace partikel::bench
