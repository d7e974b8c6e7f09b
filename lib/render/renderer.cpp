#include "render/renderer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>

#include "base/error.hpp"
#include "core/buffer.hpp"
#include "core/dispatch.hpp"
#include "core/memory.hpp"
#include "frnn/cell_grid.hpp"

namespace partikel::render {

namespace {

// (tile, splat) pairs reserved per splat before the first frame: a splat of up to 16 pixels
// across covers at most 4 tiles.
constexpr std::size_t kPairsPerSplat = 4;

bool finite(Vec3f v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// `what`: "" or "opaque " (with its space), for messages.
void check_radii(std::span<const float> radius, std::size_t n, const char* what) {
    if (radius.empty()) return;
    if (radius.size() != n)
        throw UsageError(std::string("render: ") + std::to_string(radius.size()) + " " + what + "radii for " +
                         std::to_string(n) + " particles");
    for (std::size_t i = 0; i < n; ++i)
        if (!(radius[i] > 0.0f) || !std::isfinite(radius[i]))
            throw UsageError(std::string("render: ") + what + "particle " + std::to_string(i) +
                             " has a radius that is not positive and finite (" + std::to_string(radius[i]) + ")");
}

}  // namespace

Style parse_style(const std::string& name) {
    if (name == "fluid") return Style::fluid;
    if (name == "points") return Style::points;
    if (name == "spheres") return Style::spheres;
    throw UsageError("unknown style '" + name + "' (fluid, points or spheres)");
}

const char* style_name(Style style) {
    switch (style) {
        case Style::fluid: return "fluid";
        case Style::points: return "points";
        case Style::spheres: return "spheres";
    }
    return "?";
}

struct Renderer::Buffers {
    Buffers(const Backend& backend, const TileGrid& tiles, bool profile, bool halo)
        : profile(backend, profile), with_halo(halo) {
        const std::size_t pixels = tiles.tiles() ? std::size_t(tiles.width) * std::size_t(tiles.height) : 0;
        for (DeviceBuffer<float>* plane : {&depth[0], &depth[1], &opaque_depth, &thickness, &count, &r, &g, &b, &a,
                                           &z, &nx, &ny, &nz, &weight})
            *plane = DeviceBuffer<float>(backend, pixels);
        opaque_index = DeviceBuffer<std::uint32_t>(backend, pixels);
    }

    // The per-particle buffers for `c` (the binner keeps at least `pairs` pairs).
    // `tiles` by value: it may be the old binner's, which goes first.
    void allocate(const Backend& backend, Style style, const Capacity& c, TileGrid tiles, std::size_t pairs) {
        capacity = c;
        const std::size_t splats = std::max(c.particles, c.opaque);
        positions = DeviceBuffer<Vec3f>(backend, c.particles);
        radius = DeviceBuffer<float>(backend, c.particles);
        values = DeviceBuffer<float>(backend, c.particles);
        if (with_halo) halo = DeviceBuffer<std::uint8_t>(backend, c.particles);
        opaque_positions = DeviceBuffer<Vec3f>(backend, c.opaque);
        opaque_radius = DeviceBuffer<float>(backend, c.opaque);
        ellipsoids = DeviceBuffer<Ellipsoid>(backend, splats);
        if (style == Style::points)
            point_splats = DeviceBuffer<PointSplat>(backend, c.particles);
        else
            surface_splats = DeviceBuffer<SurfaceSplat>(backend, splats);
        binner.reset();  // its buffers go before the new ones come
        binner = std::make_unique<TileBinner>(backend, splats, tiles, std::max(pairs, kPairsPerSplat * splats));
        grid.reset();
    }

    Capacity capacity;
    DeviceBuffer<Vec3f> positions, opaque_positions;
    DeviceBuffer<float> radius, values, opaque_radius;
    DeviceBuffer<std::uint8_t> halo;  // several ranks: the halo flags of the particles
    DeviceBuffer<Ellipsoid> ellipsoids;
    DeviceBuffer<SurfaceSplat> surface_splats;
    DeviceBuffer<PointSplat> point_splats;
    std::unique_ptr<TileBinner> binner;
    std::unique_ptr<frnn::CellGrid> grid;
    Vec3f grid_lo{}, grid_hi{};
    Vec3f lo{}, hi{};  // bounds of the frame's particles (not the opaque ones)

