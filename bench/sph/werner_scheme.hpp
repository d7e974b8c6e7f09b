// The SPH benchmarks' default configuration: Werner (2015)'s scheme (Wendland C2, h = 1.5 dx,
// midpoint predictor-corrector: two neighbour passes per step, Shepard every 30 steps, CFL 0.3,
// no density diffusion and no density limits) over a scene's own settings.
#pragma once

#include "sph/params.hpp"

namespace partikel::bench {

inline void use_werner_scheme(sph::SphParams& p) {
    p.kernel = sph::KernelKind::wendland_c2;
    p.h_m = sph::smoothing_length_hdx(p.dx_m, 1.5f);
    p.integrator = sph::Integrator::midpoint;
    p.diffusion = sph::DensityDiffusion::none;
    p.shepard_every = 30;
    p.cfl = 0.3f;
    p.density_min = p.density_max = 0.0f;  // Werner (2015) has no density limits
}

}  // namespace partikel::bench
