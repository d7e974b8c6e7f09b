// Initial particle sets for SPH scenes (sph-init). Particles sit on a lattice of spacing dx
// (cell centres), fluid mass m = rho0 dx^3; boundary particles (DualSPHysics's dynamic boundary)
// fill the walls of tanks in layers of spacing dx, as thick as the kernel support.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/vec.hpp"
#include "sph/params.hpp"
#include "sph/particles.hpp"

namespace partikel::sph {

struct SceneOptions {
    float dx_m = 0.0f;         // particle spacing; 0: the scene's default
    float width_m = 0.0f;      // dam-break: column width a; still-tank: water depth; 0: default
    float gate_speed_m_s = 0.0f;  // dam-break: a gate of boundary particles lifted at this speed; 0: none
    float hdx = 0.0f;          // > 0: h = hdx * dx; 0: the scene's default (1.5; dam-break-obstacle: coefh 1)
    float coefh = 0.0f;        // > 0: h = coefh * sqrt(3) * dx instead (DualSPHysics)
    float c0 = 0.0f;           // sound speed; 0: 10 x the scene's largest expected speed
    bool hydrostatic = false;  // initial density from the hydrostatic pressure (else rho0)
    bool periodic = false;     // still-tank: periodic in x and z instead of side walls
    int boundary_layers = 0;   // layers of boundary particles in tank walls (and the obstacle's
                               // shell); 0: 3, full kernel support for hdx = 1.5
    // box, sphere, column scenes: the fluid shape and the domain (m). The column is a vertical
    // cylinder standing on y = domain_min.y with its axis through center.x, center.z.
    Vec3f box_min{0.0f, 0.0f, 0.0f}, box_max{0.5f, 0.5f, 0.5f};
    Vec3f center{0.5f, 0.5f, 0.5f};
    float radius_m = 0.2f;
    float height_m = 0.5f;
    Vec3f domain_min{0.0f, 0.0f, 0.0f}, domain_max{1.0f, 1.0f, 1.0f};
    // pool: the particle count (0: 1024000) and the snow model ("": newtonian-muller).
    std::int64_t particles = 0;
    std::string model;
    // coastal, inclined-plane, box: a terrain replacing the scene's own (load_height_field);
    // avalanche, river: the hillside or valley (required).
    HeightField terrain;
    float terrain_tile_m = 0.0f;  // the terrain's sampling: 0 bilinear, > 0 tiles of this edge
    // avalanche: the slab's release zone x0, z0, x1, z1 (m) and its thickness normal to the
    // ground; river: the water's x0, z0, x1, z1 and its depth above the lowest ground there.
    // Zeros: the scene's defaults, made for the shipped terrains (examples/avalanche).
    std::array<float, 4> release_m{0.0f, 0.0f, 0.0f, 0.0f};
    float thickness_m = 0.0f;
};

struct Scene {
    SphParams params;
    ParticleSet particles;
};

struct SceneInfo {
    std::string_view name;
    std::string_view summary;
};
const std::vector<SceneInfo>& scene_list();

// Throws UsageError for an unknown scene or impossible options.
Scene make_scene(std::string_view name, const SceneOptions& options);

// The shipped synthetic terrains (examples/avalanche/terrain.py): 16-bit PNG samples of this
// spacing and height per unit (sph-init --terrain-cell, --terrain-scale).
inline constexpr float kShippedTerrainCell_m = 0.5f;
inline constexpr float kShippedTerrainScale_m = 0.002f;

// Martin & Moyce (1952) reference column width a = 2.25 in, and the experiment's n^2 = 2.
inline constexpr float kMartinMoyceWidth_m = 0.05715f;

// Height images, all read alike: sample i of row k lies at (x0 + i cell, z0 + k cell) and
// height = offset + scale * sample (m).

// By content: the PNG signature -> load_png_height_field, the OpenEXR magic 76 2f 31 01 ->
// load_exr_height_field, anything else -> load_raw_height_field with raw_size = {nx, nz}.
// raw_size is empty when not given: UsageError for a raw file, as is a size for PNG or EXR,
// which carry their own.
HeightField load_height_field(const std::string& path, std::span<const int> raw_size, float cell_m, float scale_m,
                              float offset_m, float x0_m = 0.0f, float z0_m = 0.0f);

// nx * nz unsigned 16-bit little-endian samples, rows along x. IoError / UsageError on bad input.
HeightField load_raw_height_field(const std::string& path, int nx, int nz, float cell_m, float scale_m, float offset_m,
                                  float x0_m = 0.0f, float z0_m = 0.0f);

// A grey PNG of 8 or 16 bits per sample (no alpha), nx columns along x and nz rows (top row:
// k = 0); sample 0..255 or 0..65535. IoError on an unreadable or non-grey image, UsageError on
// a bad cell size.
HeightField load_png_height_field(const std::string& path, float cell_m, float scale_m, float offset_m,
                                  float x0_m = 0.0f, float z0_m = 0.0f);

// A scanline or tiled OpenEXR image (first part), its data window's columns along x and rows
// (top row: k = 0) along z, wherever the window starts. The sample is the channel Y, else Z (a
// depth map), else R, else the only channel; half, float or uint. EXR samples are usually
// metres already: scale 1, offset 0. FormatError for unreadable images, fewer than 2 x 2
// samples, no clear height channel or a non-finite height; UsageError on a bad cell size.
HeightField load_exr_height_field(const std::string& path, float cell_m, float scale_m, float offset_m,
                                  float x0_m = 0.0f, float z0_m = 0.0f);

// Hydrostatic density rho0 (1 + rho0 |g| (surface - y) / B)^(1/gamma) for points below the
// surface (rho0 above it), for every particle of `set`.
void set_hydrostatic_density(ParticleSet& set, const SphParams& params, float surface_y_m);

}  // namespace partikel::sph
