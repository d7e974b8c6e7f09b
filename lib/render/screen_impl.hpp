// The image-space kernels (screen.hpp), written once for both backends; instantiated by
// screen_cpu.cpp (CpuExec) and screen_cuda.cu (CudaExec).
#pragma once

#include <math.h>

#include "base/hd.hpp"
#include "render/raster.hpp"
#include "render/screen.hpp"

namespace partikel::render {

namespace kernels {

// Depth of pixel (x, y), +inf outside the image.
PK_DEVICE_INLINE float depth_at(const float* depth, int width, int height, int x, int y) {
    return x < 0 || y < 0 || x >= width || y >= height ? INFINITY : depth[std::size_t(y) * std::size_t(width) + std::size_t(x)];
}

// The same surface: finite and within the discontinuity threshold.
PK_DEVICE_INLINE bool joined(float z, float q, float threshold) { return q < INFINITY && fabsf(q - z) <= threshold; }

// Depth change per pixel across a pixel at depth z with neighbours `before` and `after`: the
// central difference, the one-sided difference towards the only neighbour on the same
// surface, or 0.
PK_DEVICE_INLINE float slope(float z, float before, float after, float threshold) {
    const bool b = joined(z, before, threshold), a = joined(z, after, threshold);
    if (a && b) return 0.5f * (after - before);
    if (a) return after - z;
    if (b) return z - before;
    return 0.0f;
}

struct CurvatureFlowStep {
    const float* in;
    float* out;
    std::int32_t width, height;
    FlowParams p;

