// The space-charge fields on their grids and the kick they give a particle, written once for
// both backends (docs/PIC.md, "Space charge").
//
// Transverse: nz slices of ny x nx nodes, node (k, j, i) at (x0 + i hx, y0 + j hy, z0 + k hz),
// x fastest; cloud-in-cell (linear) weights in x, y and z. Longitudinal: nl nodes at
// zl0 + j hl. The grids' origins and spacings follow the beam; they live on the device
// (GridGeometry), written by the solver and read by the kernels, so no host round trip is needed.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/hd.hpp"
#include "pic/track_ops.hpp"

namespace partikel::pic {

struct GridGeometry {
    double x0, y0, z0;  // transverse nodes (m)
    double hx, hy, hz;
    double zl0, hl;     // longitudinal line-density nodes (m)
};

// Linear weights along one axis: node i gets 1 - f, node i + 1 gets f.
struct AxisWeight {
    int i;
    float f;
};

// Cell of coordinate u (in units of the spacing from the first node) on n nodes; false when
// the cell [i, i + 1] is not on the grid (or u is not a number).
PK_DEVICE_INLINE bool axis_cell(double u, int n, AxisWeight& w) {
    if (!(u >= 0.0 && u < double(n - 1))) return false;
    w.i = int(u);
    w.f = float(u - double(w.i));
    return true;
}

// The same on a periodic axis of n nodes (period n spacings): node i + 1 wraps to 0.
PK_DEVICE_INLINE bool periodic_cell(double u, int n, AxisWeight& w) {
    if (!(u > -1e18 && u < 1e18)) return false;
    double k = floor(u);
    w.f = float(u - k);
    k -= double(n) * floor(k / double(n));
    w.i = int(k);
    if (w.i >= n) w.i = 0;  // round-off at the period's end
    return true;
}

// E_x and E_y of a node together (V/m): a kick's eight corner loads are 8-byte loads, half the
// memory requests of two separate arrays (the kicks' scattered loads dominate a space-charge turn).
struct alignas(8) TransverseField {
    float x, y;
};

// A node's field and that of the same node in the next slice (wrapped; zero past the last slice
// of a bunch, where no particle reads it): a kick's eight corners in four 16-byte loads from two
// rows of one array, half the cache lines (CPU) and sectors (GPU) of two planes apart.
struct alignas(16) FieldNode {
    TransverseField here, next;
};

struct FieldMapView {
    // transverse, per slice node: E (V/m) and the slice's weight (macroparticles) for the field
    // outside the grid (a line charge at the grid's centre)
    const FieldNode* e;
    const float* slice_weight;
    int nx, ny, nz;
    int periodic_z;         // coasting: slices wrap around the ring
    double far_field;       // q_macro / (2 pi eps0): times weight / hz / r = E (V/m)
    // longitudinal: E_z (V/m) per node
    const float* ez;
    int nl;
    int periodic_line;
    const GridGeometry* geometry;
    // kicks: slope change per V/m over the node's length (q L / (gamma^3 beta^2 m c^2)) and
    // delta change per V/m (q L / (beta^2 gamma m c^2))
    double transverse_kick;
    double longitudinal_kick;

    PK_DEVICE_INLINE bool active() const { return e != nullptr || ez != nullptr; }

    PK_DEVICE_INLINE void kick(Coordinates& c) const {
        const GridGeometry g = *geometry;
        if (e) {
            AxisWeight wz;
            const double uz = (c.z - g.z0) / g.hz;
            const bool in_z = periodic_z ? periodic_cell(uz, nz, wz) : axis_cell(uz, nz, wz);
            if (in_z) {
                const int k0 = wz.i, k1 = (wz.i + 1 == nz) ? 0 : wz.i + 1;  // nz == 1 only when periodic
                AxisWeight wx, wy;
                double Ex, Ey;
                if (axis_cell((c.x - g.x0) / g.hx, nx, wx) && axis_cell((c.y - g.y0) / g.hy, ny, wy)) {
                    const std::size_t plane = std::size_t(nx) * std::size_t(ny);
                    const std::size_t b = std::size_t(k0) * plane + std::size_t(wy.i) * std::size_t(nx) + std::size_t(wx.i);
                    const float gx = wx.f, gy = wy.f, gz = wz.f;
                    const float w00 = (1.0f - gx) * (1.0f - gy), w10 = gx * (1.0f - gy), w01 = (1.0f - gx) * gy,
                                w11 = gx * gy;
                    const FieldNode f00 = e[b], f10 = e[b + 1], f01 = e[b + std::size_t(nx)], f11 = e[b + std::size_t(nx) + 1];
                    auto plane_sum = [&](TransverseField FieldNode::*slice) {
                        return TransverseField{
                            w00 * (f00.*slice).x + w10 * (f10.*slice).x + w01 * (f01.*slice).x + w11 * (f11.*slice).x,
                            w00 * (f00.*slice).y + w10 * (f10.*slice).y + w01 * (f01.*slice).y + w11 * (f11.*slice).y};
                    };
                    const TransverseField p0 = plane_sum(&FieldNode::here), p1 = plane_sum(&FieldNode::next);
                    Ex = double((1.0f - gz) * p0.x + gz * p1.x);
                    Ey = double((1.0f - gz) * p0.y + gz * p1.y);
                } else {
                    // Outside the grid: the slice as a line charge at the grid's centre.
                    const double weight = (1.0 - double(wz.f)) * slice_weight[k0] + double(wz.f) * slice_weight[k1];
                    const double dx = c.x - (g.x0 + 0.5 * g.hx * (nx - 1)), dy = c.y - (g.y0 + 0.5 * g.hy * (ny - 1));
                    const double r2 = dx * dx + dy * dy;
                    const double s = r2 > 0.0 ? far_field * weight / (g.hz * r2) : 0.0;
                    Ex = s * dx;
                    Ey = s * dy;
                }
                c.xp += transverse_kick * Ex;
                c.yp += transverse_kick * Ey;
            }
        }
        if (ez) {
            AxisWeight w;
            const double u = (c.z - g.zl0) / g.hl;
            if (periodic_line ? periodic_cell(u, nl, w) : axis_cell(u, nl, w)) {
                const int j1 = (w.i + 1 == nl) ? 0 : w.i + 1;
                c.delta += longitudinal_kick * double((1.0f - w.f) * ez[w.i] + w.f * ez[j1]);
            }
        }
    }
};

}  // namespace partikel::pic
