// SPH state <-> the common frame model: groups "fluid" and "boundary" holding the solver's
// written fields (sph/fields.hpp, kFieldWrite: position, velocity, density, mass, id, kind --
// kind only in "boundary", where it tells fixed from moving walls -- and, with the Verlet
// integrator after its first step, velocity_previous and density_previous, without which a
// restart would begin with an Euler step and differ from an uninterrupted run), plus the
// derived "pressure" (the equation of state's) and "order" (u32: the particle's slot in the
// solver's cell-ordered arrays, so that a restart resumes in exactly the same order and, on the
// CPU, bit-identically). Parameters travel as "sph.*" attributes (params_io.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "formats/frame.hpp"
#include "sph/fields.hpp"
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

// The solver's written fields on the host, in solver (cell) order: a capture's host copies
// (run::FrameOutput) or a download. An empty span: the field is not written (Verlet's previous
// step before the first step, or another scheme's fields).
struct HostState {
    std::size_t count = 0;
    std::array<std::span<const std::byte>, field::count> fields{};
};

// Builds the frame with every host core (the writer thread's share of the output budget).
fmt::Frame make_frame(const HostState& state, const SphParams& params, std::int64_t step, double time_s, double dt_s);
// The frame of several ranks' states (rank order): each group's rows in particle-id order, and
// "order" the row's slot in the ranks' arrays one after the other (a restart on any rank count
// reads it like a one-rank frame).
fmt::Frame make_frame(std::span<const HostState> ranks, const SphParams& params, std::int64_t step, double time_s,
                      double dt_s);
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
