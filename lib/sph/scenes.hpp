// Initial particle sets for SPH scenes (sph-init). Particles sit on a lattice of spacing dx
// (cell centres), fluid mass m = rho0 dx^3; boundary particles (DualSPHysics's dynamic boundary)
// fill the walls of tanks in layers of spacing dx, as thick as the kernel support.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/vec.hpp"
#include "sph/params.hpp"
#include "sph/particles.hpp"

namespace partikel::sph {

struct SceneOptions {
    float dx_m = 0.0f;         // particle spacing; 0: the scene's default
    float width_m = 0.0f;      // dam-break: column width a; still-tank: water depth; 0: default
    float hdx = 1.5f;          // h = hdx * dx
    float coefh = 0.0f;        // > 0: h = coefh * sqrt(3) * dx instead (DualSPHysics)
    float c0 = 0.0f;           // sound speed; 0: 10 x the scene's largest expected speed
    bool hydrostatic = false;  // initial density from the hydrostatic pressure (else rho0)
    bool periodic = false;     // still-tank: periodic in x and z instead of side walls
    // box, sphere, column scenes: the fluid shape and the domain (m). The column is a vertical
    // cylinder standing on y = domain_min.y with its axis through center.x, center.z.
    Vec3f box_min{0.0f, 0.0f, 0.0f}, box_max{0.5f, 0.5f, 0.5f};
    Vec3f center{0.5f, 0.5f, 0.5f};
    float radius_m = 0.2f;
    float height_m = 0.5f;
    Vec3f domain_min{0.0f, 0.0f, 0.0f}, domain_max{1.0f, 1.0f, 1.0f};
    // coastal, inclined-plane, box: a terrain replacing the scene's own (load_raw_height_field).
    HeightField terrain;
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

// Martin & Moyce (1952) reference column width a = 2.25 in, and the experiment's n^2 = 2.
inline constexpr float kMartinMoyceWidth_m = 0.05715f;

// A height image of nx * nz unsigned 16-bit little-endian samples, rows along x, row k at
// z = z0 + k cell: height = offset + scale * sample (m). IoError / UsageError on bad input.
HeightField load_raw_height_field(const std::string& path, int nx, int nz, float cell_m, float scale_m, float offset_m,
                                  float x0_m = 0.0f, float z0_m = 0.0f);

// A grey PNG of 8 or 16 bits per sample (no alpha), nx columns along x and nz rows, row k at
// z = z0 + k cell: height = offset + scale * sample (m), sample 0..255 or 0..65535.
// IoError on an unreadable or non-grey image, UsageError on a bad cell size.
HeightField load_png_height_field(const std::string& path, float cell_m, float scale_m, float offset_m,
                                  float x0_m = 0.0f, float z0_m = 0.0f);
// True when the file starts with the PNG signature (sph-init picks the reader by content).
bool is_png_file(const std::string& path);

// Hydrostatic density rho0 (1 + rho0 |g| (surface - y) / B)^(1/gamma) for points below the
// surface (rho0 above it), for every particle of `set`.
void set_hydrostatic_density(ParticleSet& set, const SphParams& params, float surface_y_m);

}  // namespace partikel::sph
