// The N-body model as a run::Simulation (run/simulation.hpp): nbody-run is flag parsing plus
// run::run_simulation over this class. Frames are the "bodies" group of nbody/io/frame_io.hpp,
// in the solver's current order (along the tree's curve; ids identify bodies); the diagnostics
// table has the columns
//   time, kinetic_energy, potential_energy, total_energy, energy_drift (E - E_0) / |E_0| with E_0
//   the first row's, momentum_{x,y,z}, angular_momentum_{x,y,z} (about the origin),
//   virial_ratio 2K/|W|, lagrangian_radius_{10,50,90} (about the centre of mass)
// in the run's model units (the column units give their SI meaning in astro units).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "nbody/io/frame_io.hpp"
#include "nbody/solver.hpp"
#include "run/simulation.hpp"

namespace partikel::nbody {

struct SimulationOptions {
    bool write_acceleration = false;  // the acceleration column in frames
    bool write_potential = false;     // the potential column (a second force evaluation per frame)
    SolverOptions solver;
};

class NbodySimulation final : public run::Simulation {
public:
    NbodySimulation(const Backend& backend, const StartState& start, SimulationOptions options = {});

    void step() override;
    std::int64_t step_count() const override { return solver_.step_count(); }
    double time() const override { return solver_.time(); }
    double last_dt() const override { return solver_.last_dt(); }
    std::size_t size() const override { return solver_.size(); }
    const Backend& backend() const override { return solver_.backend(); }
    double time_unit_si() const override;

    std::vector<run::DiagnosticsColumn> diagnostics_columns() const override;
    std::vector<double> diagnostics() override;

    std::vector<std::size_t> frame_buffer_capacity() const override;
    run::FrameCapture frame_capture() override;
    fmt::Frame build_frame(std::span<const std::span<const std::byte>> host,
                           const run::FrameCapture& capture) const override;

    Solver& solver() { return solver_; }

private:
    NbodyParams params_;  // fixed after construction: build_frame reads it on the writer thread
    SimulationOptions options_;
    Solver solver_;
    std::vector<int> written_;  // the fields a frame captures (nbody/fields.hpp), in capture order
    std::optional<double> initial_energy_;
};

}  // namespace partikel::nbody
