// The PK_HD search over a CellGridView: cell coordinates, the cell ranges of each search shape
// and for_each_neighbor. Included by cell_grid.hpp; plain C++ that nvcc and the host compiler
// both compile (no backend includes).
#pragma once

#include <cstdint>
#include <type_traits>
#if !defined(__CUDA_ARCH__) && defined(__SSE2__)
#include <immintrin.h>
#endif

#include "core/cell_coord.hpp"
#include "core/fast_math.hpp"
#include "base/hd.hpp"
#include "base/vec.hpp"
#include "frnn/box.hpp"

namespace partikel::frnn {

namespace detail {

PK_DEVICE_INLINE int imin(int a, int b) { return a < b ? a : b; }
PK_DEVICE_INLINE int imax(int a, int b) { return a > b ? a : b; }

// Cell coordinate along one axis in unwrapped cell units, clamped to +-2^30 (NaN gives 0).
PK_DEVICE_INLINE int unwrapped_coord(float x, float origin, float inv_cell) {
    float t = (x - origin) * inv_cell;
    t = min_of(max_of(t, -1073741824.0f), 1073741824.0f);
    return static_cast<int>(floorf(t));
}

// Wrap a cell coordinate into [0, n).
PK_DEVICE_INLINE int wrap_coord(int c, int n) {
    int m = c % n;
    return m < 0 ? m + n : m;
}

}  // namespace detail

// The cell coordinate of position x along `axis`: clamped into the edge cells on open axes,
// wrapped on periodic ones. The same function places particles at build time and finds the
// home cell of a query.
PK_DEVICE_INLINE int cell_coord(const CellGridView& g, int axis, float x) {
    const float origin = g.origin[axis];
    const float inv = g.inv_cell_size[axis];
    const int n = g.dims[axis];
    if (g.box.periodic_mask & (1u << axis)) return detail::wrap_coord(detail::unwrapped_coord(x, origin, inv), n);
    return clamped_cell_coord(x, origin, inv, n);
}

// Linear cell id (x fastest) of cell coordinates; the Morton rank when the grid uses Z-order.
PK_DEVICE_INLINE std::uint32_t cell_id(const CellGridView& g, int ix, int iy, int iz) {
    std::uint32_t linear = static_cast<std::uint32_t>(ix) +
                           static_cast<std::uint32_t>(g.dims[0]) *
                               (static_cast<std::uint32_t>(iy) + static_cast<std::uint32_t>(g.dims[1]) *
                                                                     static_cast<std::uint32_t>(iz));
    return g.morton_rank ? g.morton_rank[linear] : linear;
}

PK_DEVICE_INLINE std::uint32_t cell_of(const CellGridView& g, Vec3f p) {
    return cell_id(g, cell_coord(g, 0, p.x), cell_coord(g, 1, p.y), cell_coord(g, 2, p.z));
}

namespace detail {

// The cells visited along the y or z axis: first, first+1, ..., first+count-1, taken modulo n
// when `wrap` (periodic axes; first in [0, n)). `offset0` is the offset of `first` from the
// home cell (for the Sphere table) or, for the position-based shapes (tight, ball), the
// unwrapped coordinate of `first`; meaningless when `whole` (every cell of a periodic axis).
struct AxisSpan {
    int first;
    int count;
    int offset0;
    bool wrap;
    bool whole;
};

// Cells [home + lo, home + hi] along one axis: clamped to the grid on open axes (branch-free
// min/max), wrapped on periodic axes, or the whole axis once the span covers it.
PK_DEVICE_INLINE AxisSpan block_span(int home, int lo, int hi, int n, bool periodic) {
    if (!periodic) {
        const int first = imax(home + lo, 0);
        const int last = imin(home + hi, n - 1);
        return {first, last - first + 1, first - home, false, false};
    }
    if (hi - lo + 1 >= n) return {0, n, 0, false, true};
    return {wrap_coord(home + lo, n), hi - lo + 1, lo, true, false};
}

// Cells overlapping [x - reach, x + reach] along one axis (the `tight` shape; the `ball` shape's
// x rows with their own reach), in unwrapped coordinates [lo, hi]; clamped with the same
// monotone formula as cell_coord on open axes, so that a particle within reach can never lie
// outside. `reach` must carry the few-ulp widening of CellGridView::reach.
PK_DEVICE_INLINE void tight_bounds(const CellGridView& g, int axis, float x, float reach, int& lo, int& hi) {
    const float origin = g.origin[axis];
    const float inv = g.inv_cell_size[axis];
    const int n = g.dims[axis];
    if (g.box.periodic_mask & (1u << axis)) {
        reach += g.reach_slack[axis];
        lo = unwrapped_coord(x - reach, origin, inv);
        hi = unwrapped_coord(x + reach, origin, inv);
        return;
    }
    const float top = static_cast<float>(n - 1);
    lo = static_cast<int>(min_of(max_of((x - reach - origin) * inv, 0.0f), top));
    hi = static_cast<int>(min_of(max_of((x + reach - origin) * inv, 0.0f), top));
}

// The `ball` shape along one axis (y or z) of a search from a position at u (cell units from
// the origin, unclamped): distance (m) to the slab of cells with unwrapped coordinate c, made
// short by `margin` cells so that a row is never trimmed below the true distance.
// The edge cells of open axes also hold the particles beyond the grid (cell_coord clamps), so
// they extend outwards without end.
struct SlabDistance {
    float u;       // position in cell units
    float margin;  // cells: several ulp of u, and the periodic wrap's rounding
    float cell;    // m, cell edge
    int last;      // the last cell of an open axis; -1 on periodic axes
    PK_DEVICE_INLINE SlabDistance(const CellGridView& g, int axis, float x) {
        const bool periodic = (g.box.periodic_mask & (1u << axis)) != 0;
        u = (x - g.origin[axis]) * g.inv_cell_size[axis];
        margin = 1.0f / 1024.0f + fabsf(u) * (1.0f / 1048576.0f) +
                 (periodic ? g.reach_slack[axis] * g.inv_cell_size[axis] : 0.0f);
        cell = g.cell_size[axis];
        last = periodic ? -1 : g.dims[axis] - 1;
    }
    PK_DEVICE_INLINE float operator()(int c) const {
        const float below = c == 0 && last >= 0 ? 0.0f : static_cast<float>(c) - u;
        const float above = c == last ? 0.0f : u - static_cast<float>(c + 1);
        return max_of(max_of(below, above) - margin, 0.0f) * cell;
    }
};

template <SearchShape Shape> PK_DEVICE_INLINE AxisSpan shape_span(const CellGridView& g, int axis, float x) {
    const int n = g.dims[axis];
    const bool periodic = (g.box.periodic_mask & (1u << axis)) != 0;
    if constexpr (Shape == SearchShape::tight || Shape == SearchShape::ball) {
        int lo, hi;
        tight_bounds(g, axis, x, g.reach, lo, hi);
        if (!periodic) return {lo, hi - lo + 1, lo, false, false};
        if (hi - lo + 1 >= n) return {0, n, 0, false, true};
        return {wrap_coord(lo, n), hi - lo + 1, lo, true, false};
    } else {
        const int K = 1 << g.subdivision;
        const int home = cell_coord(g, axis, x);
        if constexpr (Shape == SearchShape::full) {
            // The 3 coarse cells (edge r) around the home coarse cell, in subcells.
            const int r = home & (K - 1);
            return block_span(home, -K - r, 2 * K - 1 - r, n, periodic);
        } else {
            return block_span(home, -K, K, n, periodic);
        }
    }
}

// A range of x cells [a, b] in unwrapped cell coordinates (before clamping or wrapping), or
// the whole x axis of a periodic grid.
struct XInterval {
    int a;
    int b;
    bool whole;
};

PK_DEVICE_INLINE XInterval make_x_interval(const CellGridView& g, int a, int b) {
    const bool periodic = (g.box.periodic_mask & 1u) != 0;
    return {a, b, periodic && b - a + 1 >= g.dims[0]};
}

// Visit the x cells [iv.a, iv.b] of row (iy, iz): clamped to the grid on open faces
// (branch-free min/max), one contiguous particle range, or two where a periodic x row wraps;
// cell by cell with Morton numbering. Returns the number of cells.
template <class F>
PK_DEVICE_INLINE std::uint32_t visit_x_interval(const CellGridView& g, XInterval iv, int iy, int iz, F& f) {
    const int n = g.dims[0];
    int first, count;
    if (iv.whole) {
        first = 0;
        count = n;
    } else if (g.box.periodic_mask & 1u) {
        first = wrap_coord(iv.a, n);
        count = iv.b - iv.a + 1;
    } else {
        first = imax(iv.a, 0);
        count = imin(iv.b, n - 1) - first + 1;
    }
    if (count <= 0) return 0;
    if (g.morton_rank) {
        int c = first;
        for (int t = 0; t < count; ++t, ++c) {
            if (c >= n) c -= n;
            const std::uint32_t id = cell_id(g, c, iy, iz);
            f(g.cell_start[id], g.cell_start[id + 1]);
        }
        return static_cast<std::uint32_t>(count);
    }
    const std::uint32_t row =
        static_cast<std::uint32_t>(n) *
        (static_cast<std::uint32_t>(iy) + static_cast<std::uint32_t>(g.dims[1]) * static_cast<std::uint32_t>(iz));
    const int last = first + count - 1;
    if (last >= n) {
        f(g.cell_start[row + static_cast<std::uint32_t>(first)], g.cell_start[row + static_cast<std::uint32_t>(n)]);
        f(g.cell_start[row], g.cell_start[row + static_cast<std::uint32_t>(last - n + 1)]);
    } else {
        f(g.cell_start[row + static_cast<std::uint32_t>(first)], g.cell_start[row + static_cast<std::uint32_t>(last + 1)]);
    }
    return static_cast<std::uint32_t>(count);
}

// How far one row of a search reaches along x: `cells` is the Sphere's largest |dx| (in cells,
// from the table), `x_reach` the ball's half-width (m, widened like CellGridView::reach).
struct RowReach {
    int cells;
    float x_reach;
};

// The x interval of one row for a search from x position `px` (home x cell `hx`). Block shapes
// depend on the home cell only, `tight` and `ball` on the position.
template <SearchShape Shape>
PK_DEVICE_INLINE XInterval row_x_interval(const CellGridView& g, float px, int hx, RowReach reach) {
    const int K = 1 << g.subdivision;
    const int ext = reach.cells;
    if constexpr (Shape == SearchShape::tight || Shape == SearchShape::ball) {
        int lo, hi;
        tight_bounds(g, 0, px, reach.x_reach, lo, hi);
        return make_x_interval(g, lo, hi);
    } else if constexpr (Shape == SearchShape::full) {
        const int cb = hx & ~(K - 1);
        return make_x_interval(g, cb - K, cb + 2 * K - 1);
    } else if constexpr (Shape == SearchShape::sphere) {
        return make_x_interval(g, hx - ext, hx + ext);
    } else {
        return make_x_interval(g, hx - K, hx + K);
    }
}

// The part of a row's x interval that every home cell of the x group [gb, ge] searches (seed
// 004's registration order): the intersection of their intervals.
template <SearchShape Shape>
PK_DEVICE_INLINE XInterval shared_x_interval(const CellGridView& g, int gb, int ge, RowReach reach) {
    const int ext = reach.cells;
    const int K = 1 << g.subdivision;
    if constexpr (Shape == SearchShape::full) {
        return {(ge & ~(K - 1)) - K, (gb & ~(K - 1)) + 2 * K - 1, false};
    } else if constexpr (Shape == SearchShape::sphere) {
        return {ge - ext, gb + ext, false};
    } else {
        return {ge - K, gb + K, false};
    }
}

// Calls row(iy, iz, reach) for each (dy, dz) row of the search, z outer, y inner, with the
// row's RowReach; rows the Sphere or the ball leave out are skipped. The ball keeps the rows
// whose cells come within `reach` of p in (y, z), each with the x half-width
// sqrt(reach^2 - d_yz^2) left at that distance (about 2/3 of the tight box's candidates at k = 1).
template <SearchShape Shape, class Row> PK_DEVICE_INLINE void for_each_row(const CellGridView& g, Vec3f p, Row&& row) {
    const AxisSpan zs = shape_span<Shape>(g, 2, p.z);
    const AxisSpan ys = shape_span<Shape>(g, 1, p.y);
    const int K = 1 << g.subdivision;
    // The ball's distances to the rows, and the x half-width's widening: CellGridView::reach's
    // few ulp of r, and a few ulp of p.x for the rounding of p.x -+ half-width in tight_bounds.
    [[maybe_unused]] const SlabDistance slab_y(g, 1, p.y), slab_z(g, 2, p.z);
    [[maybe_unused]] const float widening = (g.reach - g.radius) + fabsf(p.x) * (1.0f / 4194304.0f);
    int iz = zs.first;
    for (int tz = 0; tz < zs.count; ++tz, ++iz) {
        if (zs.wrap && iz >= g.dims[2]) iz -= g.dims[2];
        [[maybe_unused]] float dz2 = 0.0f;
        if constexpr (Shape == SearchShape::ball) {
            const float dz = zs.whole ? 0.0f : slab_z(zs.offset0 + tz);
            dz2 = dz * dz;
        }
        int iy = ys.first;
        for (int ty = 0; ty < ys.count; ++ty, ++iy) {
            if (ys.wrap && iy >= g.dims[1]) iy -= g.dims[1];
            RowReach reach{K, g.reach};
            if constexpr (Shape == SearchShape::sphere) {
                // Row (dy, dz) from the precomputed table (-1: empty row). On a periodic axis
                // covered whole the row is taken at offset 0, the widest.
                const int dz = zs.whole ? 0 : zs.offset0 + tz;
                const int dy = ys.whole ? 0 : ys.offset0 + ty;
                reach.cells = g.sphere_rows[(dz + K) * (2 * K + 1) + (dy + K)];
                if (reach.cells < 0) continue;
            } else if constexpr (Shape == SearchShape::ball) {
                const float dy = ys.whole ? 0.0f : slab_y(ys.offset0 + ty);
                const float left = g.radius2 - (dy * dy + dz2);
                if (left < 0.0f) continue;
                // 8 ulp over the root for the GPU's approximate square root (within 2 ulp).
                reach.x_reach = approx_sqrt(left) * (1.0f + 1.0f / 1048576.0f) + widening;
            }
            row(iy, iz, reach);
        }
    }
}

}  // namespace detail

template <SearchShape Shape, class F>
PK_HD std::uint32_t for_each_candidate_range(const CellGridView& g, Vec3f p, F&& f) {
    if (g.count == 0) return 0;
    const int hx = Shape == SearchShape::tight || Shape == SearchShape::ball ? 0 : cell_coord(g, 0, p.x);
    std::uint32_t cells = 0;
    detail::for_each_row<Shape>(g, p, [&](int iy, int iz, detail::RowReach reach) {
        cells += detail::visit_x_interval(g, detail::row_x_interval<Shape>(g, p.x, hx, reach), iy, iz, f);
    });
    return cells;
}

template <SearchShape Shape, class F>
PK_HD std::uint32_t for_each_candidate_range_grouped(const CellGridView& g, Vec3f p, int group_log2, F&& f) {
    static_assert(Shape != SearchShape::tight && Shape != SearchShape::ball,
                  "the registration order needs a block shape (full, cube, sphere)");
    if (g.count == 0) return 0;
    const int hx = cell_coord(g, 0, p.x);
    const int gb = (hx >> group_log2) << group_log2;
    const int ge = detail::imin(gb + (1 << group_log2) - 1, g.dims[0] - 1);
    std::uint32_t cells = 0;
    // Pass 1: per row, the cells every home cell of the group searches, in one order for all.
    detail::for_each_row<Shape>(g, p, [&](int iy, int iz, detail::RowReach reach) {
        const detail::XInterval own = detail::row_x_interval<Shape>(g, p.x, hx, reach);
        if (own.whole) {
            cells += detail::visit_x_interval(g, own, iy, iz, f);
            return;
        }
        const detail::XInterval shared = detail::shared_x_interval<Shape>(g, gb, ge, reach);
        if (shared.a <= shared.b) cells += detail::visit_x_interval(g, shared, iy, iz, f);
    });
    // Pass 2: the rest of this cell's own search, left of the shared part then right of it.
    detail::for_each_row<Shape>(g, p, [&](int iy, int iz, detail::RowReach reach) {
        const detail::XInterval own = detail::row_x_interval<Shape>(g, p.x, hx, reach);
        if (own.whole) return;
        const detail::XInterval shared = detail::shared_x_interval<Shape>(g, gb, ge, reach);
        if (shared.a > shared.b) {
            cells += detail::visit_x_interval(g, own, iy, iz, f);
            return;
        }
        cells += detail::visit_x_interval(g, detail::XInterval{own.a, shared.a - 1, false}, iy, iz, f);
        cells += detail::visit_x_interval(g, detail::XInterval{shared.b + 1, own.b, false}, iy, iz, f);
    });
    return cells;
}

namespace detail {
// The distance tests of for_each_neighbor_record fill a bit mask per chunk of candidates: a
// warp's 32 lanes' worth on the GPU, 64 on the CPU.
#if defined(__CUDA_ARCH__)
using CandidateMask = std::uint32_t;
PK_DEVICE_INLINE std::uint32_t lowest_set_bit(std::uint32_t m) { return static_cast<std::uint32_t>(__ffs(m) - 1); }
#else
using CandidateMask = std::uint64_t;
inline std::uint32_t lowest_set_bit(std::uint64_t m) { return static_cast<std::uint32_t>(__builtin_ctzll(m)); }
#endif

#if !defined(__CUDA_ARCH__) && defined(__SSE2__)
// The distance tests of four records at once on the CPU, open box: bit i set when record i is
// within the radius. Lane by lane the float operations of distance2(p - q), so the same bits.
struct FourCandidates {
    __m128 px, py, pz, radius2;
    FourCandidates(Vec3f p, float r2) : px(_mm_set1_ps(p.x)), py(_mm_set1_ps(p.y)), pz(_mm_set1_ps(p.z)), radius2(_mm_set1_ps(r2)) {}
    std::uint32_t operator()(const Vec4f* c) const {
        const __m128 r0 = _mm_loadu_ps(&c[0].x), r1 = _mm_loadu_ps(&c[1].x);
        const __m128 r2 = _mm_loadu_ps(&c[2].x), r3 = _mm_loadu_ps(&c[3].x);
        const __m128 xy01 = _mm_unpacklo_ps(r0, r1), xy23 = _mm_unpacklo_ps(r2, r3);  // x0 x1 y0 y1, x2 x3 y2 y3
        const __m128 zw01 = _mm_unpackhi_ps(r0, r1), zw23 = _mm_unpackhi_ps(r2, r3);
        const __m128 dx = _mm_sub_ps(px, _mm_movelh_ps(xy01, xy23));
        const __m128 dy = _mm_sub_ps(py, _mm_movehl_ps(xy23, xy01));
        const __m128 dz = _mm_sub_ps(pz, _mm_movelh_ps(zw01, zw23));
        const __m128 d2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz));
        return static_cast<std::uint32_t>(_mm_movemask_ps(_mm_cmple_ps(d2, radius2)));
    }
};
#endif
}  // namespace detail

