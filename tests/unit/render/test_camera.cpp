// The pinhole camera (render/camera.hpp): rays through pixel centres, OpenEXR's matrices,
// fitting a box, orbits and keyframe paths.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "base/error.hpp"
#include "render/camera.hpp"
#include "support/hostile_text.hpp"

using namespace partikel;
using namespace partikel::render;

namespace {

// p M for a row vector p = (x, y, z, 1).
std::array<double, 4> transform(const std::array<float, 16>& m, Vec3f p) {
    std::array<double, 4> out{};
    for (int c = 0; c < 4; ++c)
        out[std::size_t(c)] = double(p.x) * m[std::size_t(c)] + double(p.y) * m[std::size_t(4 + c)] +
                              double(p.z) * m[std::size_t(8 + c)] + m[std::size_t(12 + c)];
    return out;
}

}  // namespace

TEST_CASE("a camera looking down -z with y up: right is +x, depth is -z, pixel rays span the field of view") {
    const CameraView v = make_view({.eye = {0, 0, 10}, .target = {0, 0, 0}, .up = {0, 1, 0}, .fov_y_deg = 90}, 200, 100);
    CHECK(v.right.x == doctest::Approx(1.0));
    CHECK(v.up.y == doctest::Approx(1.0));
    CHECK(v.forward.z == doctest::Approx(-1.0));
    CHECK(v.tan_half_y == doctest::Approx(1.0));
    CHECK(v.tan_half_x == doctest::Approx(2.0));
    // Top-left pixel centre: u = (1/200 - 1) * 2, v = (1 - 1/100) * 1.
    const Vec3f ray = v.ray(0, 0);
    CHECK(dot(ray, v.forward) == doctest::Approx(1.0));
    CHECK(dot(ray, v.right) == doctest::Approx((1.0 / 200 - 1.0) * 2.0));
    CHECK(dot(ray, v.up) == doctest::Approx(1.0 - 1.0 / 100));
    CHECK(v.pixel_x(v.u_of(17.0f)) == doctest::Approx(17.5));
    CHECK(v.pixel_y(v.v_of(42.0f)) == doctest::Approx(42.5));
    const Vec3f c = v.to_camera({1, 2, 3});
    CHECK(c.x == doctest::Approx(1.0));
    CHECK(c.y == doctest::Approx(2.0));
    CHECK(c.z == doctest::Approx(7.0));
}

TEST_CASE("worldToCamera and worldToNDC follow OpenEXR's conventions") {
    const CameraView v = make_view({.eye = {1, 2, 3}, .target = {-2, 0.5f, -1}, .up = {0, 1, 0.2f}, .fov_y_deg = 35}, 64, 48);
    const Vec3f p{0.3f, -0.4f, -2.0f};
    const auto cam = transform(world_to_camera_matrix(v), p);
    const Vec3f expected = v.to_camera(p);
    CHECK(cam[0] == doctest::Approx(expected.x));
    CHECK(cam[1] == doctest::Approx(expected.y));
    CHECK(cam[2] == doctest::Approx(expected.z));
    CHECK(cam[3] == doctest::Approx(1.0));
    // NDC: (0, 0) top left, (1, 1) bottom right; x / w and y / w are the pixel position over the size.
    const auto ndc = transform(world_to_ndc_matrix(v), p);
    CHECK(ndc[0] / ndc[3] == doctest::Approx(v.pixel_x(expected.x / expected.z) / 64.0));
    CHECK(ndc[1] / ndc[3] == doctest::Approx(v.pixel_y(expected.y / expected.z) / 48.0));
    const auto centre = transform(world_to_ndc_matrix(v), {-2, 0.5f, -1});
    CHECK(centre[0] / centre[3] == doctest::Approx(0.5));
    CHECK(centre[1] / centre[3] == doctest::Approx(0.5));
}

TEST_CASE("impossible cameras and sizes are usage errors") {
    const Camera ok{};
    CHECK_THROWS_AS(make_view(ok, 0, 10), UsageError);
    CHECK_THROWS_AS(make_view(ok, 10, 0), UsageError);
    CHECK_THROWS_AS(make_view(ok, kMaxImageSide + 1, 10), UsageError);
    CHECK_THROWS_AS(make_view({.eye = {1, 1, 1}, .target = {1, 1, 1}}, 10, 10), UsageError);
    CHECK_THROWS_AS(make_view({.eye = {0, 5, 0}, .target = {0, 0, 0}, .up = {0, 1, 0}}, 10, 10), UsageError);
    CHECK_THROWS_AS(make_view({.fov_y_deg = 180}, 10, 10), UsageError);
    CHECK_THROWS_AS(make_view({.eye = {NAN, 0, 0}}, 10, 10), UsageError);
}

