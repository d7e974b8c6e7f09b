// The splatting kernels (raster.hpp), written once for both backends; instantiated by
// raster_cpu.cpp (CpuExec) and raster_cuda.cu (CudaExec).
#pragma once

#include <math.h>

#include <string>

#include "base/error.hpp"
#include "base/hd.hpp"
#include "core/exec.hpp"
#include "core/key_ranges.hpp"
#include "render/raster.hpp"

namespace partikel::render {

namespace kernels {

PK_DEVICE_INLINE std::uint32_t pack_range(int first, int last) {
    return std::uint32_t(first) | (std::uint32_t(last) << 16);
}
PK_DEVICE_INLINE int range_first(std::uint32_t r) { return int(r & 0xffffu); }
PK_DEVICE_INLINE int range_last(std::uint32_t r) { return int(r >> 16); }

// The pixels whose centres lie in the continuous interval [lo, hi] of pixel coordinates
// (pixel centres at +1/2), widened by one pixel against rounding and clamped to [0, size);
// false when none.
PK_DEVICE_INLINE bool pixel_span(float lo, float hi, int size, int& first, int& last) {
    if (!(hi >= -1.0f) || !(lo <= float(size) + 1.0f)) return false;  // also NaN
    lo = fmaxf(lo, -1.0f);
    hi = fminf(hi, float(size) + 1.0f);
    first = int(floorf(lo - 0.5f));
    last = int(ceilf(hi - 0.5f));
    first = first < 0 ? 0 : first;
    last = last > size - 1 ? size - 1 : last;
    return first <= last;
}

// Tangents from the eye to a sphere of radius r at camera-space (x, z), z > r: the slopes
// u = x'/z' of the two tangent lines, (x z -+ r sqrt(x^2 + z^2 - r^2)) / (z^2 - r^2).
PK_DEVICE_INLINE void tangent_slopes(float x, float z, float r, float& lo, float& hi) {
    const float root = r * sqrtf(fmaxf(x * x + z * z - r * r, 0.0f));
    const float inv = 1.0f / (z * z - r * r);
    lo = (x * z - root) * inv;
    hi = (x * z + root) * inv;
}

// Pixel ranges and tile count of a sphere (centre c in camera space, radius r); false when it
// is off the image or reaches closer than the near distance.
PK_DEVICE_INLINE bool sphere_footprint(const CameraView& view, Vec3f c, float r, std::uint32_t& x_range,
                                       std::uint32_t& y_range, std::uint32_t& tiles) {
    if (!(c.z - r > view.near_m)) return false;
    float u_lo, u_hi, v_lo, v_hi;
    tangent_slopes(c.x, c.z, r, u_lo, u_hi);
    tangent_slopes(c.y, c.z, r, v_lo, v_hi);
    int x0, x1, y0, y1;
    if (!pixel_span(view.pixel_x(u_lo), view.pixel_x(u_hi), view.width, x0, x1)) return false;
    if (!pixel_span(view.pixel_y(v_hi), view.pixel_y(v_lo), view.height, y0, y1)) return false;
    x_range = pack_range(x0, x1);
    y_range = pack_range(y0, y1);
    tiles = std::uint32_t((x1 / kTileSize - x0 / kTileSize + 1) * (y1 / kTileSize - y0 / kTileSize + 1));
    return true;
}

struct ProjectEllipsoids {
    const Ellipsoid* ellipsoids;
    CameraView view;
    SurfaceSplat* splats;
    std::uint32_t* tile_counts;
    HiddenSplats hidden;
    PK_HD void operator()(std::size_t i) const {
        if (hidden.flags && hidden.flags[hidden.original ? hidden.original[i] : i]) {
            splats[i].x_range = splats[i].y_range = pack_range(1, 0);
            splats[i].index = std::uint32_t(i);
            tile_counts[i] = 0;
            return;
        }
        const Ellipsoid e = ellipsoids[i];
        const Vec3f centre{e.row[0].w, e.row[1].w, e.row[2].w};
        const Vec3f offset = view.eye - centre;
        const Vec3f r0 = e.row[0].xyz(), r1 = e.row[1].xyz(), r2 = e.row[2].xyz();
        SurfaceSplat s;
        s.kf = {dot(r0, view.forward), dot(r1, view.forward), dot(r2, view.forward), dot(r0, offset)};
        s.kr = {dot(r0, view.right), dot(r1, view.right), dot(r2, view.right), dot(r1, offset)};
        s.ku = {dot(r0, view.up), dot(r1, view.up), dot(r2, view.up), dot(r2, offset)};
        // The longest axis, 1 / |row|, bounds the ellipsoid.
        const float radius = 1.0f / sqrtf(fminf(dot(r0, r0), fminf(dot(r1, r1), dot(r2, r2))));
        const Vec3f c = view.to_camera(centre);
        std::uint32_t tiles = 0;
        if (!sphere_footprint(view, c, radius, s.x_range, s.y_range, tiles)) {
            s.x_range = s.y_range = pack_range(1, 0);
            tiles = 0;
        }
        s.depth_min = c.z - radius;
        s.index = std::uint32_t(i);
        splats[i] = s;
        tile_counts[i] = tiles;
    }
};

struct ProjectPoints {
    const Vec3f* positions;
    const float* values;
    PointStyle style;
    ColourTable colours;
    CameraView view;
    PointSplat* splats;
    std::uint32_t* tile_counts;
    PK_HD void operator()(std::size_t i) const {
        const Vec3f c = view.to_camera(positions[i]);
        PointSplat s;
        s.index = std::uint32_t(i);
        s.depth = c.z;
        s.unused = 0.0f;
        s.rgb = colours(values ? values[i] : colours.lo);
        // Pixels per metre at depth z: height / (2 z tan(fov_y / 2)).
        const float radius = style.radius ? style.radius[i] : style.radius_m;
        float sigma = style.sigma_px;
        std::uint32_t tiles = 0;
        if (c.z > view.near_m) {
            if (radius > 0.0f) sigma = fmaxf(radius * float(view.height) / (2.0f * c.z * view.tan_half_y), style.min_sigma_px);
            s.x = view.pixel_x(c.x / c.z);
            s.y = view.pixel_y(c.y / c.z);
            const float reach = 3.0f * sigma;
            int x0, x1, y0, y1;
            if (pixel_span(s.x - reach, s.x + reach, view.width, x0, x1) &&
                pixel_span(s.y - reach, s.y + reach, view.height, y0, y1)) {
                s.x_range = pack_range(x0, x1);
                s.y_range = pack_range(y0, y1);
                tiles = std::uint32_t((x1 / kTileSize - x0 / kTileSize + 1) * (y1 / kTileSize - y0 / kTileSize + 1));
            }
        }
        if (tiles == 0) {
            s.x = s.y = 0.0f;
            s.x_range = s.y_range = pack_range(1, 0);
        }
        s.inv_two_sigma2 = 1.0f / (2.0f * sigma * sigma);
        s.weight = style.intensity / (6.28318530718f * sigma * sigma);
        splats[i] = s;
        tile_counts[i] = tiles;
    }
};

// Every (tile, splat) pair: keys are tile ids, values splat indices.
template <class Splat> struct EmitTilePairs {
    const Splat* splats;
    const std::uint32_t* offsets;
    std::int32_t tiles_x;
    std::uint32_t* keys;
    std::uint32_t* values;
    PK_HD void operator()(std::size_t i) const {
        const std::uint32_t begin = offsets[i], end = offsets[i + 1];
        if (begin == end) return;
        const Splat& s = splats[i];
        const int tx0 = range_first(s.x_range) / kTileSize, tx1 = range_last(s.x_range) / kTileSize;
        const int ty0 = range_first(s.y_range) / kTileSize, ty1 = range_last(s.y_range) / kTileSize;
        std::uint32_t slot = begin;
        for (int ty = ty0; ty <= ty1; ++ty)
            for (int tx = tx0; tx <= tx1; ++tx) {
                keys[slot] = std::uint32_t(ty * tiles_x + tx);
                values[slot] = std::uint32_t(i);
                ++slot;
            }
    }
};

struct SurfaceState {
    float depth;
    float thickness;
    float count;
    float clip;
    std::uint32_t index;
};

struct SurfaceOp {
    using Splat = SurfaceSplat;
    using State = SurfaceState;
    SurfaceTargets targets;