// Distance tests first, a chunk of candidates at a time into a bit mask, then the body for the
// set bits only, in the candidates' order. On the GPU the lanes of a warp then run the body
// about as often as the lane with the most neighbours in the chunk needs it, not once per
// candidate (about 1 in 4 candidates is a neighbour at k = 1); on the CPU the tests carry no
// branch, which mispredicted for about a third of the candidates (docs/PERFORMANCE.md). The test
// loop is compiled once without the minimum image (Box::displacement is then p - q), so that
// open boxes skip its branch.
template <class Record, class F>
PK_HD void for_each_neighbor_record(const CellGridView& g, const Record* records, Vec3f p, F&& f) {
    using detail::CandidateMask;
    constexpr std::uint32_t kChunk = 8 * sizeof(CandidateMask);
    const Box box = g.box;
    const float radius2 = g.radius2;
    auto test_chunk = [&](auto periodic, std::uint32_t chunk, std::uint32_t size) {
        CandidateMask accepted = 0;
        const Record* candidate = records + chunk;  // a pointer walk: no index arithmetic per load
        std::uint32_t i = 0;
#if !defined(__CUDA_ARCH__) && defined(__SSE2__)
        if constexpr (!decltype(periodic)::value && std::is_same_v<Record, Vec4f>) {
            const detail::FourCandidates four(p, radius2);
            for (; i + 4 <= size; i += 4, candidate += 4) accepted |= CandidateMask{four(candidate)} << i;
        }
#endif
        for (; i < size; ++i, ++candidate) {
            const Record r = *candidate;
            const Vec3f q{r.x, r.y, r.z};
            const Vec3f d = decltype(periodic)::value ? box.displacement(p, q) : p - q;
#if defined(__CUDA_ARCH__)
            if (distance2(d) <= radius2) accepted |= 1u << i;
#else
            accepted |= static_cast<CandidateMask>(distance2(d) <= radius2) << i;
#endif
        }
        return accepted;
    };
    for_each_candidate_range<SearchShape::ball>(g, p, [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t chunk = begin; chunk < end; chunk += kChunk) {
            const std::uint32_t size = end - chunk < kChunk ? end - chunk : kChunk;
            CandidateMask accepted = box.periodic_mask ? test_chunk(std::true_type{}, chunk, size)
                                                       : test_chunk(std::false_type{}, chunk, size);
            while (accepted) {
                const std::uint32_t j = chunk + detail::lowest_set_bit(accepted);
                accepted &= accepted - 1u;
                const Record r = records[j];
                const Vec3f d = box.displacement(p, Vec3f{r.x, r.y, r.z});
                f(j, d, distance2(d), r);  // a neighbour: the test above passed
            }
        }
    });
}

template <SearchShape Shape, class F> PK_HD void for_each_neighbor(const CellGridView& g, Vec3f p, F&& f) {
    const Vec3f* positions = g.positions;
    const Box box = g.box;
    const float radius2 = g.radius2;
    for_each_candidate_range<Shape>(g, p, [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t j = begin; j < end; ++j) {
            const Vec3f r_ij = box.displacement(p, positions[j]);
            const float r2 = distance2(r_ij);
            if (r2 <= radius2) f(j, r_ij, r2);
        }
    });
}

}  // namespace partikel::frnn
