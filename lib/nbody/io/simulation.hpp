// The N-body model as a run::Simulation (run/simulation.hpp): nbody-run is flag parsing plus
// run::run_simulation over this class. Frames are the "bodies" group of nbody/io/frame_io.hpp,
// in the solver's current order (along the tree's curve; ids identify bodies; on several ranks
// every rank's bodies in id order); the diagnostics table has the columns
//   time, kinetic_energy, potential_energy, total_energy, energy_drift (E - E_0) / |E_0| with E_0
//   the first row's, momentum_{x,y,z}, angular_momentum_{x,y,z} (about the origin),
//   virial_ratio 2K/|W|, lagrangian_radius_{10,50,90} (about the centre of mass)
// in the run's model units (the column units give their SI meaning in astro units), and on
// several ranks imbalance (max/mean of the ranks' force walk times in the last step) and
// migrated (bodies that changed rank in it).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "dist/communicator.hpp"
#include "nbody/io/frame_io.hpp"
#include "nbody/solver.hpp"
#include "run/simulation.hpp"

namespace partikel::nbody {

struct SimulationOptions {
    bool write_acceleration = false;  // the acceleration column in frames
    bool write_potential = false;     // the potential column (a second force evaluation per frame)
    SolverOptions solver;
};

struct HostBodies;

class NbodySimulation final : public run::Simulation {
public:
    // From `start`; on several ranks from this rank's share of it (scatter_start), collectively.
    NbodySimulation(const Backend& backend, const StartState& start, SimulationOptions options = {},
                    const dist::Communicator& ranks = dist::Communicator::single());

    dist::Communicator communicator() const override { return ranks_; }
    void step() override;
    std::int64_t step_count() const override { return solver_.step_count(); }
    double time() const override { return solver_.time(); }
    double last_dt() const override { return solver_.last_dt(); }
    std::size_t size() const override { return solver_.total_size(); }
    const Backend& backend() const override { return solver_.backend(); }
    double time_unit_si() const override;
    std::string time_unit_name() const override { return "model time units"; }

    std::vector<run::DiagnosticsColumn> diagnostics_columns() const override;
    std::vector<double> diagnostics() override;

    std::vector<std::size_t> frame_buffer_capacity() const override;
    run::FrameCapture frame_capture() override;
    fmt::Frame build_frame(std::span<const std::span<const std::byte>> host,
                           const run::FrameCapture& capture) const override;
    // Every rank's bodies in one frame, in id order.
    fmt::Frame build_frame(std::span<const run::RankFrame> ranks, const run::FrameCapture& capture) const override;

    Solver& solver() { return solver_; }

private:
    fmt::Frame frame_of(const HostBodies& bodies, const run::FrameCapture& capture) const;

    dist::Communicator ranks_;
    NbodyParams params_;  // fixed after construction: build_frame reads it on the writer thread
    SimulationOptions options_;
    Solver solver_;
    std::vector<int> written_;  // the fields a frame captures (nbody/fields.hpp), in capture order
    std::optional<double> initial_energy_;
};

// The start of a run on `ranks` (dist/): rank 0 calls `read_on_root` (the start state with the
// program's parameter overrides applied), cuts the bodies into equal shares along the tree's
// curve (nbody/partition.hpp) and sends each rank its share; the parameters, step and time go
// to every rank. Any input starts any rank count. An error in read_on_root ends every rank
// alike. One rank: read_on_root()'s state.
StartState scatter_start(const dist::Communicator& ranks, const std::function<StartState()>& read_on_root);

}  // namespace partikel::nbody
