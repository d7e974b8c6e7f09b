// The Renderer (render/renderer.hpp): every style produces its channels, a frame allocates
// nothing once the buffers exist, and bad input is an error or a documented image, never a
// crash: an empty frame, non-finite positions, a camera inside the particles, a zero-size
// image, a fluid without smoothing length.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "base/error.hpp"
#include "core/memory.hpp"
#include "render/renderer.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::render;

namespace {

// A block of fluid (nx x ny x nz at spacing dx, lower corner at the origin) above a floor of
// opaque particles at y = -dx.
struct Scene {
    std::vector<Vec3f> fluid, floor;
    float dx = 0.01f;
    Scene(int nx, int ny, int nz) {
        for (int z = 0; z < nz; ++z)
            for (int y = 0; y < ny; ++y)
                for (int x = 0; x < nx; ++x) fluid.push_back({dx * float(x), dx * float(y), dx * float(z)});
        for (int z = -3; z < nz + 3; ++z)
            for (int x = -3; x < nx + 3; ++x) floor.push_back({dx * float(x), -dx, dx * float(z)});
    }
    FrameInput input() const { return {.particles = {.position = fluid}, .opaque = {.position = floor}}; }
};

RenderSettings fluid_settings(int width, int height) {
    RenderSettings s;
    s.style = Style::fluid;
    s.width = width;
    s.height = height;
    s.smoothing_length_m = 0.013f;
    return s;
}

const Camera kAbove{.eye = {0.05f, 0.25f, 0.2f}, .target = {0.05f, 0.02f, 0.05f}, .up = {0.0f, 1.0f, 0.0f}, .fov_y_deg = 40.0f};

std::size_t finite_count(const std::vector<float>& v) {
    std::size_t n = 0;
    for (const float x : v) n += std::isfinite(x);
    return n;
}

void fluid_block_on_a_floor(const Backend& backend) {
    const Scene scene(10, 5, 10);
    Renderer renderer(backend, fluid_settings(64, 48), {.particles = scene.fluid.size(), .opaque = scene.floor.size()});
    renderer.render(scene.input(), kAbove);
    RenderedImage image;
    renderer.download(image);
    for (const auto* channel : {&image.r, &image.g, &image.b, &image.a, &image.z, &image.thickness, &image.nx,
                                &image.ny, &image.nz, &image.count})
        CHECK(channel->size() == 64u * 48u);
    // The image centre looks at the middle of the top surface: fluid with an upward normal.
    const std::size_t centre = 24 * 64 + 32;
    CHECK(std::isfinite(image.z[centre]));
    CHECK(image.thickness[centre] > 0.0f);
    CHECK(image.count[centre] >= 1.0f);
    CHECK(image.ny[centre] > 0.9f);
    CHECK(image.a[centre] == 1.0f);
    // Every pixel is something: fluid, floor or sky, all opaque on the gradient background.
    for (std::size_t p = 0; p < image.a.size(); ++p) {
        CHECK(image.a[p] == 1.0f);
        CHECK(std::isfinite(image.r[p]));
        CHECK(image.r[p] >= 0.0f);
    }
    // A second frame of the same size allocates nothing.
    const std::uint64_t before = device_allocation_count();
    renderer.render(scene.input(), orbit(kAbove, 30.0f));
    renderer.download(image);
    CHECK(device_allocation_count() == before);
    CHECK(renderer.reallocations() == 0);
}

void spheres_and_points(const Backend& backend) {
    const std::vector<Vec3f> positions = {{0.0f, 0.0f, 0.0f}, {0.3f, 0.0f, 0.0f}};
    const std::vector<float> values = {0.0f, 1.0f};
    const Camera camera{.eye = {0.0f, 0.0f, 3.0f}, .target = {0.0f, 0.0f, 0.0f}, .fov_y_deg = 30.0f};
    RenderSettings s;
    s.width = 41;
    s.height = 31;
    s.style = Style::spheres;
    s.radius_m = 0.1f;
    {
        Renderer renderer(backend, s, {.particles = 2});
        renderer.render({.particles = {.position = positions, .value = values}}, camera);
        RenderedImage image;
        renderer.download(image);
        CHECK(image.thickness.empty());
        const std::size_t centre = 15 * 41 + 20;
        CHECK(image.z[centre] == doctest::Approx(2.9).epsilon(1e-5));   // the sphere's front at the centre
        CHECK(image.nz[centre] == doctest::Approx(1.0).epsilon(1e-3));  // facing the camera (+z)
        CHECK(image.count[centre] == 1.0f);
        CHECK(finite_count(image.z) > 10);  // two spheres about 4 pixels across
    }
    s.style = Style::points;
    s.points.sigma_px = 1.5f;
    s.background.kind = BackgroundKind::transparent;
    {
        Renderer renderer(backend, s, {.particles = 2});
        renderer.render({.particles = {.position = positions, .value = values}}, camera);
        RenderedImage image;
        renderer.download(image);
        CHECK(image.nx.empty());
        CHECK(image.thickness.empty());
        const std::size_t centre = 15 * 41 + 20;
        CHECK(image.a[centre] > 0.0f);
        CHECK(image.a[0] == 0.0f);
        CHECK(image.r[0] == 0.0f);
        CHECK(image.z[centre] == doctest::Approx(3.0));
    }
}

void bad_input(const Backend& backend) {
    const Scene scene(6, 4, 6);
    // An empty frame: only the background.
    {
        Renderer renderer(backend, fluid_settings(32, 24), {.particles = 10, .opaque = 10});
        renderer.render({}, kAbove);
        RenderedImage image;
        renderer.download(image);
        CHECK(finite_count(image.z) == 0);
        for (const float a : image.a) CHECK(a == 1.0f);
        for (const float c : image.count) CHECK(c == 0.0f);
    }
    // Non-finite positions are refused, naming the particle.
    {
        Renderer renderer(backend, fluid_settings(32, 24), {.particles = scene.fluid.size()});
        std::vector<Vec3f> broken = scene.fluid;
        broken[7].y = std::numeric_limits<float>::quiet_NaN();
        CHECK_THROWS_WITH_AS(renderer.render({.particles = {.position = broken}}, kAbove),
                             doctest::Contains("particle 7 has a non-finite position"), UsageError);
    }
    // The camera inside the fluid: particles reaching closer than the near distance are not
    // drawn; the rest is.
    {
        Renderer renderer(backend, fluid_settings(32, 24), {.particles = scene.fluid.size()});
        const Camera inside{.eye = {0.03f, 0.015f, 0.03f}, .target = {0.05f, 0.015f, 0.05f}, .fov_y_deg = 60.0f};
        renderer.render({.particles = {.position = scene.fluid}}, inside);
        RenderedImage image;
        renderer.download(image);
        CHECK(finite_count(image.z) > 0);
        for (const float z : image.z) CHECK(!(z <= renderer.view().near_m));
    }
    // Impossible settings are usage errors before any frame.
    CHECK_THROWS_AS(Renderer(backend, fluid_settings(0, 24), {}), UsageError);
    CHECK_THROWS_AS(Renderer(backend, fluid_settings(32, 0), {}), UsageError);
    RenderSettings no_h = fluid_settings(32, 24);
    no_h.smoothing_length_m = 0.0f;
    CHECK_THROWS_WITH_AS(Renderer(backend, no_h, {}), doctest::Contains("smoothing length"), UsageError);
    RenderSettings no_radius;
    no_radius.style = Style::spheres;
    CHECK_THROWS_AS(Renderer(backend, no_radius, {}), UsageError);
    RenderSettings bad_range = fluid_settings(32, 24);
    bad_range.range_lo = 2.0f;
    bad_range.range_hi = 1.0f;
    CHECK_THROWS_AS(Renderer(backend, bad_range, {}), UsageError);
    // A frame larger than the capacity grows the buffers and renders.
    {
        Renderer renderer(backend, fluid_settings(32, 24), {.particles = 4, .opaque = 1});
        renderer.render(scene.input(), kAbove);
        CHECK(renderer.reallocations() == 1);
        RenderedImage image;
        renderer.download(image);
        CHECK(finite_count(image.z) > 0);
    }
}

}  // namespace

PK_BACKEND_TEST("a fluid block on an opaque floor: every channel, upward normals on top, no allocation per frame",
                fluid_block_on_a_floor)
PK_BACKEND_TEST("spheres and points styles", spheres_and_points)
PK_BACKEND_TEST("bad input: empty frames, NaN, a camera inside the fluid, impossible settings", bad_input)