    PK_HD void operator()(std::size_t i) const {
        const int x = int(i % std::size_t(width)), y = int(i / std::size_t(width));
        const float z = in[i];
        if (!(z < INFINITY)) {
            out[i] = z;
            return;
        }
        const float t = p.discontinuity_m;
        const auto at = [&](int dx, int dy) { return depth_at(in, width, height, x + dx, y + dy); };
        const float zl = at(-1, 0), zr = at(1, 0), zu = at(0, -1), zd = at(0, 1);
        // Cross slopes of this pixel and of its four neighbours (each judged on its own surface).
        const float gy = slope(z, zu, zd, t), gx = slope(z, zl, zr, t);
        const float gy_l = zl < INFINITY ? slope(zl, at(-1, -1), at(-1, 1), t) : 0.0f;
        const float gy_r = zr < INFINITY ? slope(zr, at(1, -1), at(1, 1), t) : 0.0f;
        const float gx_u = zu < INFINITY ? slope(zu, at(-1, -1), at(1, -1), t) : 0.0f;
        const float gx_d = zd < INFINITY ? slope(zd, at(-1, 1), at(1, 1), t) : 0.0f;
        // n along the face normal at the face between this pixel and neighbour q (dz = z_q - z
        // in the direction of increasing coordinate), a = s (z + z_q) / 2 at the face.
        const auto face = [&](float dz, float zq, float cross) {
            const float a = p.pixel_size_per_depth * 0.5f * (z + zq);
            return -dz / sqrtf(a * a + dz * dz + cross * cross);
        };
        const bool open_l = joined(z, zl, t), open_r = joined(z, zr, t);
        const bool open_u = joined(z, zu, t), open_d = joined(z, zd, t);
        float f_r = open_r ? face(zr - z, zr, 0.5f * (gy + gy_r)) : 0.0f;
        float f_l = open_l ? face(z - zl, zl, 0.5f * (gy + gy_l)) : 0.0f;
        float f_d = open_d ? face(zd - z, zd, 0.5f * (gx + gx_d)) : 0.0f;
        float f_u = open_u ? face(z - zu, zu, 0.5f * (gx + gx_u)) : 0.0f;
        if (!open_r) f_r = f_l;  // a closed face mirrors the opposite one (zero second difference)
        if (!open_l) f_l = f_r;
        if (!open_d) f_d = f_u;
        if (!open_u) f_u = f_d;
        const float two_h_a = (f_r - f_l) + (f_d - f_u);
        const float a = p.pixel_size_per_depth * z;
        out[i] = z - 0.25f * p.rate * a * two_h_a;
    }
};

// Camera-space point of pixel (x, y) at depth z.
PK_DEVICE_INLINE Vec3f camera_point(const CameraView& view, int x, int y, float z) {
    return {view.u_of(float(x)) * z, view.v_of(float(y)) * z, z};
}

// Unit normal (world space, facing the camera) of the depth image at (x, y); the one-sided
// difference with the smaller depth change along each axis.
PK_DEVICE_INLINE Vec3f depth_normal(const float* depth, const CameraView& view, int x, int y, float z,
                                    float threshold) {
    const int w = view.width, h = view.height;
    const Vec3f p = camera_point(view, x, y, z);
    const auto tangent = [&](int dx, int dy) {
        const float before = depth_at(depth, w, h, x - dx, y - dy), after = depth_at(depth, w, h, x + dx, y + dy);
        const bool b = joined(z, before, threshold), a = joined(z, after, threshold);
        if (a && (!b || fabsf(after - z) <= fabsf(z - before)))
            return camera_point(view, x + dx, y + dy, after) - p;
        if (b) return p - camera_point(view, x - dx, y - dy, before);
        // No neighbour on this surface: a tangent of the plane facing the camera.
        return dx ? Vec3f{view.u_of(float(x) + 0.5f) * z - view.u_of(float(x) - 0.5f) * z, 0.0f, 0.0f}
                  : Vec3f{0.0f, view.v_of(float(y) + 0.5f) * z - view.v_of(float(y) - 0.5f) * z, 0.0f};
    };
    Vec3f n = cross(tangent(1, 0), tangent(0, 1));
    if (dot(n, p) > 0.0f) n = -n;  // towards the eye
    const float len = sqrtf(dot(n, n));
    return view.to_world_direction(len > 0.0f ? n / len : Vec3f{0.0f, 0.0f, -1.0f});
}

PK_DEVICE_INLINE Vec3f lerp(Vec3f a, Vec3f b, float t) { return a + t * (b - a); }
PK_DEVICE_INLINE Vec3f mul(Vec3f a, Vec3f b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }

// The background seen along unit direction d (world space).
PK_DEVICE_INLINE Vec3f sky(const Background& bg, const CameraView& view, Vec3f d) {
    switch (bg.kind) {
        case BackgroundKind::black:
        case BackgroundKind::transparent: return {0.0f, 0.0f, 0.0f};
        case BackgroundKind::environment: {
            const float elevation = fminf(fmaxf(dot(d, view.world_up), -1.0f), 1.0f);
            const float azimuth = atan2f(dot(d, bg.east), dot(d, bg.north));
            const float fx = (0.5f + azimuth * 0.15915494309f) * float(bg.environment_width) - 0.5f;
            const float fy = acosf(elevation) * 0.31830988618f * float(bg.environment_height) - 0.5f;
            const int x0 = int(floorf(fx)), y0 = int(floorf(fy));
            const float tx = fx - float(x0), ty = fy - float(y0);
            const auto texel = [&](int x, int y) {
                x = ((x % bg.environment_width) + bg.environment_width) % bg.environment_width;  // wraps in azimuth
                y = y < 0 ? 0 : (y >= bg.environment_height ? bg.environment_height - 1 : y);
                const float* t = bg.environment + 3 * (std::size_t(y) * std::size_t(bg.environment_width) + std::size_t(x));
                return Vec3f{t[0], t[1], t[2]};
            };
            return lerp(lerp(texel(x0, y0), texel(x0 + 1, y0), tx), lerp(texel(x0, y0 + 1), texel(x0 + 1, y0 + 1), tx), ty);
        }
        case BackgroundKind::gradient:
        default: {
            const float e = dot(d, view.world_up);
            return e >= 0.0f ? lerp(bg.horizon, bg.zenith, sqrtf(e)) : lerp(bg.horizon, bg.ground, sqrtf(fminf(-e * 4.0f, 1.0f)));
        }
    }
}

PK_DEVICE_INLINE float blinn_phong(Vec3f n, Vec3f to_eye, const Lighting& light) {
    Vec3f h = to_eye + light.direction;
    const float len = sqrtf(dot(h, h));
    if (!(len > 0.0f)) return 0.0f;
    h = h / len;
    const float c = fmaxf(dot(n, h), 0.0f);
    return light.specular * powf(c, light.shininess);
}

struct ShadeSurfaces {
    ShadeInputs in;
    CameraView view;
    Background background;
    Lighting light;
    FluidLook fluid;
    ShadeTargets out;

