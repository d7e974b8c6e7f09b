// Splatting particles into images, per pixel, with block-level kernels over screen tiles
// (Werner 2015, thesis chapter 5.4, which rasterised with OpenGL; here the library's kernels
// do it on both backends).
//
//   1. project: each particle becomes a splat record (its ellipsoid relative to the camera, or
//      its Gaussian on the screen) with the range of pixels it can cover, and counts its tiles.
//   2. bin (TileBinner): an exclusive scan of the counts gives each splat its slots; every
//      (tile, splat) pair is written, sorted by tile with a stable radix sort (so that within a
//      tile splats keep particle order and both backends sum in the same order), and each tile
//      finds its range by binary search.
//   3. raster: one block of 16 x 16 threads per tile, one pixel per thread; the tile's splats
//      are loaded 256 at a time into shared memory and every thread tests its pixel's ray
//      against each of them. Tiles without splats return at once (empty-space skipping).
//
// Surfaces (ellipsoids and spheres): the ray eye + t d(x, y) (camera.hpp: t is the depth)
// enters the unit sphere of the splat's K (anisotropy.hpp) where |o + t d'| = 1, o = K (eye -
// c), d' = K d. With t_m = -(o . d') / |d'|^2 and p = o + t_m d' the point of closest approach,
// the entry and exit depths are t_m -+ sqrt((1 - |p|^2) / |d'|^2): written this way the roots
// keep their precision when the camera is many radii away (the textbook discriminant
// (o . d')^2 - |d'|^2 (|o|^2 - 1) cancels catastrophically there). Per pixel the raster keeps
// the nearest entry (depth image, with the splat's index), the sum of the path lengths (t_exit
// - t_entry) |d| (thickness image) and the number of splats hit, all clipped at an optional
// opaque depth: fluid behind terrain or walls is hidden and adds no thickness.
//
// Points: additive Gaussian splats, w = weight exp(-r^2 / (2 sigma^2)) within 3 sigma, summing w
// times the particle's colour and w per pixel.
//
// Splats that reach closer to the camera than CameraView::near_m (the camera inside or at a
// particle) are not drawn.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/vec.hpp"
#include "core/buffer.hpp"
#include "core/workspace.hpp"
#include "render/anisotropy.hpp"
#include "render/camera.hpp"
#include "render/colormap.hpp"