    DeviceBuffer<float> depth[2], opaque_depth, thickness, count, r, g, b, a, z, nx, ny, nz, weight;
    DeviceBuffer<std::uint32_t> opaque_index;
    int smoothed = 0;  // which depth[] holds the smoothed fluid depth

    PhaseProfile profile;
    bool with_halo = false;
    std::size_t reallocations = 0;
};

Renderer::Renderer(const Backend& backend, const RenderSettings& settings, const Capacity& capacity,
                   dist::Communicator ranks)
    : backend_(backend), ranks_(std::move(ranks)), settings_(settings) {
    view_ = make_view(Camera{}, settings_.width, settings_.height);  // checks the size
    if (settings_.style == Style::fluid) {
        const float h = settings_.smoothing_length_m;
        if (!(h > 0.0f) || !std::isfinite(h))
            throw UsageError("fluid rendering needs the SPH smoothing length h > 0 (the frame's sph.h attribute, "
                             "or give one), got " + std::to_string(h));
        if (!(settings_.radius_over_h > 0.0f)) throw UsageError("fluid particle radius must be positive");
        if (!(settings_.anisotropy.max_ratio >= 1.0f)) throw UsageError("anisotropy ratio must be at least 1");
        if (settings_.anisotropy.centre_smoothing < 0.0f || settings_.anisotropy.centre_smoothing > 1.0f)
            throw UsageError("centre smoothing must be in 0..1");
        if (settings_.flow_steps < 0) throw UsageError("curvature flow steps must not be negative");
        if (!(settings_.flow_rate > 0.0f && settings_.flow_rate < 1.0f))
            throw UsageError("curvature flow rate must be in (0, 1) (explicit steps are unstable above)");
        settings_.anisotropy.support_m = 2.0f * h;
        settings_.anisotropy.radius_m = settings_.radius_over_h * h;
    }
    if (settings_.style == Style::spheres && !(settings_.radius_m > 0.0f))
        throw UsageError("sphere rendering needs a positive radius (or a radius column)");
    if (settings_.background.kind == BackgroundKind::environment &&
        (!settings_.background.environment || settings_.background.environment_width < 1 ||
         settings_.background.environment_height < 1))
        throw UsageError("environment background without a map");
    const float light_length = norm(settings_.lighting.direction);
    if (!(light_length > 0.0f)) throw UsageError("light direction is zero");
    settings_.lighting.direction = settings_.lighting.direction / light_length;
    // Builds the colour table now: a bad range is a usage error before the first frame.
    make_colour_table(settings_.colour_map, settings_.range_lo, settings_.range_hi);

    if (ranks_.size() > 1) ranks_.bind_device(backend_);
    buffers_ = std::make_unique<Buffers>(backend_, TileGrid::of(settings_.width, settings_.height), false,
                                         ranks_.size() > 1);
    buffers_->allocate(backend_, settings_.style,
                       {std::max<std::size_t>(capacity.particles, 1), std::max<std::size_t>(capacity.opaque, 1)},
                       TileGrid::of(settings_.width, settings_.height), 0);
}

Renderer::~Renderer() = default;

std::size_t Renderer::reallocations() const { return buffers_->reallocations + buffers_->binner->growths(); }

std::size_t Renderer::device_bytes() const {
    const Buffers& bf = *buffers_;
    std::size_t bytes = bf.positions.bytes() + bf.opaque_positions.bytes() + bf.radius.bytes() + bf.values.bytes() +
                        bf.opaque_radius.bytes() + bf.halo.bytes() + bf.ellipsoids.bytes() + bf.surface_splats.bytes() +
                        bf.point_splats.bytes() + bf.opaque_index.bytes();
    for (const DeviceBuffer<float>* plane : {&bf.depth[0], &bf.depth[1], &bf.opaque_depth, &bf.thickness, &bf.count,
                                             &bf.r, &bf.g, &bf.b, &bf.a, &bf.z, &bf.nx, &bf.ny, &bf.nz, &bf.weight})
        bytes += plane->bytes();
    bytes += 4 * sizeof(std::uint32_t) * bf.binner->pair_capacity();
    if (bf.grid) bytes += bf.grid->memory_bytes();
    return bytes;
}

void Renderer::enable_profile(bool on) { buffers_->profile = PhaseProfile(backend_, on); }

void Renderer::allreduce_planes(std::initializer_list<float*> planes, dist::ReduceOp op) {
    const std::size_t pixels = std::size_t(view_.width) * std::size_t(view_.height);
    for (float* plane : planes) ranks_.allreduce_device(plane, pixels, op);
}

const PhaseProfile& Renderer::profile() const { return buffers_->profile; }

// Finite positions, positive radii, matching value counts; the bounds of the particles on the
// way (the fluid's neighbour grid needs them). One pass on every core: at 4M particles a serial
// scan took longer than the GPU's anisotropy pass.
void Renderer::check_input(const FrameInput& frame) {
    const auto check = [](const ParticleSpan& p, const char* what, Vec3f& lo, Vec3f& hi) {
        const auto n = static_cast<std::int64_t>(p.position.size());
        std::int64_t first_bad = n;
#pragma omp parallel
        {
            Vec3f my_lo = lo, my_hi = hi;
            std::int64_t my_bad = n;
#pragma omp for schedule(static) nowait
            for (std::int64_t i = 0; i < n; ++i) {
                const Vec3f x = p.position[std::size_t(i)];
                if (!finite(x)) {
                    my_bad = std::min(my_bad, i);
                    continue;
                }
                for (int k = 0; k < 3; ++k) {
                    my_lo[k] = std::min(my_lo[k], x[k]);
                    my_hi[k] = std::max(my_hi[k], x[k]);
                }
            }
#pragma omp critical(partikel_render_bounds)
            {
                first_bad = std::min(first_bad, my_bad);
                for (int k = 0; k < 3; ++k) {
                    lo[k] = std::min(lo[k], my_lo[k]);
                    hi[k] = std::max(hi[k], my_hi[k]);
                }
            }
        }
        if (first_bad < n)
            throw UsageError(std::string("render: ") + what + "particle " + std::to_string(first_bad) +
                             " has a non-finite position");
        check_radii(p.radius_m, p.position.size(), what);
        if (!p.value.empty() && p.value.size() != p.position.size())
            throw UsageError(std::string("render: ") + std::to_string(p.value.size()) + " " + what + "values for " +
                             std::to_string(p.position.size()) + " particles");
        if (!p.halo.empty() && p.halo.size() != p.position.size())
            throw UsageError(std::string("render: ") + std::to_string(p.halo.size()) + " " + what + "halo flags for " +
                             std::to_string(p.position.size()) + " particles");
    };
    constexpr float big = std::numeric_limits<float>::max();
    Buffers& bf = *buffers_;
    bf.lo = {big, big, big};
    bf.hi = {-big, -big, -big};
    check(frame.particles, "", bf.lo, bf.hi);
    Vec3f opaque_lo = bf.lo, opaque_hi = bf.hi;
    check(frame.opaque, "opaque ", opaque_lo, opaque_hi);
    if (!frame.opaque.halo.empty()) throw UsageError("render: opaque particles have no halo");
    if (!frame.particles.halo.empty() && (ranks_.size() == 1 || settings_.style != Style::fluid))
        throw UsageError("render: a halo belongs to fluid rendered across ranks");
    // Across ranks the fluid's neighbour grid covers every rank's particles: the same cells, in
    // the same order, as one rank's.
    if (ranks_.size() > 1 && settings_.style == Style::fluid) {
        ranks_.allreduce(std::span<float>(&bf.lo.x, 3), dist::ReduceOp::min);
        ranks_.allreduce(std::span<float>(&bf.hi.x, 3), dist::ReduceOp::max);
    }
}

void Renderer::render(const FrameInput& frame, const Camera& camera) {
    check_input(frame);
    view_ = make_view(camera, settings_.width, settings_.height);
    Buffers& bf = *buffers_;
    const std::size_t n = frame.particles.position.size(), m = frame.opaque.position.size();
    // Grow for a frame larger than any before.
    if (n > bf.capacity.particles || m > bf.capacity.opaque) {
        bf.allocate(backend_, settings_.style,
                    {std::max(bf.capacity.particles, n), std::max(bf.capacity.opaque, m)}, bf.binner->tiles(),
                    bf.binner->pair_capacity());
        ++bf.reallocations;
    }
    {
        auto phase = bf.profile.phase("upload");
        if (n) bf.positions.copy_from_host(frame.particles.position);
        if (n && !frame.particles.radius_m.empty()) bf.radius.copy_from_host(frame.particles.radius_m);
        if (n && !frame.particles.value.empty()) bf.values.copy_from_host(frame.particles.value);
        if (m) bf.opaque_positions.copy_from_host(frame.opaque.position);
        if (m && !frame.opaque.radius_m.empty()) bf.opaque_radius.copy_from_host(frame.opaque.radius_m);
        if (n && !frame.particles.halo.empty()) bf.halo.copy_from_host(frame.particles.halo);
    }
    switch (settings_.style) {
        case Style::fluid: render_fluid(frame); break;
        case Style::spheres: render_spheres(frame); break;
        case Style::points: render_points(frame); break;
    }
}

namespace {

// The surface raster of n spheres or ellipsoids already in `ellipsoids`.
template <class Exec>
void splat_surfaces(const Exec& exec, TileBinner& binner, const Ellipsoid* ellipsoids, SurfaceSplat* splats,
                    std::size_t n, const CameraView& view, const SurfaceTargets& targets,
                    const HiddenSplats& hidden = {}) {
    project_ellipsoids(exec, ellipsoids, n, view, splats, binner.tile_counts(), hidden);
    binner.bin(exec, static_cast<const SurfaceSplat*>(splats), n);
    raster_surfaces(exec, splats, binner, view, targets);
}

}  // namespace

void Renderer::render_fluid(const FrameInput& frame) {
    Buffers& bf = *buffers_;
    const std::size_t n = frame.particles.position.size(), m = frame.opaque.position.size();
    const float radius = settings_.anisotropy.radius_m;
    with_exec(backend_, [&](const auto& exec) {
        {
            // Opaque particles first: their depth hides the fluid behind them.
            auto phase = bf.profile.phase("opaque");
            make_spheres(exec, bf.opaque_positions.data(), frame.opaque.radius_m.empty() ? nullptr : bf.opaque_radius.data(),
                         radius, m, bf.ellipsoids.data());
            splat_surfaces(exec, *bf.binner, bf.ellipsoids.data(), bf.surface_splats.data(), m, view_,
                           {.depth = bf.opaque_depth.data(), .index = bf.opaque_index.data()});
        }
        {
            auto phase = bf.profile.phase("anisotropy");
            if (n) {
                // The neighbour grid covers the fluid with room to move; rebuilt (an
                // allocation) when the fluid leaves it.
                const Vec3f lo = bf.lo, hi = bf.hi;
                bool inside = bf.grid != nullptr;
                for (int k = 0; k < 3 && inside; ++k) inside = lo[k] >= bf.grid_lo[k] && hi[k] <= bf.grid_hi[k];
                if (!inside) {
                    const float support = settings_.anisotropy.support_m;
                    for (int k = 0; k < 3; ++k) {
                        const float room = 0.25f * (hi[k] - lo[k]) + support;
                        bf.grid_lo[k] = lo[k] - room;
                        bf.grid_hi[k] = hi[k] + room;
                    }
                    if (bf.grid) ++bf.reallocations;
                    // Cells of edge h (k = 1): the fastest at SPH densities (docs/PERFORMANCE.md).
                    const frnn::GridSpec spec{.domain_min = bf.grid_lo, .domain_max = bf.grid_hi, .radius = support,
                                              .subdivision = 1};
                    if (const auto why = frnn::grid_too_large(spec))
                        throw UsageError("fluid surface: the neighbour search of the anisotropic splats: " + *why +
                                         "; the fluid spreads too far for its smoothing length (a larger "
                                         "--smoothing-length, or a frame without far-flung particles)");
                    bf.grid = std::make_unique<frnn::CellGrid>(backend_, spec, bf.capacity.particles);
                }
                bf.grid->build(exec, bf.positions.data(), n);
                compute_ellipsoids(exec, bf.grid->view(), settings_.anisotropy, bf.ellipsoids.data());
            }
        }
        {
            auto phase = bf.profile.phase("splat");
            // The halo's ellipsoids (in the grid's order) are another rank's to draw.
            HiddenSplats hidden;
            if (n && !frame.particles.halo.empty()) hidden = {bf.halo.data(), bf.grid->sorted_to_original()};
            splat_surfaces(exec, *bf.binner, bf.ellipsoids.data(), bf.surface_splats.data(), n, view_,
                           {.depth = bf.depth[0].data(),
                            .index = nullptr,
                            .thickness = bf.thickness.data(),
                            .count = bf.count.data(),
                            .clip_depth = bf.opaque_depth.data()},
                           hidden);
        }
        if (ranks_.size() > 1) {
            auto phase = bf.profile.phase("composite");
            allreduce_planes({bf.depth[0].data()}, dist::ReduceOp::min);
            allreduce_planes({bf.thickness.data(), bf.count.data()}, dist::ReduceOp::sum);
        }
        if (!ranks_.root()) return;  // flow and shading once, on rank 0
        {
            auto phase = bf.profile.phase("flow");
            const FlowParams flow{settings_.flow_rate, settings_.discontinuity_over_radius * radius,
                                  2.0f * view_.tan_half_x / float(view_.width)};
            int current = 0;
            for (int step = 0; step < settings_.flow_steps; ++step) {
                curvature_flow_step(exec, bf.depth[current].data(), bf.depth[1 - current].data(), view_.width,
                                    view_.height, flow);
                current = 1 - current;
            }
            bf.smoothed = current;
        }
        {
            auto phase = bf.profile.phase("shade");
            ShadeInputs inputs;
            inputs.fluid_depth = bf.depth[bf.smoothed].data();
            inputs.thickness = bf.thickness.data();
            inputs.discontinuity_m = settings_.discontinuity_over_radius * radius;
            inputs.opaque_depth = bf.opaque_depth.data();
            inputs.opaque_index = bf.opaque_index.data();
            inputs.opaque.positions = bf.opaque_positions.data();
            inputs.opaque.radius = frame.opaque.radius_m.empty() ? nullptr : bf.opaque_radius.data();
            inputs.opaque.constant_radius_m = radius;
            inputs.opaque.constant_colour = settings_.opaque_colour;
            shade_surfaces(exec, inputs, view_, settings_.background, settings_.lighting, settings_.fluid,
                           {bf.r.data(), bf.g.data(), bf.b.data(), bf.a.data(), bf.z.data(), bf.nx.data(),
                            bf.ny.data(), bf.nz.data()});
        }
    });
}

void Renderer::render_spheres(const FrameInput& frame) {
    Buffers& bf = *buffers_;
    const std::size_t n = frame.particles.position.size();
    const bool per_particle_radius = !frame.particles.radius_m.empty();
    const bool coloured = !frame.particles.value.empty();
    with_exec(backend_, [&](const auto& exec) {
        {
            auto phase = bf.profile.phase("splat");
            make_spheres(exec, bf.positions.data(), per_particle_radius ? bf.radius.data() : nullptr,
                         settings_.radius_m, n, bf.ellipsoids.data());
            splat_surfaces(exec, *bf.binner, bf.ellipsoids.data(), bf.surface_splats.data(), n, view_,
                           {.depth = bf.opaque_depth.data(), .index = bf.opaque_index.data(), .thickness = nullptr,
                            .count = bf.count.data()});
        }
        {
            auto phase = bf.profile.phase("shade");
            ShadeInputs inputs;
            inputs.opaque_depth = bf.opaque_depth.data();
            inputs.opaque_index = bf.opaque_index.data();
            inputs.opaque.positions = bf.positions.data();
            inputs.opaque.radius = per_particle_radius ? bf.radius.data() : nullptr;
            inputs.opaque.constant_radius_m = settings_.radius_m;
            inputs.opaque.values = coloured ? bf.values.data() : nullptr;
            inputs.opaque.colours = make_colour_table(settings_.colour_map, settings_.range_lo, settings_.range_hi);
            inputs.opaque.constant_colour = settings_.particle_colour;
            shade_surfaces(exec, inputs, view_, settings_.background, settings_.lighting, settings_.fluid,
                           {bf.r.data(), bf.g.data(), bf.b.data(), bf.a.data(), bf.z.data(), bf.nx.data(),
                            bf.ny.data(), bf.nz.data()});
        }
        if (ranks_.size() > 1) {
            // Each pixel from the rank whose sphere is nearest (screen.hpp).
            auto phase = bf.profile.phase("composite");
            const std::size_t pixels = std::size_t(view_.width) * std::size_t(view_.height);
            float* nearest = bf.weight.data();
            copy_bytes(backend_, nearest, bf.z.data(), pixels * sizeof(float), CopyDirection::device_to_device, true);
            allreduce_planes({nearest}, dist::ReduceOp::min);
            std::uint32_t* owner = bf.opaque_index.data();
            const auto rank = std::uint32_t(ranks_.rank());
            nearest_owner(exec, bf.z.data(), nearest, rank, pixels, owner);
            ranks_.allreduce_device(owner, pixels, dist::ReduceOp::min);
            clear_unowned(exec, owner, rank, pixels,
                          {bf.r.data(), bf.g.data(), bf.b.data(), bf.a.data(), nullptr, bf.nx.data(), bf.ny.data(),
                           bf.nz.data()});
            allreduce_planes({bf.r.data(), bf.g.data(), bf.b.data(), bf.a.data(), bf.nx.data(), bf.ny.data(),
                              bf.nz.data(), bf.count.data()},
                             dist::ReduceOp::sum);
            copy_bytes(backend_, bf.z.data(), nearest, pixels * sizeof(float), CopyDirection::device_to_device, true);
        }
    });
}

void Renderer::render_points(const FrameInput& frame) {
    Buffers& bf = *buffers_;
    const std::size_t n = frame.particles.position.size();
    PointStyle style = settings_.points;
    style.radius_m = settings_.radius_m;
    style.radius = frame.particles.radius_m.empty() ? nullptr : bf.radius.data();
    ColourTable colours = make_colour_table(settings_.colour_map, settings_.range_lo, settings_.range_hi);
    if (frame.particles.value.empty()) {
        // One colour for every particle: a table of that colour.
        for (auto& entry : colours.rgb) {
            entry[0] = settings_.particle_colour.x;
            entry[1] = settings_.particle_colour.y;
            entry[2] = settings_.particle_colour.z;
        }
    }
    with_exec(backend_, [&](const auto& exec) {
        {
            auto phase = bf.profile.phase("splat");
            project_points(exec, bf.positions.data(), frame.particles.value.empty() ? nullptr : bf.values.data(), n,
                           style, colours, view_, bf.point_splats.data(), bf.binner->tile_counts());
            bf.binner->bin(exec, static_cast<const PointSplat*>(bf.point_splats.data()), n);
            raster_points(exec, bf.point_splats.data(), *bf.binner, view_,
                          {bf.r.data(), bf.g.data(), bf.b.data(), bf.weight.data(), bf.z.data(), bf.count.data()});
        }
        if (ranks_.size() > 1) {
            auto phase = bf.profile.phase("composite");
            allreduce_planes({bf.r.data(), bf.g.data(), bf.b.data(), bf.weight.data(), bf.count.data()},
                             dist::ReduceOp::sum);
            allreduce_planes({bf.z.data()}, dist::ReduceOp::min);
        }
        if (!ranks_.root()) return;  // the background once, on rank 0
        {
            auto phase = bf.profile.phase("shade");
            finish_points(exec, bf.weight.data(), view_, settings_.background,
                          {bf.r.data(), bf.g.data(), bf.b.data(), bf.a.data()});
        }
    });
}

void Renderer::download(RenderedImage& image) const {
    const Buffers& bf = *buffers_;
    const std::size_t pixels = std::size_t(view_.width) * std::size_t(view_.height);
    image.width = view_.width;
    image.height = view_.height;
    const bool surfaces = settings_.style != Style::points;
    const std::pair<std::vector<float>*, const DeviceBuffer<float>*> planes[] = {
        {&image.r, &bf.r},
        {&image.g, &bf.g},
        {&image.b, &bf.b},
        {&image.a, &bf.a},
        {&image.z, &bf.z},
        {&image.thickness, settings_.style == Style::fluid ? &bf.thickness : nullptr},
        {&image.nx, surfaces ? &bf.nx : nullptr},
        {&image.ny, surfaces ? &bf.ny : nullptr},
        {&image.nz, surfaces ? &bf.nz : nullptr},
        {&image.count, &bf.count},
    };
    for (const auto& [host, device] : planes) {
        if (!device) {
            host->clear();
            continue;
        }
        host->resize(pixels);
        device->copy_to_host(*host);
    }
}

}  // namespace partikel::render