    PK_HD void operator()(std::size_t i) const {
        const int x = int(i % std::size_t(view.width)), y = int(i / std::size_t(view.width));
        const Vec3f ray = view.ray(x, y);
        const Vec3f d = ray / sqrtf(dot(ray, ray));
        const Vec3f to_eye = -d;
        // Background: the nearest opaque particle, or the sky.
        Vec3f colour = sky(background, view, d);
        float alpha = background.kind == BackgroundKind::transparent ? 0.0f : 1.0f;
        float depth = INFINITY;
        Vec3f normal{0.0f, 0.0f, 0.0f};
        const std::uint32_t hit = in.opaque_index ? in.opaque_index[i] : kNoSplat;
        if (hit != kNoSplat) {
            const OpaqueParticles& o = in.opaque;
            depth = in.opaque_depth[i];
            const Vec3f point = view.eye + depth * ray;
            const Vec3f offset = point - o.positions[hit];
            const float len = sqrtf(dot(offset, offset));
            normal = len > 0.0f ? offset / len : to_eye;
            const Vec3f base = o.values ? o.colours(o.values[hit]) : o.constant_colour;
            const float lit = light.ambient + light.diffuse * fmaxf(dot(normal, light.direction), 0.0f);
            colour = lit * mul(base, light.colour) + blinn_phong(normal, to_eye, light) * light.colour;
            alpha = 1.0f;
        }
        const float zf = in.fluid_depth ? in.fluid_depth[i] : INFINITY;
        if (zf < depth) {
            normal = depth_normal(in.fluid_depth, view, x, y, zf, in.discontinuity_m);
            const float cos_theta = fmaxf(dot(normal, to_eye), 0.0f);
            const float r0 = (fluid.refractive_index - 1.0f) / (fluid.refractive_index + 1.0f);
            const float f0 = r0 * r0;
            const float m = 1.0f - cos_theta;
            const float fresnel = f0 + (1.0f - f0) * m * m * m * m * m;
            const float thickness = in.thickness[i];
            const Vec3f absorbed{expf(-fluid.absorption_per_m.x * thickness), expf(-fluid.absorption_per_m.y * thickness),
                                 expf(-fluid.absorption_per_m.z * thickness)};
            const Vec3f transmitted = (1.0f - fresnel) * (mul(absorbed, colour) + mul(Vec3f{1.0f, 1.0f, 1.0f} - absorbed, fluid.colour));
            const Vec3f reflected_dir = d - (2.0f * dot(d, normal)) * normal;
            const Vec3f reflected = fresnel * sky(background, view, reflected_dir) + blinn_phong(normal, to_eye, light) * light.colour;
            colour = transmitted + reflected;
            // Over a transparent background the fluid hides the (black) background by the
            // light it does not let through, averaged over the channels.
            if (alpha < 1.0f)
                alpha = 1.0f - (1.0f - fresnel) * (absorbed.x + absorbed.y + absorbed.z) / 3.0f;
            depth = zf;
        }
        out.r[i] = colour.x;
        out.g[i] = colour.y;
        out.b[i] = colour.z;
        out.a[i] = alpha;
        if (out.z) out.z[i] = depth;
        if (out.nx) {
            out.nx[i] = normal.x;
            out.ny[i] = normal.y;
            out.nz[i] = normal.z;
        }
    }
};

struct FinishPoints {
    const float* weight;
    CameraView view;
    Background background;
    ShadeTargets out;
    PK_HD void operator()(std::size_t i) const {
        const int x = int(i % std::size_t(view.width)), y = int(i / std::size_t(view.width));
        const Vec3f ray = view.ray(x, y);
        const Vec3f bg = sky(background, view, ray / sqrtf(dot(ray, ray)));
        out.r[i] += bg.x;
        out.g[i] += bg.y;
        out.b[i] += bg.z;
        out.a[i] = background.kind == BackgroundKind::transparent ? 1.0f - expf(-weight[i]) : 1.0f;
    }
};

struct NearestOwner {
    const float* depth;
    const float* nearest;
    std::uint32_t rank;
    std::uint32_t* owner;
    PK_HD void operator()(std::size_t i) const { owner[i] = depth[i] == nearest[i] ? rank : 0xffffffffu; }
};

struct ClearUnowned {
    const std::uint32_t* owner;
    std::uint32_t rank;
    ShadeTargets planes;
    PK_HD void operator()(std::size_t i) const {
        if (owner[i] == rank) return;
        for (float* p : {planes.r, planes.g, planes.b, planes.a, planes.nx, planes.ny, planes.nz})
            if (p) p[i] = 0.0f;
    }
};

}  // namespace kernels

template <class Exec>
void nearest_owner(const Exec& exec, const float* depth, const float* nearest, std::uint32_t rank, std::size_t pixels,
                   std::uint32_t* owner) {
    exec.for_each(pixels, kernels::NearestOwner{depth, nearest, rank, owner}, "render.nearest_owner");
}

template <class Exec>
void clear_unowned(const Exec& exec, const std::uint32_t* owner, std::uint32_t rank, std::size_t pixels,
                   const ShadeTargets& planes) {
    exec.for_each(pixels, kernels::ClearUnowned{owner, rank, planes}, "render.clear_unowned");
}

template <class Exec>
void curvature_flow_step(const Exec& exec, const float* depth_in, float* depth_out, int width, int height,
                         const FlowParams& params) {
    exec.for_each(std::size_t(width) * std::size_t(height),
                  kernels::CurvatureFlowStep{depth_in, depth_out, width, height, params}, "render.curvature_flow");
}

template <class Exec>
void shade_surfaces(const Exec& exec, const ShadeInputs& inputs, const CameraView& view, const Background& background,
                    const Lighting& lighting, const FluidLook& fluid, const ShadeTargets& targets) {
    exec.for_each(std::size_t(view.width) * std::size_t(view.height),
                  kernels::ShadeSurfaces{inputs, view, background, lighting, fluid, targets}, "render.shade");
}

template <class Exec>
void finish_points(const Exec& exec, const float* weight, const CameraView& view, const Background& background,
                   const ShadeTargets& targets) {
    exec.for_each(std::size_t(view.width) * std::size_t(view.height),
                  kernels::FinishPoints{weight, view, background, targets}, "render.finish_points");
}

#define PK_RENDER_SCREEN_INSTANTIATE(Exec)                                                                         \
    template void curvature_flow_step(const Exec&, const float*, float*, int, int, const FlowParams&);            \
    template void shade_surfaces(const Exec&, const ShadeInputs&, const CameraView&, const Background&,           \
                                 const Lighting&, const FluidLook&, const ShadeTargets&);                         \
    template void finish_points(const Exec&, const float*, const CameraView&, const Background&, const ShadeTargets&); \
    template void nearest_owner(const Exec&, const float*, const float*, std::uint32_t, std::size_t, std::uint32_t*); \
    template void clear_unowned(const Exec&, const std::uint32_t*, std::uint32_t, std::size_t, const ShadeTargets&);

}  // namespace partikel::render