TEST_CASE("a fitted camera sees every corner of the box inside the image, one of them at the margin") {
    const Vec3f lo{-0.1f, 0.0f, 0.0f}, hi{0.35f, 0.23f, 0.036f};
    const Camera c = fit_camera(lo, hi, {0.3f, 0.4f, 1.0f}, {0, 1, 0}, 40.0f, 16.0f / 9.0f);
    const CameraView v = make_view(c, 1600, 900);
    double widest = 0.0;
    for (int k = 0; k < 8; ++k) {
        const Vec3f p{k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z};
        const Vec3f q = v.to_camera(p);
        const double x = v.pixel_x(q.x / q.z), y = v.pixel_y(q.y / q.z);
        CHECK(x >= 0.0);
        CHECK(x <= 1600.0);
        CHECK(y >= 0.0);
        CHECK(y <= 900.0);
        widest = std::max({widest, std::fabs(x - 800.0) / 800.0, std::fabs(y - 450.0) / 450.0});
    }
    CHECK(widest == doctest::Approx(1.0 / 1.05).epsilon(1e-4));
}

TEST_CASE("an orbit keeps distance, target and height; a full turn comes back") {
    const Camera c{.eye = {3, 1, 0}, .target = {0, 0, 0}, .up = {0, 1, 0}, .fov_y_deg = 30};
    const Camera quarter = orbit(c, 90.0f);
    CHECK(quarter.eye.x == doctest::Approx(0.0).epsilon(1e-6).scale(1.0));
    CHECK(quarter.eye.y == doctest::Approx(1.0));
    CHECK(quarter.eye.z == doctest::Approx(-3.0));
    const Camera full = orbit(c, 360.0f);
    CHECK(full.eye.x == doctest::Approx(3.0));
    CHECK(full.eye.z == doctest::Approx(0.0).scale(1.0));
}

TEST_CASE("camera paths: keys interpolate linearly, hold beyond the ends; bad files name the line") {
    const std::string text =
        "# frame eye target fov\n"
        "0   0 0 10   0 0 0\n"
        "10  10 0 10  0 0 0  60   # a comment\n"
        "\n"
        "20  10 10 10 1 1 1\n";
    const CameraPath path = CameraPath::parse(text, "cams.txt", {0, 1, 0}, 40.0f);
    REQUIRE(path.keys().size() == 3);
    CHECK(path.at(-5).eye.z == 10.0f);
    const Camera mid = path.at(5);
    CHECK(mid.eye.x == doctest::Approx(5.0));
    CHECK(mid.fov_y_deg == doctest::Approx(50.0));
    CHECK(path.at(15).target.x == doctest::Approx(0.5));
    CHECK(path.at(15).fov_y_deg == doctest::Approx(50.0));
    CHECK(path.at(99).eye.y == 10.0f);
    CHECK_THROWS_WITH_AS(CameraPath::parse("0 0 0 1 0 0\n", "a.txt", {0, 1, 0}, 40.0f), doctest::Contains("a.txt:1"),
                         FormatError);
    CHECK_THROWS_WITH_AS(CameraPath::parse("0 0 0 1 0 0 0\n0 1 0 1 0 0 0\n", "b.txt", {0, 1, 0}, 40.0f),
                         doctest::Contains("b.txt:2: frames must increase"), FormatError);
    CHECK_THROWS_WITH_AS(CameraPath::parse("0 0 0 1 0 0 x\n", "c.txt", {0, 1, 0}, 40.0f),
                         doctest::Contains("not a number"), FormatError);
    CHECK_THROWS_WITH_AS(CameraPath::parse("0 1 1 1 1 1 1\n", "d.txt", {0, 1, 0}, 40.0f),
                         doctest::Contains("coincide"), FormatError);
    CHECK_THROWS_AS(CameraPath::parse("# nothing\n", "e.txt", {0, 1, 0}, 40.0f), FormatError);
    CHECK_THROWS_AS(CameraPath::load("/no/such/camera/path", {0, 1, 0}, 40.0f), IoError);
}

// Hostile camera paths (tests/support/hostile_text.hpp): a path, or one FormatError naming the
// file; never a crash or undefined behaviour (the sanitizer build runs this too).
TEST_CASE("hostile camera paths parse or fail with an error naming the file") {
    const std::string valid = "# frame eye target fov\n0 0 0 5 0 0 0\n10 5 0 0 0 0 0 30\n20 0 5 5 0 0 0\n";
    CHECK_NOTHROW(CameraPath::parse(valid, "fuzz.txt", {0, 1, 0}, 40.0f));
    for (const std::string& hostile : partikel::test::hostile_texts(valid, 27, 600)) {
        try {
            const CameraPath path = CameraPath::parse(hostile, "fuzz.txt", {0, 1, 0}, 40.0f);
            const Camera c = path.at(7.5);
            CHECK(std::isfinite(c.eye.x + c.eye.y + c.eye.z + c.target.x + c.fov_y_deg));
        } catch (const FormatError& e) {
            CHECK(std::string_view(e.what()).starts_with("fuzz.txt"));
        }
    }
}
