#pragma once

#include <algorithm>
#include <cmath>

#include "core/atomics.hpp"
#include "core/exec.hpp"
#include "core/key_ranges.hpp"
#include "pic/reference.hpp"
#include "pic/space_charge_kernels.hpp"

namespace partikel::pic {

namespace sc {

// One axis of the grid from the extent [lo, hi] of the particles: n nodes with `margin` empty
// cells on each side and 5 % to spare (a pencil beam still gets a grid of 1 nm cells).
PK_DEVICE_INLINE void fit_axis(double lo, double hi, int n, int margin, double& origin, double& h) {
    const double centre = 0.5 * (lo + hi);
    double half = 0.525 * (hi - lo);
    if (!(half > 1e-9)) half = 1e-9;
    h = 2.0 * half / double(n - 1 - 2 * margin);
    origin = centre - half - double(margin) * h;
}

struct ComputeGeometry {
    const BeamBounds* bounds;
    GridShape s;
    GridGeometry* out;
    PK_DEVICE_INLINE void operator()(std::size_t) const {
        const BeamBounds b = *bounds;
        GridGeometry g{};
        const bool any = b.alive > 0.0;
        fit_axis(any ? b.lo[0] : 0.0, any ? b.hi[0] : 0.0, s.nx, 2, g.x0, g.hx);
        fit_axis(any ? b.lo[1] : 0.0, any ? b.hi[1] : 0.0, s.ny, 2, g.y0, g.hy);
        const double C = s.circumference_m;
        if (s.periodic_z) {
            g.hz = C / double(s.nz);
            g.z0 = -0.5 * C;
        } else if (s.nz >= 4) {
            fit_axis(any ? b.lo[2] : 0.0, any ? b.hi[2] : 0.0, s.nz, 1, g.z0, g.hz);
        }
        if (s.nl > 0) {
            if (s.periodic_line) {
                g.hl = C / double(s.nl);
                g.zl0 = -0.5 * C;
            } else {  // twice the bunch: the line density vanishes towards both ends
                const double centre = any ? 0.5 * (b.lo[2] + b.hi[2]) : 0.0;
                double half = any ? 1.05 * (b.hi[2] - b.lo[2]) : 0.0;
                if (!(half > 1e-9)) half = 1e-9;
                g.hl = 2.0 * half / double(s.nl - 1);
                g.zl0 = centre - half;
            }
        }
        *out = g;
    }
};

PK_DEVICE_INLINE bool z_cell(const GridShape& s, const GridGeometry& g, double z, AxisWeight& w) {
    const double u = (z - g.z0) / g.hz;
    return s.periodic_z ? periodic_cell(u, s.nz, w) : axis_cell(u, s.nz, w);
}

// Node (k, j, i) of the index (k ny + j) nx + i. In 32 bits: a grid has fewer than 2^32 nodes
// (GridShape::cells() < 2^31 is checked), and a 32-bit division costs a fraction of a 64-bit
// one on either backend (the per-node kernels do little else).
struct NodeIndex {
    int i, j, k;
};
PK_DEVICE_INLINE NodeIndex node_index(std::size_t node, const GridShape& s) {
    const auto q = std::uint32_t(node), nx = std::uint32_t(s.nx), ny = std::uint32_t(s.ny);
    const std::uint32_t row = q / nx;
    return {int(q - row * nx), int(row % ny), int(row / ny)};
}

// A particle's cloud-in-cell weights: node c = j nx + i of its cell's lower corner in planes k
// and k + 1 (wrapped), the four corners' weights in x and y, and the two planes' weights in z
// (one plane when nz == 1). False for a particle off the grid.
struct CicCorners {
    int k, c;
    float w00, w10, w01, w11;
    float z0, z1;
};
PK_DEVICE_INLINE bool cic_corners(const BeamView& b, std::size_t i, const GridGeometry& g, const GridShape& s,
                                  CicCorners& out) {
    AxisWeight wx, wy, wz;
    if (!z_cell(s, g, b.z[i], wz) || !axis_cell((b.x[i] - g.x0) / g.hx, s.nx, wx) ||
        !axis_cell((b.y[i] - g.y0) / g.hy, s.ny, wy))
        return false;
    out.k = wz.i;
    out.c = wy.i * s.nx + wx.i;
    out.w00 = (1.0f - wx.f) * (1.0f - wy.f);
    out.w10 = wx.f * (1.0f - wy.f);
    out.w01 = (1.0f - wx.f) * wy.f;
    out.w11 = wx.f * wy.f;
    out.z0 = s.nz == 1 ? 1.0f : 1.0f - wz.f;
    out.z1 = wz.f;
    return true;
}

// Adds a particle's weights to the planes `near` (its z cell's) and `far` (the next; unused
// when nz == 1) of an nx-wide grid, with `add` (a shared-memory atomic or a plain add).
template <class Add>
PK_DEVICE_INLINE void add_cic(const CicCorners& w, int nx, int planes, float* near, float* far, Add add) {
    const int c = w.c;
    add(&near[c], w.z0 * w.w00);
    add(&near[c + 1], w.z0 * w.w10);
    add(&near[c + nx], w.z0 * w.w01);
    add(&near[c + nx + 1], w.z0 * w.w11);
    if (planes == 2) {
        add(&far[c], w.z1 * w.w00);
        add(&far[c + 1], w.z1 * w.w10);
        add(&far[c + nx], w.z1 * w.w01);
        add(&far[c + nx + 1], w.z1 * w.w11);
    }
}

// Keys for sorting: the z cell (privatised) or the 3-D cell (sorted); invalid beyond the last.
struct CellKeys {
    BeamView b;
    const GridGeometry* geometry;
    GridShape s;
    int full;
    std::uint32_t* keys;
    std::uint32_t* identity;
    PK_DEVICE_INLINE void operator()(std::size_t i) const {
        identity[i] = std::uint32_t(i);
        const std::uint32_t invalid = full ? std::uint32_t(s.cells()) : std::uint32_t(s.z_cells());
        keys[i] = invalid;
        if (b.status[i] != kAlive) return;
        const GridGeometry g = *geometry;
        AxisWeight wx, wy, wz;
        if (!z_cell(s, g, b.z[i], wz)) return;
        if (!full) {
            keys[i] = std::uint32_t(wz.i);
            return;
        }
        if (!axis_cell((b.x[i] - g.x0) / g.hx, s.nx, wx) || !axis_cell((b.y[i] - g.y0) / g.hy, s.ny, wy)) return;
        keys[i] = (std::uint32_t(wz.i) * std::uint32_t(s.ny) + std::uint32_t(wy.i)) * std::uint32_t(s.nx) + std::uint32_t(wx.i);
    }
};

// First block of each z cell in the privatised deposition (one thread; a few hundred cells).
struct BlockFirst {
    const std::uint32_t* cell_start;
    int cells;
    std::uint32_t* first;
    PK_DEVICE_INLINE void operator()(std::size_t) const {
        std::uint32_t total = 0;
        for (int k = 0; k < cells; ++k) {
            first[k] = total;
            total += (cell_start[k + 1] - cell_start[k] + kDepositChunk - 1) / kDepositChunk;
        }
        first[cells] = total;
    }
};

struct DepositPrivatised {
    static constexpr int kThreads = 256;
    BeamView b;
    const std::uint32_t* order;
    const std::uint32_t* cell_start;
    const std::uint32_t* block_first;
    const GridGeometry* geometry;
    GridShape s;
    float* rho;

