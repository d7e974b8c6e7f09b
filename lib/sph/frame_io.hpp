// SPH state <-> the common frame model: groups "fluid" and "boundary" with the well-known
// columns position, velocity, density, pressure, mass, id, kind, plus "order" (u32: the
// particle's slot in the solver's cell-ordered arrays, so that a restart resumes in exactly
// the same order and, on the CPU, bit-identically). With the Verlet integrator, after its
// first step, two more: "velocity_previous" (f32 x 3, m/s) and "density_previous" (f32, kg/m^3),
// the previous step's v and rho (PreviousStep), without which a restart would begin with an
// Euler step and differ from an uninterrupted run. Parameters travel as "sph.*" attributes.
#pragma once

#include <cstdint>

#include "formats/frame.hpp"
#include "sph/params.hpp"
#include "sph/particles.hpp"
#include "sph/solver.hpp"

namespace partikel::sph {

struct SimulationFrame {
    SphParams params;
    ParticleSet particles;  // in solver order when the frame carries "order"
    PreviousStep previous;  // in the same order; empty unless every group has both columns
    std::int64_t step = 0;
    double time_s = 0.0;
};

// `particles` in solver order (Solver::download()); `previous` in the same order (written
// when not empty).
fmt::Frame make_frame(const ParticleSet& particles, const SphParams& params, std::int64_t step, double time_s,
                      double dt_s, const PreviousStep& previous = {});
// The same from FrameSnapshot::wait() or Solver::download_frame().
fmt::Frame make_frame(const SolverFrame& state, const SphParams& params);

// Reads groups "fluid" and (if present) "boundary"; position is required, the other columns
// default (velocity 0, density rho0, mass rho0 dx^3, id by position in the file); the previous
// step only when every group has velocity_previous and density_previous. Parameters: the
// frame's attributes over `defaults`. FormatError on inconsistent input.
SimulationFrame read_frame(const fmt::Frame& frame, const SphParams& defaults = {});

}  // namespace partikel::sph
