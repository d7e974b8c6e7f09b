// The cell of a coordinate along an open axis of a uniform grid: where frnn::CellGrid puts a
// particle (frnn::cell_coord) and where lib/dist finds the cell layers of a coordinate range
// (ParticleExchange::plan_halo). One formula for both, evaluated alike on the host and the
// device (a float subtraction and multiplication, a clamp, a truncation), so that a range's
// layers hold every particle whose coordinate lies in it.
#pragma once

#include "base/hd.hpp"
#include "core/fast_math.hpp"

namespace partikel {

// The cell in [0, cells) of coordinate x (m) on an axis whose cell 0 starts at `origin` (m), cells
// 1 / inv_cell_size (m) wide; coordinates beyond either end (and NaN) fall into the end cells.
// Non-decreasing in x: a coordinate range [lo, hi] lies in the cells [at(lo), at(hi)].
PK_DEVICE_INLINE int clamped_cell_coord(float x, float origin, float inv_cell_size, int cells) {
    float t = (x - origin) * inv_cell_size;
    t = min_of(max_of(t, 0.0f), static_cast<float>(cells - 1));
    return static_cast<int>(t);
}

}  // namespace partikel