    template <class Block> PK_HD void operator()(Block& blk) const {
        const int cells = s.z_cells();
        const auto block = std::uint32_t(blk.index());
        if (block >= block_first[cells]) return;  // the same for every thread of the block
        int lo = 0, hi = cells;  // block_first[lo] <= block < block_first[hi]
        while (hi - lo > 1) {
            const int mid = (lo + hi) / 2;
            if (block_first[mid] <= block) lo = mid;
            else hi = mid;
        }
        const int k = lo;
        const std::uint32_t first = cell_start[k] + (block - block_first[k]) * kDepositChunk;
        const std::uint32_t end = cell_start[k + 1];
        const std::uint32_t last = end < first + kDepositChunk ? end : first + kDepositChunk;
        const int nx = s.nx, plane = s.nx * s.ny, planes = s.nz == 1 ? 1 : 2;
        float* local = blk.template shared<float>();
        blk.threads([&](int t) {
            for (int c = t; c < planes * plane; c += kThreads) local[c] = 0.0f;
        });
        blk.sync();
        blk.threads([&](int t) {
            const GridGeometry g = *geometry;
            for (std::uint32_t p = first + std::uint32_t(t); p < last; p += kThreads) {
                CicCorners w;
                if (!cic_corners(b, order[p], g, s, w)) continue;  // the keys left out the lost
                add_cic(w, nx, planes, local, local + plane, [](float* a, float v) { block_atomic_add(a, v); });
            }
        });
        blk.sync();
        blk.threads([&](int t) {
            for (int c = t; c < planes * plane; c += kThreads) {
                const float v = local[c];
                if (v == 0.0f) continue;
                int kk = k + c / plane;
                if (kk == s.nz) kk = 0;
                const int r = c % plane;
                atomic_add(&rho[std::size_t(kk) * s.padded_plane() + std::size_t(r / nx) * std::size_t(2 * nx) +
                                std::size_t(r % nx)],
                           v);
            }
        });
    }
};

// The CPU's privatised deposition: copy c (one OpenMP thread) zeroes its own compact grid
// (nz x ny x nx) and deposits the particles [c n / copies, (c + 1) n / copies) into it, read in
// their order (no sort, no gather, no atomics); SumCopies then adds the copies node by node.
struct DepositCopies {
    static constexpr int kThreads = 1;
    BeamView b;
    const GridGeometry* geometry;
    GridShape s;
    std::size_t copies;
    float* grids;
    template <class Block> PK_HD void operator()(Block& blk) const {
        const std::size_t c = blk.index(), plane = std::size_t(s.nx) * std::size_t(s.ny), nodes = std::size_t(s.nz) * plane;
        float* grid = grids + c * nodes;
        for (std::size_t q = 0; q < nodes; ++q) grid[q] = 0.0f;
        const GridGeometry g = *geometry;
        const int planes = s.nz == 1 ? 1 : 2;
        for (std::size_t i = c * b.n / copies, last = (c + 1) * b.n / copies; i < last; ++i) {
            CicCorners w;
            if (b.status[i] != kAlive || !cic_corners(b, i, g, s, w)) continue;
            const int next = w.k + 1 == s.nz ? 0 : w.k + 1;
            add_cic(w, s.nx, planes, grid + std::size_t(w.k) * plane, grid + std::size_t(next) * plane,
                    [](float* a, float v) { *a += v; });
        }
    }
};

// Row r of the padded charge grid (nz x 2ny rows of 2nx): the sums of the copies' nodes, in
// copy order (zero outside the physical nodes); a row at a time, so the CPU's loops run along x.
struct SumCopies {
    const float* grids;
    std::size_t copies;
    GridShape s;
    float* rho;
    PK_DEVICE_INLINE void operator()(std::size_t r) const {
        const std::size_t nx = std::size_t(s.nx), ny = std::size_t(s.ny), nodes = std::size_t(s.nz) * nx * ny;
        const std::size_t k = r / (2 * ny), j = r % (2 * ny);
        float* out = rho + r * 2 * nx;
        for (std::size_t i = 0; i < 2 * nx; ++i) out[i] = 0.0f;
        if (j >= ny) return;
        const float* in = grids + (k * ny + j) * nx;
        for (std::size_t c = 0; c < copies; ++c)
            for (std::size_t i = 0; i < nx; ++i) out[i] += in[c * nodes + i];
    }
};

struct SortedFractions {
    BeamView b;
    const std::uint32_t* order;
    const std::uint32_t* sorted_keys;
    std::uint32_t invalid;
    const GridGeometry* geometry;
    GridShape s;
    CellFractions* fractions;
    PK_DEVICE_INLINE void operator()(std::size_t p) const {
        if (sorted_keys[p] >= invalid) return;
        const std::uint32_t i = order[p];
        const GridGeometry g = *geometry;
        AxisWeight wx{0, 0.0f}, wy{0, 0.0f}, wz{0, 0.0f};  // the key says the particle is on the grid
        z_cell(s, g, b.z[i], wz);
        axis_cell((b.x[i] - g.x0) / g.hx, s.nx, wx);
        axis_cell((b.y[i] - g.y0) / g.hy, s.ny, wy);
        fractions[p] = {wx.f, wy.f, wz.f, 0.0f};
    }
};

// Node (k, j, i) sums the particles of the cells it is a corner of: cell (k - dz, j - dy, i - dx)
// with weight (dx ? fx : 1 - fx) (dy ? ...) (dz ? ...).
struct GatherNodes {
    const CellFractions* fractions;
    const std::uint32_t* cell_start;
    GridShape s;
    float* rho;
    PK_DEVICE_INLINE void operator()(std::size_t node) const {
        const int nx = s.nx, ny = s.ny;
        const auto [i, j, k] = node_index(node, s);
        float sum = 0.0f;
        for (int dz = 0; dz < 2; ++dz) {
            int kc = k - dz;
            if (kc < 0) {
                if (!s.periodic_z) continue;
                kc += s.nz;
            }
            if (kc >= s.z_cells()) continue;
            for (int dy = 0; dy < 2; ++dy) {
                const int jc = j - dy;
                if (jc < 0 || jc > ny - 2) continue;
                for (int dx = 0; dx < 2; ++dx) {
                    const int ic = i - dx;
                    if (ic < 0 || ic > nx - 2) continue;
                    const std::size_t cell = (std::size_t(kc) * std::size_t(ny) + std::size_t(jc)) * std::size_t(nx) + std::size_t(ic);
                    for (std::uint32_t p = cell_start[cell]; p < cell_start[cell + 1]; ++p) {
                        const CellFractions f = fractions[p];
                        sum += (dx ? f.fx : 1.0f - f.fx) * (dy ? f.fy : 1.0f - f.fy) * (dz ? f.fz : 1.0f - f.fz);
                    }
                }
            }
        }
        rho[std::size_t(k) * s.padded_plane() + std::size_t(j) * std::size_t(2 * nx) + std::size_t(i)] = sum;
    }
};

struct DepositLine {
    static constexpr int kThreads = 256;
    BeamView b;
    const GridGeometry* geometry;
    GridShape s;
    float* line;
    template <class Block> PK_HD void operator()(Block& blk) const {
        float* local = blk.template shared<float>();
        const int nl = s.nl;
        blk.threads([&](int t) {
            for (int c = t; c < nl; c += kThreads) local[c] = 0.0f;
        });
        blk.sync();
        blk.threads([&](int t) {
            const GridGeometry g = *geometry;
            const std::size_t first = blk.index() * kDepositChunk;
            const std::size_t last = first + kDepositChunk < b.n ? first + kDepositChunk : b.n;
            for (std::size_t i = first + std::size_t(t); i < last; i += kThreads) {
                if (b.status[i] != kAlive) continue;
                AxisWeight w;
                const double u = (b.z[i] - g.zl0) / g.hl;
                if (!(s.periodic_line ? periodic_cell(u, nl, w) : axis_cell(u, nl, w))) continue;
                block_atomic_add(&local[w.i], 1.0f - w.f);
                block_atomic_add(&local[w.i + 1 == nl ? 0 : w.i + 1], w.f);
            }
        });
        blk.sync();
        blk.threads([&](int t) {
            for (int c = t; c < nl; c += kThreads)
                if (local[c] != 0.0f) atomic_add(&line[c], local[c]);
        });
    }
};

// Antiderivative of ln(u^2 + v^2) in u and v (d2F/du dv = ln(u^2 + v^2)), continuous at 0.
PK_DEVICE_INLINE double log_antiderivative(double u, double v) {
    double f = 0.0;
    if (u != 0.0 && v != 0.0) f += u * v * (log(u * u + v * v) - 3.0);
    if (u != 0.0) f += u * u * atan(v / u);
    if (v != 0.0) f += v * v * atan(u / v);
    return f;
}

// G(X, Y) = -1/(4 pi eps0) integral over the cell around (X, Y) of ln(x^2 + y^2): the potential
// at (X, Y) of a cell of unit charge density centred at the origin (Hockney and Eastwood,
// "Computer simulation using particles", 1988; integrated form: Qiang et al., PRST-AB 9, 044204, 2006).
struct FillGreen {
    const GridGeometry* geometry;
    GridShape s;
    float* green;
    PK_DEVICE_INLINE void operator()(std::size_t q) const {
        const int nx = s.nx, ny = s.ny;
        const int ip = int(q % std::size_t(2 * nx)), jp = int(q / std::size_t(2 * nx));
        if (ip == nx || jp == ny) {  // never between two physical nodes
            green[q] = 0.0f;
            return;
        }
        const GridGeometry g = *geometry;
        const double X = double(ip < nx ? ip : ip - 2 * nx) * g.hx, Y = double(jp < ny ? jp : jp - 2 * ny) * g.hy;
        const double a = 0.5 * g.hx, c = 0.5 * g.hy;
        const double corners = log_antiderivative(X + a, Y + c) - log_antiderivative(X - a, Y + c) -
                               log_antiderivative(X + a, Y - c) + log_antiderivative(X - a, Y - c);
        green[q] = float(-corners / (4.0 * constants::pi * constants::epsilon0_F_per_m));
    }
};

struct MultiplyGreen {
    Complexf* spectrum;
    const Complexf* green;
    const GridGeometry* geometry;
    std::size_t per_slice;
    double q_over_padded;  // q_macro / (4 nx ny)
    PK_DEVICE_INLINE void operator()(std::size_t q) const {
        const GridGeometry g = *geometry;
        const float scale = float(q_over_padded / (g.hx * g.hy * g.hz));
        const Complexf a = spectrum[q], b = green[q % per_slice];
        spectrum[q] = {scale * (a.re * b.re - a.im * b.im), scale * (a.re * b.im + a.im * b.re)};
    }
};

struct MomentSums {
    double v[1 + 2 * kMaxImageOrder];
};

// One block per slice: its weight and image moments, reduced in a fixed order.
struct SliceMoments {
    static constexpr int kThreads = 256;
    const float* rho;
    const GridGeometry* geometry;
    GridShape s;
    int order;
    double* moments;
    template <class Block> PK_HD void operator()(Block& blk) const {
        const int count = 1 + 2 * order, plane = s.nx * s.ny;
        const std::size_t k = blk.index();
        const float* slice = rho + k * s.padded_plane();
        double* partial = blk.template shared<double>();
        PerThread<MomentSums, Block> acc(blk);
        blk.threads([&](int t) {
            const GridGeometry g = *geometry;
            MomentSums& m = acc[t];
            for (int c = 0; c < count; ++c) m.v[c] = 0.0;
            for (int node = t; node < plane; node += kThreads) {
                const int j = node / s.nx, i = node % s.nx;
                const double w = slice[std::size_t(j) * std::size_t(2 * s.nx) + std::size_t(i)];
                if (w == 0.0) continue;
                m.v[0] += w;
                // conj(Z)^(n+1), Z = x + i y about the pipe's axis
                const double zr = g.x0 + i * g.hx, zi = -(g.y0 + j * g.hy);
                double pr = zr, pi = zi;
                for (int n = 0; n < order; ++n) {
                    m.v[1 + 2 * n] += w * pr;
                    m.v[2 + 2 * n] += w * pi;
                    const double r = pr * zr - pi * zi;
                    pi = pr * zi + pi * zr;
                    pr = r;
                }
            }
        });
        for (int c = 0; c < count; ++c) {
            blk.sync();
            blk.threads([&](int t) { partial[t] = acc[t].v[c]; });
            blk.sync();
            blk.threads([&](int t) {
                if (t == 0) {
                    double sum = 0.0;
                    for (int u = 0; u < kThreads; ++u) sum += partial[u];
                    moments[k * std::size_t(count) + std::size_t(c)] = sum;
                }
            });
        }
    }
};

struct FieldFromPotential {
    const float* phi;
    const double* moments;
    const GridGeometry* geometry;
    GridShape s;
    double image_factor;  // q_macro / (2 pi eps0)
    double pipe_radius;
    int order;
    FieldNode* field;
    float* slice_weight;
    PK_DEVICE_INLINE void operator()(std::size_t node) const {
        const int nx = s.nx, ny = s.ny;
        const auto [i, j, k] = node_index(node, s);
        const GridGeometry g = *geometry;
        const std::size_t row = std::size_t(2 * nx);
        const float* p = phi + std::size_t(k) * s.padded_plane() + std::size_t(j) * row + std::size_t(i);
        // central differences; second-order one-sided at the edges
        double dphidx, dphidy;
        if (i == 0) dphidx = (-3.0 * p[0] + 4.0 * p[1] - p[2]) / (2.0 * g.hx);
        else if (i == nx - 1) dphidx = (3.0 * p[0] - 4.0 * p[-1] + p[-2]) / (2.0 * g.hx);
        else dphidx = (double(p[1]) - double(p[-1])) / (2.0 * g.hx);
        const std::ptrdiff_t r = std::ptrdiff_t(row);
        if (j == 0) dphidy = (-3.0 * p[0] + 4.0 * p[r] - p[2 * r]) / (2.0 * g.hy);
        else if (j == ny - 1) dphidy = (3.0 * p[0] - 4.0 * p[-r] + p[-2 * r]) / (2.0 * g.hy);
        else dphidy = (double(p[r]) - double(p[-r])) / (2.0 * g.hy);
        double Ex = -dphidx, Ey = -dphidy;
        const int stride = 1 + 2 * order;
        const double* m = moments + std::size_t(k) * std::size_t(stride);
        if (pipe_radius > 0.0 && order > 0) {
            // E_x - i E_y = q / (2 pi eps0 hz) sum_n Z^n C_n / b^(2n+2)  (the images at b^2 / conj(z_j))
            const double zr = g.x0 + i * g.hx, zi = g.y0 + j * g.hy, b2 = pipe_radius * pipe_radius;
            double sr = 0.0, si = 0.0;
            for (int n = order - 1; n >= 0; --n) {
                const double scale = pow(b2, -(n + 1));
                const double r2 = sr * zr - si * zi + m[1 + 2 * n] * scale;
                si = sr * zi + si * zr + m[2 + 2 * n] * scale;
                sr = r2;
            }
            const double f = image_factor / g.hz;
            Ex += f * sr;
            Ey -= f * si;
        }
        const TransverseField here{float(Ex), float(Ey)};
        field[node].here = here;
        // the previous slice's `next` (a bunch's first slice has none: its place, the last
        // slice's, is read by no particle)
        const std::size_t plane = std::size_t(nx) * std::size_t(ny);
        const std::size_t previous = k > 0 ? node - plane : node + std::size_t(s.nz - 1) * plane;
        field[previous].next = k > 0 || s.periodic_z ? here : TransverseField{0.0f, 0.0f};
        if (i == 0 && j == 0) slice_weight[k] = float(m[0]);
    }
};

// Node (k, j, i) of the compact grid and its place in the padded one.
struct CopyCharge {
    const float* from;
    float* to;
    GridShape s;
    int to_compact;
    PK_DEVICE_INLINE void operator()(std::size_t node) const {
        const std::size_t nx = std::size_t(s.nx), plane = nx * std::size_t(s.ny);
        const std::size_t k = node / plane, r = node % plane;
        const std::size_t padded = k * s.padded_plane() + (r / nx) * (2 * nx) + r % nx;
        if (to_compact) to[node] = from[padded];
        else to[padded] = from[node];
    }
};

struct LineField {
    Complexf* spectrum;
    const GridGeometry* geometry;
    int nl;
    double factor;
    int cutoff;
    PK_DEVICE_INLINE void operator()(std::size_t m) const {
        const GridGeometry g = *geometry;
        const bool keep = m > 0 && int(m) <= cutoff && !(nl % 2 == 0 && int(m) == nl / 2);
        if (!keep) {
            spectrum[m] = {0.0f, 0.0f};
            return;
        }
        const double length = g.hl * nl;
        const double k = 2.0 * constants::pi * double(m) / length;
        const float f = float(k * factor / (g.hl * nl));
        const Complexf a = spectrum[m];
        spectrum[m] = {-f * a.im, f * a.re};  // times i k
    }
};

}  // namespace sc

namespace sc {
// The CPU's privatised deposition: one grid copy per thread, fewer for a small beam (a copy per
// kDepositChunk particles) or a large grid (all of them within kDepositCopiesBytes).
inline constexpr std::size_t kDepositCopiesBytes = std::size_t(1) << 30;
inline std::size_t deposit_copies(int threads, std::size_t n, const GridShape& s) {
    const std::size_t grid = std::size_t(s.nz) * std::size_t(s.nx) * std::size_t(s.ny) * sizeof(float);
    std::size_t copies = std::min<std::size_t>(std::size_t(threads), (n + kDepositChunk - 1) / kDepositChunk);
    copies = std::min(copies, kDepositCopiesBytes / grid);
    return copies > 0 ? copies : 1;
}
}  // namespace sc

template <class Exec> std::size_t deposit_scratch_bytes(const Exec& exec, std::size_t n, const GridShape& shape) {
    const std::size_t sort = exec.template sort_pairs_scratch_bytes<std::uint32_t, std::uint32_t>(n);
    if constexpr (Exec::is_cuda) {
        (void)shape;
        return sort;
    } else {
        const std::size_t grid = std::size_t(shape.nz) * std::size_t(shape.nx) * std::size_t(shape.ny) * sizeof(float);
        return std::max(sort, sc::deposit_copies(exec.threads(), n, shape) * grid);
    }
}

template <class Exec>
void compute_geometry(const Exec& exec, const BeamBounds* bounds, const GridShape& shape, GridGeometry* geometry) {
    exec.for_each(1, sc::ComputeGeometry{bounds, shape, geometry}, "pic.grid_geometry");
}

namespace sc {
inline int key_bits(std::uint32_t largest) {
    int bits = 1;
    while (bits < 32 && (std::uint64_t{1} << bits) <= largest) ++bits;
    return bits;
}

// Sort the particles by key (stable: ties keep particle order) and find each key's range.
template <class Exec>
void sort_by_cell(const Exec& exec, Workspace& ws, const BeamView& beam, const GridGeometry* geometry,
                  const GridShape& shape, const DepositBuffers& d, bool full, std::uint32_t cells) {
    const std::size_t n = beam.n;
    exec.for_each(n, CellKeys{beam, geometry, shape, full ? 1 : 0, d.keys, d.identity}, "pic.cell_keys");
    exec.sort_pairs(ws, d.keys, d.keys_sorted, d.identity, d.order, n, 0, key_bits(cells));
    key_starts(exec, d.keys_sorted, n, cells, d.cell_start, "pic.cell_starts");
}
}  // namespace sc

template <class Exec>
void deposit_privatised(const Exec& exec, Workspace& ws, const BeamView& beam, const GridGeometry* geometry,
                        const GridShape& shape, const DepositBuffers& d, float* rho) {
    if constexpr (!Exec::is_cuda) {
        // The CPU has no shared memory to privatise in but a cache per core: a grid per thread
        // over the particles in their order does without the sort, the gather by z cell and
        // the atomics (docs/PERFORMANCE.md, "The PIC turn on the CPU").
        const std::size_t copies = sc::deposit_copies(exec.threads(), beam.n, shape);
        const std::size_t grid = std::size_t(shape.nz) * std::size_t(shape.nx) * std::size_t(shape.ny);
        auto* grids = static_cast<float*>(ws.require(copies * grid * sizeof(float), "deposit copies"));
        exec.for_each_block(copies, 0, sc::DepositCopies{beam, geometry, shape, copies, grids}, "pic.deposit_copies");
        exec.for_each(std::size_t(shape.nz) * std::size_t(2 * shape.ny), sc::SumCopies{grids, copies, shape, rho},
                      "pic.sum_copies");
        return;
    }
    exec.fill_zero(rho, std::size_t(shape.nz) * shape.padded_plane() * sizeof(float));
    const auto cells = std::uint32_t(shape.z_cells());
    sc::sort_by_cell(exec, ws, beam, geometry, shape, d, false, cells);
    exec.for_each(1, sc::BlockFirst{d.cell_start, int(cells), d.block_first}, "pic.block_first");
    const std::size_t blocks = (beam.n + kDepositChunk - 1) / kDepositChunk + cells;
    exec.for_each_block(blocks, privatised_shared_bytes(shape),
                        sc::DepositPrivatised{beam, d.order, d.cell_start, d.block_first, geometry, shape, rho},
                        "pic.deposit_privatised");
}

template <class Exec>
void deposit_sorted(const Exec& exec, Workspace& ws, const BeamView& beam, const GridGeometry* geometry,
                    const GridShape& shape, const DepositBuffers& d, float* rho) {
    exec.fill_zero(rho, std::size_t(shape.nz) * shape.padded_plane() * sizeof(float));
    const auto cells = std::uint32_t(shape.cells());
    sc::sort_by_cell(exec, ws, beam, geometry, shape, d, true, cells);
    exec.for_each(beam.n, sc::SortedFractions{beam, d.order, d.keys_sorted, cells, geometry, shape, d.fractions},
                  "pic.sorted_fractions");
    exec.for_each(std::size_t(shape.nz) * std::size_t(shape.nx) * std::size_t(shape.ny),
                  sc::GatherNodes{d.fractions, d.cell_start, shape, rho}, "pic.gather_nodes");
}

template <class Exec>
void deposit_line(const Exec& exec, const BeamView& beam, const GridGeometry* geometry, const GridShape& shape, float* line) {
    exec.fill_zero(line, std::size_t(shape.nl) * sizeof(float));
    const std::size_t blocks = (beam.n + kDepositChunk - 1) / kDepositChunk;
    exec.for_each_block(blocks, std::size_t(shape.nl) * sizeof(float), sc::DepositLine{beam, geometry, shape, line},
                        "pic.deposit_line");
}

template <class Exec> void fill_green(const Exec& exec, const GridGeometry* geometry, const GridShape& shape, float* green) {
    exec.for_each(shape.padded_plane(), sc::FillGreen{geometry, shape, green}, "pic.fill_green");
}

template <class Exec>
void multiply_green(const Exec& exec, Complexf* spectrum, const Complexf* green_spectrum, const GridGeometry* geometry,
                    const GridShape& shape, double macro_charge_C) {
    const std::size_t per_slice = std::size_t(2 * shape.ny) * std::size_t(shape.nx + 1);
    exec.for_each(per_slice * std::size_t(shape.nz),
                  sc::MultiplyGreen{spectrum, green_spectrum, geometry, per_slice,
                                    macro_charge_C / (4.0 * double(shape.nx) * double(shape.ny))},
                  "pic.multiply_green");
}

template <class Exec>
void slice_moments(const Exec& exec, const float* rho, const GridGeometry* geometry, const GridShape& shape,
                   int image_order, double* moments) {
    exec.for_each_block(std::size_t(shape.nz), sc::SliceMoments::kThreads * sizeof(double),
                        sc::SliceMoments{rho, geometry, shape, image_order, moments}, "pic.slice_moments");
}

template <class Exec>
void field_from_potential(const Exec& exec, const float* phi, const double* moments, const GridGeometry* geometry,
                          const GridShape& shape, double macro_charge_C, double pipe_radius_m, int image_order,
                          FieldNode* field, float* slice_weight) {
    exec.for_each(std::size_t(shape.nz) * std::size_t(shape.nx) * std::size_t(shape.ny),
                  sc::FieldFromPotential{phi, moments, geometry, shape,
                                         macro_charge_C / (2.0 * constants::pi * constants::epsilon0_F_per_m),
                                         pipe_radius_m, image_order, field, slice_weight},
                  "pic.field_from_potential");
}

template <class Exec> void pack_charge(const Exec& exec, const float* rho, const GridShape& shape, float* compact) {
    exec.for_each(std::size_t(shape.nz) * std::size_t(shape.nx) * std::size_t(shape.ny), sc::CopyCharge{rho, compact, shape, 1},
                  "pic.pack_charge");
}

template <class Exec> void unpack_charge(const Exec& exec, const float* compact, const GridShape& shape, float* rho) {
    exec.for_each(std::size_t(shape.nz) * std::size_t(shape.nx) * std::size_t(shape.ny), sc::CopyCharge{compact, rho, shape, 0},
                  "pic.unpack_charge");
}

template <class Exec>
void line_field(const Exec& exec, Complexf* spectrum, const GridGeometry* geometry, const GridShape& shape, double factor,
                int cutoff) {
    exec.for_each(std::size_t(shape.nl / 2 + 1), sc::LineField{spectrum, geometry, shape.nl, factor, cutoff},
                  "pic.line_field");
}

#define PK_PIC_SPACE_CHARGE_INSTANTIATE(Exec)                                                                      \
    template std::size_t deposit_scratch_bytes(const Exec&, std::size_t, const GridShape&);                       \
    template void compute_geometry(const Exec&, const BeamBounds*, const GridShape&, GridGeometry*);              \
    template void deposit_privatised(const Exec&, Workspace&, const BeamView&, const GridGeometry*,              \
                                     const GridShape&, const DepositBuffers&, float*);                            \
    template void deposit_sorted(const Exec&, Workspace&, const BeamView&, const GridGeometry*, const GridShape&, \
                                 const DepositBuffers&, float*);                                                  \
    template void deposit_line(const Exec&, const BeamView&, const GridGeometry*, const GridShape&, float*);      \
    template void fill_green(const Exec&, const GridGeometry*, const GridShape&, float*);                         \
    template void multiply_green(const Exec&, Complexf*, const Complexf*, const GridGeometry*, const GridShape&, \
                                 double);                                                                          \
    template void slice_moments(const Exec&, const float*, const GridGeometry*, const GridShape&, int, double*);  \
    template void field_from_potential(const Exec&, const float*, const double*, const GridGeometry*,            \
                                       const GridShape&, double, double, int, FieldNode*, float*);                \
    template void line_field(const Exec&, Complexf*, const GridGeometry*, const GridShape&, double, int);        \
    template void pack_charge(const Exec&, const float*, const GridShape&, float*);                             \
    template void unpack_charge(const Exec&, const float*, const GridShape&, float*);

}  // namespace partikel::pic
