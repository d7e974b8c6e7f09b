// The SPH solver as a run::Simulation (run/simulation.hpp): what sph-step hands the run loop.
// Frames hold the solver's written fields (frame_io.hpp); the diagnostics table has the
// columns of sph::Diagnostics (sph-step(1), DIAGNOSTICS).
#pragma once

#include <functional>
#include <memory>

#include "run/simulation.hpp"
#include "sph/io/frame_io.hpp"
#include "sph/solver.hpp"

namespace partikel::sph {

class SphSimulation : public run::Simulation {
public:
    // Starts from `start` (sph-init's output or a frame of an earlier run); on several ranks from
    // this rank's share of it (scatter_start), collectively.
    SphSimulation(const Backend& backend, const SimulationFrame& start, SolverOptions options = {},
                  RankOptions ranks = {});

    dist::Communicator communicator() const override { return solver_.communicator(); }
    void step() override { solver_.step(); }
    std::int32_t step_and_vote(const std::function<std::int32_t()>& vote) override { return solver_.step(vote); }
    std::int64_t step_count() const override { return solver_.step_count(); }
    double time() const override { return solver_.time(); }
    double last_dt() const override { return solver_.last_dt(); }
    std::size_t size() const override { return solver_.global_size(); }
    const Backend& backend() const override { return solver_.backend(); }

    std::vector<run::DiagnosticsColumn> diagnostics_columns() const override;
    std::vector<double> diagnostics() override;

    std::vector<std::size_t> frame_buffer_capacity() const override { return solver_.written_field_capacity(); }
    run::FrameCapture frame_capture() override;
    fmt::Frame build_frame(std::span<const std::span<const std::byte>> host, const run::FrameCapture& capture) const override;
    fmt::Frame build_frame(std::span<const run::RankFrame> ranks, const run::FrameCapture& capture) const override;

    Solver& solver() { return solver_; }

private:
    Solver solver_;
    const SphParams params_;         // as constructed: build_frame reads only this
    std::vector<int> written_;       // the fields of a capture, in order
};

// The diagnostics table's row of one sph::Diagnostics, in diagnostics_columns() order (with
// `imbalance` last on several ranks).
std::vector<double> diagnostics_row(const Diagnostics& d, bool imbalance = false);

// The start of a run on `ranks` (dist/): rank 0 calls `read_on_root` (the start frame with the
// program's parameter overrides applied), cuts the particles into slabs along the domain's
// longest non-periodic axis with equal particle counts (or, `StartSlabs::equal_widths`, equal
// widths of the domain: the load balancing's benchmark), and sends each rank its share (and the
// parameters, as a frame). Any input starts any rank count. UsageError when every axis is
// periodic or a slab would be thinner than the halo reach; a failure on rank 0 ends every rank
// alike. One rank: read_on_root()'s frame, one slab.
struct RankStart {
    SimulationFrame frame;
    dist::SlabDecomposition slabs;
};
enum class StartSlabs { equal_counts, equal_widths };
RankStart scatter_start(const dist::Communicator& ranks, const std::function<SimulationFrame()>& read_on_root,
                        StartSlabs cut = StartSlabs::equal_counts);

}  // namespace partikel::sph