    PK_DEVICE_INLINE State init(std::size_t pixel) const {
        return {INFINITY, 0.0f, 0.0f, targets.clip_depth ? targets.clip_depth[pixel] : INFINITY, kNoSplat};
    }
    PK_DEVICE_INLINE void add(State& st, const Splat& s, int x, int y, float u, float v, float ray_length) const {
        if (x < range_first(s.x_range) || x > range_last(s.x_range) || y < range_first(s.y_range) ||
            y > range_last(s.y_range) || !(s.depth_min < st.clip))
            return;
        const Vec3f d{s.kf.x + u * s.kr.x + v * s.ku.x, s.kf.y + u * s.kr.y + v * s.ku.y,
                      s.kf.z + u * s.kr.z + v * s.ku.z};
        const Vec3f o{s.kf.w, s.kr.w, s.ku.w};
        const float a = dot(d, d);
        const float t_mid = -dot(o, d) / a;
        const Vec3f p = o + t_mid * d;
        const float h2 = dot(p, p);
        if (!(h2 < 1.0f)) return;
        const float half = sqrtf((1.0f - h2) / a);
        const float t0 = t_mid - half;
        if (!(t0 < st.clip)) return;
        const float t1 = fminf(t_mid + half, st.clip);
        st.count += 1.0f;
        st.thickness += (t1 - t0) * ray_length;
        if (t0 < st.depth) {
            st.depth = t0;
            st.index = s.index;
        }
    }
    PK_DEVICE_INLINE void store(const State& st, std::size_t pixel) const {
        if (targets.depth) targets.depth[pixel] = st.depth;
        if (targets.index) targets.index[pixel] = st.index;
        if (targets.thickness) targets.thickness[pixel] = st.thickness;
        if (targets.count) targets.count[pixel] = st.count;
    }
};

struct PointState {
    float r, g, b, weight, depth, count;
};

struct PointOp {
    using Splat = PointSplat;
    using State = PointState;
    PointTargets targets;