namespace partikel::render {

inline constexpr int kTileSize = 16;                       // pixels per tile side
inline constexpr std::uint32_t kNoSplat = 0xffffffffu;     // index image: no splat hit

struct TileGrid {
    std::int32_t width = 0, height = 0;     // pixels
    std::int32_t tiles_x = 0, tiles_y = 0;  // tiles of kTileSize x kTileSize
    static TileGrid of(int width, int height) {
        return {width, height, (width + kTileSize - 1) / kTileSize, (height + kTileSize - 1) / kTileSize};
    }
    std::size_t tiles() const { return std::size_t(tiles_x) * std::size_t(tiles_y); }
};

// An ellipsoid seen from the camera: K forward, K right and K up (xyz) and o = K (eye - c)
// (the w components), so that d' = K d(x, y) = kf + u kr + v ku per pixel.
struct alignas(16) SurfaceSplat {
    Vec4f kf, kr, ku;
    std::uint32_t x_range;  // first | last << 16: the pixel columns whose rays may hit
    std::uint32_t y_range;  // first | last << 16: the pixel rows
    float depth_min;        // m, the nearest depth of the splat's bounding sphere
    std::uint32_t index;    // the particle (position in the projected array)
};

// A Gaussian on the screen.
struct alignas(16) PointSplat {
    float x, y;             // centre in pixel coordinates (pixel centres at +1/2)
    float inv_two_sigma2;   // 1 / (2 sigma^2), sigma in pixels
    float weight;           // intensity / (2 pi sigma^2): the Gaussian integrates to the intensity
    Vec3f rgb;              // linear colour
    float depth;            // m
    std::uint32_t x_range, y_range;
    std::uint32_t index;
    float unused;
};

struct PointStyle {
    float sigma_px = 1.5f;       // Gaussian sigma in pixels when no radius is given
    float radius_m = 0.0f;       // > 0: sigma = the radius projected at the particle's depth
    const float* radius = nullptr;  // per particle radius (m), backend memory; overrides radius_m
    float min_sigma_px = 0.5f;   // projected sigmas below this are raised to it
    float intensity = 1.0f;      // integral of each Gaussian (colour times this, summed)
};

// Where the surface raster writes (backend memory, width * height values each; null: not
// written) and what hides the splats (clip_depth: null for none).
struct SurfaceTargets {
    float* depth = nullptr;           // m, nearest entry depth; +inf where no splat
    std::uint32_t* index = nullptr;   // index of that splat; kNoSplat where none
    float* thickness = nullptr;       // m, sum of path lengths in front of clip_depth
    float* count = nullptr;           // splats hit in front of clip_depth
    const float* clip_depth = nullptr;
};

struct PointTargets {
    float* r = nullptr;       // sum of w * colour
    float* g = nullptr;
    float* b = nullptr;
    float* weight = nullptr;  // sum of w
    float* depth = nullptr;   // m, nearest centre among the Gaussians covering the pixel; +inf where none
    float* count = nullptr;   // Gaussians covering the pixel (within 3 sigma)
};

// Ellipsoids that are computed but not drawn: those of another rank's particles, which a rank
// holds only to shape its own particles' ellipsoids (a halo). Ellipsoid i is hidden when
// flags[original[i]] is non-zero (flags[i] without `original`); no flags: every one is drawn.
struct HiddenSplats {
    const std::uint8_t* flags = nullptr;     // backend memory, by particle
    const std::uint32_t* original = nullptr; // ellipsoid i's particle (a cell grid's sorted_to_original)
};

// Surface splats of n ellipsoids; tile_counts[i] = tiles splat i covers (0: not drawn).
template <class Exec>
void project_ellipsoids(const Exec& exec, const Ellipsoid* ellipsoids, std::size_t n, const CameraView& view,
                        SurfaceSplat* splats, std::uint32_t* tile_counts, const HiddenSplats& hidden = {});

// Point splats of n particles coloured by values[i] through `colours` (values null: the
// colour of colours.lo).
template <class Exec>
void project_points(const Exec& exec, const Vec3f* positions, const float* values, std::size_t n,
                    const PointStyle& style, const ColourTable& colours, const CameraView& view, PointSplat* splats,
                    std::uint32_t* tile_counts);

// Bins splats by tile (steps 2 above). Holds its buffers; bin() reallocates only when a frame
// needs more (tile, splat) pairs than any before (pair_capacity() tells how many fit).
class TileBinner {
public:
    TileBinner(const Backend& backend, std::size_t max_splats, const TileGrid& tiles, std::size_t pair_capacity);

    std::uint32_t* tile_counts() { return counts_.data(); }   // project writes these (max_splats + 1)
    // After project: the (tile, splat) pairs of `splats`, sorted by tile. Returns the number of pairs.
    template <class Exec, class Splat> std::size_t bin(const Exec& exec, const Splat* splats, std::size_t n);

    const std::uint32_t* entries() const { return sorted_values_.data(); }    // splat indices by tile
    const std::uint32_t* tile_start() const { return tile_start_.data(); }    // tiles + 1
    const TileGrid& tiles() const { return tiles_; }
    std::size_t pair_capacity() const { return keys_.size(); }
    std::size_t growths() const { return growths_; }  // reallocations made by bin()

private:
    template <class Exec> void reserve_pairs(const Exec& exec, std::size_t pairs);

    Backend backend_;
    TileGrid tiles_;
    std::size_t max_splats_;
    DeviceBuffer<std::uint32_t> counts_, offsets_;  // max_splats + 1
    DeviceBuffer<std::uint32_t> keys_, values_, sorted_keys_, sorted_values_;
    DeviceBuffer<std::uint32_t> tile_start_;
    Workspace workspace_;
    std::size_t growths_ = 0;
};

// Step 3 for surfaces and for points.
template <class Exec>
void raster_surfaces(const Exec& exec, const SurfaceSplat* splats, const TileBinner& bins, const CameraView& view,
                     const SurfaceTargets& targets);
template <class Exec>
void raster_points(const Exec& exec, const PointSplat* splats, const TileBinner& bins, const CameraView& view,
                   const PointTargets& targets);

}  // namespace partikel::render
