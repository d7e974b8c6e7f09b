// The kernels of the space-charge solver (pic/space_charge.hpp), written once for both
// backends: grid geometry from the beam's extent, cloud-in-cell deposition (privatised in
// shared memory, or sorted by cell and gathered per node without atomics), the integrated
// Green's function and its product with the charge spectrum, fields from the potential, the
// images of a conducting round pipe, and the longitudinal field from the line density.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/hd.hpp"
#include "core/fft.hpp"
#include "core/workspace.hpp"
#include "pic/beam.hpp"
#include "pic/field_map.hpp"
#include "pic/moments.hpp"

namespace partikel::pic {

struct GridShape {
    int nx = 128, ny = 128;    // transverse nodes of one slice
    int nz = 1;                // slices
    int periodic_z = 1;        // coasting: slices span the ring and wrap
    int nl = 0;                // longitudinal line-density nodes (0: none)
    int periodic_line = 1;
    double circumference_m = 0.0;

    // cells of the z axis a particle can be in: nz when periodic, nz - 1 otherwise
    PK_HD int z_cells() const { return periodic_z ? nz : nz - 1; }
    PK_HD std::size_t padded_plane() const { return std::size_t(4) * std::size_t(nx) * std::size_t(ny); }
    PK_HD std::size_t cells() const { return std::size_t(z_cells()) * std::size_t(nx) * std::size_t(ny); }
};

// Particle fractions within their cell, in sorted order (the sorted deposition's gather reads them).
struct CellFractions {
    float fx, fy, fz, unused;
};

// Buffers of the deposition, sized for `n` particles and `cells` = GridShape::cells() (sorted)
// or z_cells() (privatised), allocated by the solver.
struct DepositBuffers {
    std::uint32_t* keys;          // n
    std::uint32_t* keys_sorted;   // n
    std::uint32_t* identity;      // n: 0, 1, 2, ...
    std::uint32_t* order;         // n: particle indices by cell
    std::uint32_t* cell_start;    // cells + 1: cell c's particles are [cell_start[c], cell_start[c + 1]) of order
    std::uint32_t* block_first;   // privatised: z_cells + 1
    CellFractions* fractions;     // sorted: n
};

// Particles per block of the privatised deposition.
inline constexpr std::uint32_t kDepositChunk = 8192;

// Workspace bytes of either deposition for n particles on `shape`.
template <class Exec> std::size_t deposit_scratch_bytes(const Exec& exec, std::size_t n, const GridShape& shape);

// Origin and spacings of the grids from the alive particles' extent (one thread).
template <class Exec>
void compute_geometry(const Exec& exec, const BeamBounds* bounds, const GridShape& shape, GridGeometry* geometry);

// Macroparticle weights on the padded charge grid (nz x 2ny x 2nx, physical nodes in the first
// ny x nx of each slice); `rho` is zeroed first. Privatised: on the GPU, particles grouped by z
// cell (radix sort), each block deposits up to kDepositChunk of one z cell into a shared-memory
// copy of the two planes it touches (block_atomic_add), then adds the copy to the grid
// (atomic_add); on the CPU, each thread deposits a contiguous range of the particles into a
// grid of its own, and the grids are summed node by node in a fixed order.
// Sorted: particles sorted by 3-D cell, and each node sums the particles of its eight cells
// (no atomics; the same sums in the same order on every run).
template <class Exec>
void deposit_privatised(const Exec& exec, Workspace& ws, const BeamView& beam, const GridGeometry* geometry,
                        const GridShape& shape, const DepositBuffers& buffers, float* rho);
template <class Exec>
void deposit_sorted(const Exec& exec, Workspace& ws, const BeamView& beam, const GridGeometry* geometry,
                    const GridShape& shape, const DepositBuffers& buffers, float* rho);
// Bytes of shared memory the privatised deposition needs per block: the one or two planes of a
// z cell.
inline std::size_t privatised_shared_bytes(const GridShape& shape) {
    return std::size_t(shape.nz == 1 ? 1 : 2) * std::size_t(shape.nx) * std::size_t(shape.ny) * sizeof(float);
}

// The most pipe-image moments slice_moments computes.
inline constexpr int kMaxImageOrder = 16;

// Macroparticle weights on the longitudinal nodes (privatised per block).
template <class Exec>
void deposit_line(const Exec& exec, const BeamView& beam, const GridGeometry* geometry, const GridShape& shape,
                  float* line);

// The physical nodes of the padded charge grid (the first ny rows of nx in each slice) to and
// from a compact nz x ny x nx array: what ranks all-reduce (a quarter of the padded grid).
template <class Exec> void pack_charge(const Exec& exec, const float* rho, const GridShape& shape, float* compact);
template <class Exec> void unpack_charge(const Exec& exec, const float* compact, const GridShape& shape, float* rho);

// The integrated Green's function of the 2-D Poisson equation on the padded grid (2ny x 2nx),
// for charge densities in C/m^3 (docs/PIC.md, "Poisson solver").
template <class Exec> void fill_green(const Exec& exec, const GridGeometry* geometry, const GridShape& shape, float* green);

// spectrum[k] *= green_spectrum * q_macro / (hx hy hz) / (4 nx ny) for every slice.
template <class Exec>
void multiply_green(const Exec& exec, Complexf* spectrum, const Complexf* green_spectrum, const GridGeometry* geometry,
                    const GridShape& shape, double macro_charge_C);

// Per slice: its total weight and, when image_order > 0, the complex moments
// C_n = sum_j w_j conj(x_j + i y_j)^(n+1), n < image_order, of its charge about the pipe's axis.
// moments[k * (1 + 2 image_order)]: weight, then re/im pairs.
template <class Exec>
void slice_moments(const Exec& exec, const float* rho, const GridGeometry* geometry, const GridShape& shape,
                   int image_order, double* moments);

// E = -grad phi on the nodes (central differences; one-sided at the grid's edge), plus the
// field of the pipe's images when pipe_radius_m > 0, each node's also as the previous slice's
// `next` (FieldNode); the slices' weights for the far field.
template <class Exec>
void field_from_potential(const Exec& exec, const float* phi, const double* moments, const GridGeometry* geometry,
                          const GridShape& shape, double macro_charge_C, double pipe_radius_m, int image_order,
                          FieldNode* field, float* slice_weight);

// The line-density spectrum to the E_z spectrum: times i k and -g q_macro / (4 pi eps0 gamma^2 hl nl),
// harmonics above `cutoff` removed.
template <class Exec>
void line_field(const Exec& exec, Complexf* spectrum, const GridGeometry* geometry, const GridShape& shape,
                double factor, int cutoff);

}  // namespace partikel::pic
