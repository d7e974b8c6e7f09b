// 2.5-D space charge and the longitudinal (LOBO) model (docs/PIC.md, "Space charge"):
//
//   transverse   the beam in nz longitudinal slices (one for a coasting beam); per slice the
//                macroparticles' charge by cloud-in-cell on an nx x ny grid fitted to the beam,
//                the open-boundary Poisson equation solved by zero-padded FFT convolution with
//                the integrated Green's function (Hockney's method), optionally the images of a
//                conducting round pipe, E = -grad phi on the nodes, interpolated (CIC) back;
//   longitudinal the line density on nl nodes, E_z = -g / (4 pi eps0 gamma^2) d(lambda)/dz by
//                FFT (harmonics above a cut-off removed), interpolated back.
//
// Every buffer and FFT plan is made in the constructor; solve() queues its kernels on the
// backend and allocates nothing.
//
// On several ranks (each holding some of the macroparticles) the grids are the whole beam's:
// the extent is all-reduced (min, max) before the grid is fitted, the charge grid (its nz x ny
// x nx physical nodes) and the line density are all-reduced (sums) after deposition, and every
// rank then solves the same fields (docs/PIC.md, "Running across ranks"). The grids' geometry stays on the device between solve() and
// the kicks that read it (FieldMapView).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/buffer.hpp"
#include "core/fft.hpp"
#include "core/timer.hpp"
#include "core/workspace.hpp"
#include "dist/communicator.hpp"
#include "pic/beam.hpp"
#include "pic/field_map.hpp"
#include "pic/reference.hpp"
#include "pic/space_charge_kernels.hpp"

namespace partikel::pic {

enum class Deposition { automatic, privatised, sorted };
enum class MapSharing { per_turn, per_kick };

struct SpaceChargeOptions {
    int kicks_per_turn = 0;           // space-charge nodes per turn (0: no space charge)
    bool transverse = true;
    int nx = 128, ny = 128;
    int slices = 0;                   // 0: 1 for a coasting beam, 64 for a bunched one
    MapSharing sharing = MapSharing::per_turn;
    Deposition deposition = Deposition::automatic;  // privatised when its planes fit in shared memory
    double pipe_radius_m = 0.0;       // > 0: a conducting round pipe (its images; the geometry factor)
    int image_order = kMaxImageOrder;
    bool longitudinal = false;
    int line_cells = 512;
    double geometry_factor = 0.0;     // 0: 1 + 2 ln(b / a) (b the pipe radius, a = 2 sqrt(sigma_x sigma_y))
    int harmonic_cutoff = 0;          // 0: line_cells / 8
};

// Most shared memory a block may use on the GPU (sm_90: 227 KiB).
inline constexpr std::size_t kSharedMemoryLimit = 227 * 1024;

class SpaceChargeSolver {
public:
    // `macro_charge_C`: charge of one macroparticle; `geometry_factor` resolved by the caller
    // (used when options.longitudinal); `particles`: this rank's. `ranks`: the ranks sharing
    // the beam, bound to `backend` (Communicator::bind_device) when more than one. UsageError
    // for grids too small or bad options.
    SpaceChargeSolver(const Backend& backend, const SpaceChargeOptions& options, const ReferenceParticle& reference,
                      double circumference_m, bool coasting, double macro_charge_C, std::size_t particles,
                      double geometry_factor, dist::Communicator ranks = dist::Communicator::single());

    // Fields of the beam's current state (queued on the backend; collective over the ranks).
    // `profile` may be null.
    void solve(const BeamView& beam, PhaseProfile* profile = nullptr);
    // The fields as a kick over `kick_length_m` of ring.
    FieldMapView field_map(double kick_length_m) const;

    // For tests and the benchmark (each synchronises).
    GridGeometry geometry() const;
    std::vector<FieldNode> field() const { return field_.to_vector(); }
    std::vector<float> field_z() const { return ez_.to_vector(); }
    std::vector<float> slice_weights() const { return slice_weight_.to_vector(); }
    const GridShape& shape() const { return shape_; }
    Deposition deposition() const { return deposition_; }
    std::size_t device_bytes() const;

private:
    std::size_t moments_scratch_bytes_for(std::size_t particles) const;
    DepositBuffers buffers();

    Backend backend_;
    dist::Communicator ranks_;
    SpaceChargeOptions options_;
    ReferenceParticle reference_;
    GridShape shape_;
    Deposition deposition_;
    double macro_charge_C_;
    double geometry_factor_;
    DeviceBuffer<BeamBounds> bounds_;
    DeviceBuffer<GridGeometry> geometry_;
    // transverse
    DeviceBuffer<float> rho_;  // padded charge weights, then the potential
    DeviceBuffer<float> rho_compact_;  // several ranks: the physical nodes, all-reduced
    DeviceBuffer<Complexf> spectrum_;
    DeviceBuffer<float> green_;
    DeviceBuffer<Complexf> green_spectrum_;
    DeviceBuffer<double> moments_;
    DeviceBuffer<FieldNode> field_;
    DeviceBuffer<float> slice_weight_;
    DeviceBuffer<std::uint32_t> keys_, keys_sorted_, identity_, order_, cell_start_, block_first_;
    DeviceBuffer<CellFractions> fractions_;
    std::optional<RealFft> slices_fft_, green_fft_;
    // longitudinal
    DeviceBuffer<float> line_;
    DeviceBuffer<Complexf> line_spectrum_;
    DeviceBuffer<float> ez_;
    std::optional<RealFft> line_fft_;
    Workspace workspace_;
};

}  // namespace partikel::pic
