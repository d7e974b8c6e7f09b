// Image-space passes after splatting: screen-space curvature flow on the fluid's depth and the
// final shading (Werner 2015, thesis chapters 5.5 and 5.6; van der Laan, Green & Sainz,
// "Screen Space Fluid Rendering with Curvature Flow", I3D 2009).
//
// Curvature flow. With the camera-space surface point P(x, y) = z (u, v, 1) and van der Laan's
// simplification (u, v taken as constant over a pixel's neighbourhood), a pixel at depth z spans
// a = s z metres (s = 2 tan(fov_x / 2) / width), the unit normal is
//   n = (-z_x, -z_y, a) / sqrt(z_x^2 + z_y^2 + a^2)     (z_x, z_y: depth differences per pixel)
// and 2H = div n is the mean curvature, H a in pixel units. We take the divergence in flux
// form: n_x at the four faces between a pixel and its neighbours (the face's slope from the two
// depths, the cross slope averaged over both pixels), then
//   2 H a = n_x(x + 1/2) - n_x(x - 1/2) + n_y(y + 1/2) - n_y(y - 1/2),
// and one explicit step moves the depth by
//   z <- z - (rate a / 4) (2 H a)   ( = z + (rate / 4) (z_xx + z_yy) where the surface is flat),
// i.e. a time step proportional to a^2, the largest an explicit step allows (rate < 1) at every
// depth alike, so that a step smooths over the same number of pixels near and far. A
// neighbour whose depth differs by more than the discontinuity threshold (or that shows no
// fluid) belongs to another surface: the face towards it takes the flux of the opposite face
// (the second difference across it is zero, as in the thesis), or none when both are closed.
//
// Shading (fluid): normals from the smoothed depth (of the two one-sided differences, the one
// with the smaller depth change, so that silhouettes do not bend the normal), Schlick's
// Fresnel term f = F0 + (1 - F0)(1 - cos theta)^5 with F0 = ((n - 1)/(n + 1))^2, Beer-Lambert
// absorption a = exp(-mu_rgb d) over the thickness d, and
//   I = (1 - f)(a I_B + (1 - a) I_S) + f I_sky(reflected ray) + specular (Blinn-Phong),
// where I_B is the background behind the fluid: the opaque particles (spheres lit by the light
// and an ambient term) or the sky (a gradient from ground through horizon to zenith, or an
// equirectangular environment map).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/vec.hpp"
#include "render/camera.hpp"
#include "render/colormap.hpp"

namespace partikel::render {

struct FlowParams {
    float rate = 0.5f;                // per step, in (0, 1): the flat-surface step z += rate/4 (z_xx + z_yy)
    float discontinuity_m = 0.0f;     // depth difference between neighbours that separates surfaces
    float pixel_size_per_depth = 0.0f;  // s: a pixel at depth z spans s z metres
};

// One explicit step of the flow: depth_out from depth_in (width x height, +inf: no fluid).
template <class Exec>
void curvature_flow_step(const Exec& exec, const float* depth_in, float* depth_out, int width, int height,
                         const FlowParams& params);

enum class BackgroundKind { gradient, black, transparent, environment };

// What is seen where no particle is, and what the fluid reflects (linear RGB).
struct Background {
    BackgroundKind kind = BackgroundKind::gradient;
    Vec3f zenith{0.20f, 0.40f, 0.80f};
    Vec3f horizon{0.80f, 0.85f, 0.90f};
    Vec3f ground{0.25f, 0.23f, 0.21f};
    // Equirectangular map (BackgroundKind::environment): RGB texels, row 0 at the zenith
    // (CameraView::world_up), column 0 and width at azimuth -180 and +180 degrees, azimuth 0
    // along `north` (perpendicular to the zenith); backend memory.
    const float* environment = nullptr;
    int environment_width = 0, environment_height = 0;
    Vec3f north{0.0f, 0.0f, -1.0f};
    Vec3f east{1.0f, 0.0f, 0.0f};
};

struct Lighting {
    Vec3f direction{0.4f, 0.8f, 0.45f};  // towards the light, world space (normalised by the renderer)
    Vec3f colour{1.0f, 1.0f, 1.0f};
    float ambient = 0.35f;               // of the particle's colour, lit from everywhere
    float diffuse = 0.65f;
    float specular = 0.5f;
    float shininess = 80.0f;             // Blinn-Phong exponent
};

struct FluidLook {
    Vec3f absorption_per_m{30.0f, 10.0f, 5.0f};  // mu_rgb, 1/m
    Vec3f colour{0.02f, 0.12f, 0.25f};           // I_S: what the fluid scatters towards the eye, linear RGB
    float refractive_index = 1.33f;              // Fresnel F0 = ((n - 1)/(n + 1))^2
};

// The opaque particles: spheres whose index the surface raster recorded per pixel.
struct OpaqueParticles {
    const Vec3f* positions = nullptr;   // backend memory
    const float* radius = nullptr;      // per particle (m), or null: constant_radius_m
    float constant_radius_m = 0.0f;
    const float* values = nullptr;      // colour values, or null: constant_colour
    ColourTable colours{};
    Vec3f constant_colour{0.6f, 0.6f, 0.6f};  // linear RGB
};

// Output planes (backend memory, width * height each).
struct ShadeTargets {
    float* r = nullptr;
    float* g = nullptr;
    float* b = nullptr;
    float* a = nullptr;
    float* z = nullptr;   // m: the visible surface's depth, +inf where none
    float* nx = nullptr;  // world-space unit normal of the visible surface, 0 where none
    float* ny = nullptr;
    float* nz = nullptr;
};

struct ShadeInputs {
    const float* fluid_depth = nullptr;   // smoothed; null: no fluid (--style spheres)
    const float* thickness = nullptr;
    float discontinuity_m = 0.0f;         // for the normals from depth
    const float* opaque_depth = nullptr;
    const std::uint32_t* opaque_index = nullptr;
    OpaqueParticles opaque;
};

// Fluid over opaque spheres over the background (no fluid: spheres over the background).
template <class Exec>
void shade_surfaces(const Exec& exec, const ShadeInputs& inputs, const CameraView& view, const Background& background,
                    const Lighting& lighting, const FluidLook& fluid, const ShadeTargets& targets);

// Additive point splats over the background: r, g, b (the sums, updated in place) plus the
// background; a = 1 - exp(-weight) on a transparent background, else 1.
template <class Exec>
void finish_points(const Exec& exec, const float* weight, const CameraView& view, const Background& background,
                   const ShadeTargets& targets);

// Sort-last compositing of opaque surfaces shaded on several ranks (each its own particles):
// with `nearest` every rank's depth's minimum, owner[i] = rank where this rank's depth is the
// nearest (else 0xffffffff); once the owners are all-reduced by their minimum (the lowest rank
// wins a tie, so rank 0 keeps the background), clear_unowned zeroes this rank's planes
// (r, g, b, a, normals; not z) where another rank owns the pixel, so that their sum over the
// ranks is the owner's pixel, unchanged to the bit.
template <class Exec>
void nearest_owner(const Exec& exec, const float* depth, const float* nearest, std::uint32_t rank, std::size_t pixels,
                   std::uint32_t* owner);
template <class Exec>
void clear_unowned(const Exec& exec, const std::uint32_t* owner, std::uint32_t rank, std::size_t pixels,
                   const ShadeTargets& planes);

}  // namespace partikel::render