    PK_DEVICE_INLINE State init(std::size_t) const { return {0.0f, 0.0f, 0.0f, 0.0f, INFINITY, 0.0f}; }
    PK_DEVICE_INLINE void add(State& st, const Splat& s, int x, int y, float, float, float) const {
        if (x < range_first(s.x_range) || x > range_last(s.x_range) || y < range_first(s.y_range) ||
            y > range_last(s.y_range))
            return;
        const float dx = float(x) + 0.5f - s.x, dy = float(y) + 0.5f - s.y;
        const float e = (dx * dx + dy * dy) * s.inv_two_sigma2;
        if (!(e <= 4.5f)) return;  // beyond 3 sigma
        const float w = s.weight * expf(-e);
        st.r += w * s.rgb.x;
        st.g += w * s.rgb.y;
        st.b += w * s.rgb.z;
        st.weight += w;
        st.count += 1.0f;
        st.depth = fminf(st.depth, s.depth);
    }
    PK_DEVICE_INLINE void store(const State& st, std::size_t pixel) const {
        if (targets.r) targets.r[pixel] = st.r;
        if (targets.g) targets.g[pixel] = st.g;
        if (targets.b) targets.b[pixel] = st.b;
        if (targets.weight) targets.weight[pixel] = st.weight;
        if (targets.depth) targets.depth[pixel] = st.depth;
        if (targets.count) targets.count[pixel] = st.count;
    }
};

// One block per tile, one thread per pixel (raster.hpp, step 3).
template <class Op> struct TileRaster {
    static constexpr int kThreads = kTileSize * kTileSize;
    using Splat = typename Op::Splat;
    using State = typename Op::State;
    const Splat* splats;
    const std::uint32_t* entries;
    const std::uint32_t* tile_start;
    TileGrid tiles;
    CameraView view;
    Op op;

    template <class Block> PK_HD void operator()(Block& b) const {
        const std::uint32_t tile = std::uint32_t(b.index());
        const int x_base = int(tile % std::uint32_t(tiles.tiles_x)) * kTileSize;
        const int y_base = int(tile / std::uint32_t(tiles.tiles_x)) * kTileSize;
        const std::uint32_t begin = tile_start[tile], end = tile_start[tile + 1];
        Splat* batch = b.template shared<Splat>();
        PerThread<State, Block> state(b);
        b.threads([&](int t) {
            const int x = x_base + t % kTileSize, y = y_base + t / kTileSize;
            if (x < tiles.width && y < tiles.height) state[t] = op.init(std::size_t(y) * std::size_t(tiles.width) + std::size_t(x));
        });
        for (std::uint32_t first = begin; first < end; first += std::uint32_t(kThreads)) {
            const int count = end - first < std::uint32_t(kThreads) ? int(end - first) : kThreads;
            b.sync();  // the previous batch is used up
            b.threads([&](int t) {
                if (t < count) batch[t] = splats[entries[first + std::uint32_t(t)]];
            });
            b.sync();
            b.threads([&](int t) {
                const int x = x_base + t % kTileSize, y = y_base + t / kTileSize;
                if (x >= tiles.width || y >= tiles.height) return;
                const float u = view.u_of(float(x)), v = view.v_of(float(y));
                const float ray_length = sqrtf(1.0f + u * u + v * v);
                for (int k = 0; k < count; ++k) op.add(state[t], batch[k], x, y, u, v, ray_length);
            });
        }
        b.threads([&](int t) {
            const int x = x_base + t % kTileSize, y = y_base + t / kTileSize;
            if (x < tiles.width && y < tiles.height)
                op.store(state[t], std::size_t(y) * std::size_t(tiles.width) + std::size_t(x));
        });
    }
};

template <class Exec, class Op>
void raster_tiles(const Exec& exec, const typename Op::Splat* splats, const TileBinner& bins, const CameraView& view,
                  const Op& op, const char* label) {
    using Raster = TileRaster<Op>;
    exec.for_each_block(bins.tiles().tiles(), sizeof(typename Op::Splat) * Raster::kThreads,
                        Raster{splats, bins.entries(), bins.tile_start(), bins.tiles(), view, op}, label);
}

}  // namespace kernels

template <class Exec>
void project_ellipsoids(const Exec& exec, const Ellipsoid* ellipsoids, std::size_t n, const CameraView& view,
                        SurfaceSplat* splats, std::uint32_t* tile_counts, const HiddenSplats& hidden) {
    exec.for_each(n, kernels::ProjectEllipsoids{ellipsoids, view, splats, tile_counts, hidden}, "render.project_ellipsoids");
}

template <class Exec>
void project_points(const Exec& exec, const Vec3f* positions, const float* values, std::size_t n,
                    const PointStyle& style, const ColourTable& colours, const CameraView& view, PointSplat* splats,
                    std::uint32_t* tile_counts) {
    exec.for_each(n, kernels::ProjectPoints{positions, values, style, colours, view, splats, tile_counts},
                  "render.project_points");
}

template <class Exec> void TileBinner::reserve_pairs(const Exec& exec, std::size_t pairs) {
    keys_ = DeviceBuffer<std::uint32_t>(backend_, pairs);
    values_ = DeviceBuffer<std::uint32_t>(backend_, pairs);
    sorted_keys_ = DeviceBuffer<std::uint32_t>(backend_, pairs);
    sorted_values_ = DeviceBuffer<std::uint32_t>(backend_, pairs);
    const std::size_t scan = exec.template exclusive_sum_scratch_bytes<std::uint32_t>(max_splats_ + 1);
    const std::size_t sort = exec.template sort_pairs_scratch_bytes<std::uint32_t, std::uint32_t>(pairs);
    workspace_.reserve(backend_, scan > sort ? scan : sort);
}

template <class Exec, class Splat> std::size_t TileBinner::bin(const Exec& exec, const Splat* splats, std::size_t n) {
    if (n > max_splats_)
        throw UsageError("render: " + std::to_string(n) + " splats exceed the binner's capacity of " +
                         std::to_string(max_splats_));
    exec.write_value(counts_.data() + n, std::uint32_t{0});
    exec.exclusive_sum(workspace_, counts_.data(), offsets_.data(), n + 1);
    const std::uint32_t pairs = exec.read_value(offsets_.data() + n);
    if (pairs > keys_.size()) {
        // Rare (a camera much closer than before): twice what this frame needs.
        reserve_pairs(exec, 2 * std::size_t(pairs));
        ++growths_;
    }
    exec.for_each(n, kernels::EmitTilePairs<Splat>{splats, offsets_.data(), tiles_.tiles_x, keys_.data(), values_.data()},
                  "render.emit_tile_pairs");
    int bits = 1;
    while (bits < 32 && (std::size_t{1} << bits) < tiles_.tiles()) ++bits;
    exec.sort_pairs(workspace_, keys_.data(), sorted_keys_.data(), values_.data(), sorted_values_.data(), pairs, 0,
                    bits);
    key_starts(exec, sorted_keys_.data(), pairs, tiles_.tiles(), tile_start_.data(), "render.tile_starts");
    return pairs;
}

template <class Exec>
void raster_surfaces(const Exec& exec, const SurfaceSplat* splats, const TileBinner& bins, const CameraView& view,
                     const SurfaceTargets& targets) {
    kernels::raster_tiles(exec, splats, bins, view, kernels::SurfaceOp{targets}, "render.raster_surfaces");
}

template <class Exec>
void raster_points(const Exec& exec, const PointSplat* splats, const TileBinner& bins, const CameraView& view,
                   const PointTargets& targets) {
    kernels::raster_tiles(exec, splats, bins, view, kernels::PointOp{targets}, "render.raster_points");
}

#define PK_RENDER_RASTER_INSTANTIATE(Exec)                                                                          \
    template void project_ellipsoids(const Exec&, const Ellipsoid*, std::size_t, const CameraView&, SurfaceSplat*,  \
                                     std::uint32_t*, const HiddenSplats&);                                          \
    template void project_points(const Exec&, const Vec3f*, const float*, std::size_t, const PointStyle&,          \
                                 const ColourTable&, const CameraView&, PointSplat*, std::uint32_t*);               \
    template void TileBinner::reserve_pairs(const Exec&, std::size_t);                                              \
    template std::size_t TileBinner::bin(const Exec&, const SurfaceSplat*, std::size_t);                            \
    template std::size_t TileBinner::bin(const Exec&, const PointSplat*, std::size_t);                              \
    template void raster_surfaces(const Exec&, const SurfaceSplat*, const TileBinner&, const CameraView&,          \
                                  const SurfaceTargets&);                                                           \
    template void raster_points(const Exec&, const PointSplat*, const TileBinner&, const CameraView&,              \
                                const PointTargets&);

}  // namespace partikel::render
