// Rendering one frame of particles to float images (docs/RENDER.md): the passes of anisotropy.hpp,
// raster.hpp and screen.hpp in order, on one backend, with every buffer allocated up front.
//
//   render::Renderer renderer(backend, settings, {.particles = n_max, .opaque = m_max});
//   for (each frame) {
//       renderer.render(input, camera);     // kernels on the backend
//       renderer.download(image);           // host planes, reused from frame to frame
//   }
//
// Styles:
//   fluid    the particles are SPH fluid: anisotropic ellipsoids (anisotropy.hpp) splatted into a
//            depth and a thickness image, curvature flow on the depth, shading with Fresnel,
//            absorption and reflection (screen.hpp); the opaque particles (boundary, terrain)
//            are lit spheres behind it.
//   points   additive Gaussian splats coloured by a value through a colour map.
//   spheres  opaque lit spheres coloured by a value.
//
// Sort-last across ranks (Werner 2015, chapter 6): constructed with several ranks, each rank
// renders its share of every frame's particles and the images are composited on the device:
//   fluid    each rank's fluid particles plus a halo (FrameInput::particles.halo: the other
//            ranks' particles within the anisotropy's support, r_iso = 2h, of its own, which
//            shape its ellipsoids but are not drawn) and every opaque particle; the neighbour
//            grid is fitted to every rank's bounds (the same cells as on one rank); after
//            splatting, depth is all-reduced by its minimum and thickness and count by their
//            sums; curvature flow and shading then run once, on rank 0;
//   points   the splat sums (colour, weight, count) are summed and the depth minimum taken,
//            then rank 0 adds the background;
//   spheres  each rank shades its spheres; per pixel the rank with the nearest depth keeps
//            its pixel (screen.hpp, nearest_owner and clear_unowned) and the planes are summed.
// Depth, normals and counts then equal one rank's image bit for bit (when each rank's
// particles keep the frame's order, and one thread orders a cell grid); thickness, colours of
// the fluid and of points differ by the order of float sums. Only rank 0's download() holds
// the frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/vec.hpp"
#include "core/backend.hpp"
#include "core/timer.hpp"
#include "dist/communicator.hpp"
#include "render/anisotropy.hpp"
#include "render/camera.hpp"
#include "render/colormap.hpp"
#include "render/raster.hpp"
#include "render/screen.hpp"

namespace partikel::render {

enum class Style { fluid, points, spheres };
Style parse_style(const std::string& name);  // UsageError
const char* style_name(Style style);

struct RenderSettings {
    Style style = Style::fluid;
    int width = 1280, height = 720;  // pixels

    // fluid: the SPH smoothing length decides the neighbourhood (r_iso = 2h) and the size.
    float smoothing_length_m = 0.0f;
    float radius_over_h = 0.6f;          // radius of an isotropic particle's sphere, in h
    AnisotropyParams anisotropy{};       // support_m and radius_m are set from h
    int flow_steps = 50;                 // curvature flow steps (the thesis used 500)
    float flow_rate = 0.5f;              // FlowParams::rate
    float discontinuity_over_radius = 4.0f;  // depth jump (in sphere radii) that separates surfaces
    FluidLook fluid{};

    // points and spheres (and the opaque particles of fluid): size and colour.
    float radius_m = 0.0f;               // spheres, points: constant radius when no per-particle radius
    PointStyle points{};
    ColourMap colour_map = ColourMap::viridis;
    float range_lo = 0.0f, range_hi = 1.0f;  // value range of the colour map
    Vec3f particle_colour{0.8f, 0.45f, 0.15f};  // linear RGB when the particles carry no values
    Vec3f opaque_colour{0.55f, 0.52f, 0.48f};   // fluid: the opaque particles' colour

    Background background{};
    Lighting lighting{};
};

// One frame's particles (host memory; finite positions).
struct ParticleSpan {
    std::span<const Vec3f> position{};  // m
    std::span<const float> radius_m{};  // per particle, or empty (the settings' constant)
    std::span<const float> value{};     // colour values, or empty
    // Fluid across ranks: 1 for another rank's particle, held only to shape this rank's
    // ellipsoids (a halo; not drawn); empty: every particle is drawn.
    std::span<const std::uint8_t> halo{};
};

struct FrameInput {
    ParticleSpan particles{};  // fluid (fluid style) or the particles drawn
    ParticleSpan opaque{};     // fluid style: opaque spheres behind the fluid (boundary, terrain)
};

// The images of one frame, planar floats, y = 0 the top row. Channels a style does not
// produce are empty: fluid fills all; spheres all but thickness; points r, g, b, a, z, count.
struct RenderedImage {
    int width = 0, height = 0;
    std::vector<float> r, g, b, a;  // linear RGB and alpha (RGB premultiplied)
    std::vector<float> z;           // m, camera depth of the visible surface; +inf where none
    std::vector<float> thickness;   // m, fluid path length in front of opaque particles
    std::vector<float> nx, ny, nz;  // world-space normal of the visible surface; 0 where none
    std::vector<float> count;       // splats covering the pixel
};

struct Capacity {
    std::size_t particles = 0;  // largest particle count of a frame
    std::size_t opaque = 0;     // largest opaque count
};

class Renderer {
public:
    // Allocates everything a frame up to `capacity` needs. UsageError for impossible settings
    // (image size, fluid without a smoothing length, non-positive radii, ...). `ranks`: the
    // ranks that share every frame (sort-last, above; collective, binds them to `backend`).
    Renderer(const Backend& backend, const RenderSettings& settings, const Capacity& capacity,
             dist::Communicator ranks = dist::Communicator::single());
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    // Renders on the backend (returns when the work is queued, or done on the CPU; collective
    // over the ranks). A frame
    // larger than the capacity grows the buffers (an allocation, counted by reallocations()),
    // as does a fluid that leaves the neighbour grid's box. UsageError on non-finite
    // positions, radii or camera.
    void render(const FrameInput& frame, const Camera& camera);
    // The last frame's images into `image` (its vectors keep their capacity: no allocation
    // from the second frame on).
    void download(RenderedImage& image) const;

    const RenderSettings& settings() const { return settings_; }
    const CameraView& view() const { return view_; }
    std::size_t reallocations() const;
    std::size_t device_bytes() const;

    // Device time per phase of the last frames, when enabled (one synchronisation per phase:
    // for benchmarks and --profile).
    void enable_profile(bool on);
    const PhaseProfile& profile() const;

    struct Buffers;

private:
    void check_input(const FrameInput& frame);
    void render_fluid(const FrameInput& frame);
    void render_spheres(const FrameInput& frame);
    void render_points(const FrameInput& frame);
    // Several ranks: all-reduce these planes (backend memory, one image each) in place.
    void allreduce_planes(std::initializer_list<float*> planes, dist::ReduceOp op);

    Backend backend_;
    dist::Communicator ranks_;
    RenderSettings settings_;
    CameraView view_{};
    std::unique_ptr<Buffers> buffers_;
};

}  // namespace partikel::render
