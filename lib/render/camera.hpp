// A pinhole camera: eye, target, up and vertical field of view (host), and the view that kernels
// use to cast a ray through each pixel (both backends).
//
// Camera space follows OpenEXR's (and RenderMan's) convention: x to the right of the image, y
// up, z along the viewing direction, so points in front of the camera have z > 0 and the space
// is left-handed. A pixel (x, y), y = 0 the top row, is sampled at its centre; its ray is
//   d(x, y) = forward + u(x) right + v(y) up,   u = (2 (x + 1/2) / W - 1) tan(fov_x / 2),
//                                               v = (1 - 2 (y + 1/2) / H) tan(fov_y / 2),
// not normalised: the point eye + t d has camera depth z = t, so ray parameters are depths.
// Pixels are square: tan(fov_x / 2) = tan(fov_y / 2) W / H.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/hd.hpp"
#include "base/vec.hpp"

namespace partikel::render {

struct Camera {
    Vec3f eye{0.0f, 0.0f, 1.0f};     // m
    Vec3f target{0.0f, 0.0f, 0.0f};  // m, the point at the image centre
    Vec3f up{0.0f, 1.0f, 0.0f};      // world direction shown upwards (need not be orthogonal to the view)
    float fov_y_deg = 40.0f;         // vertical field of view, degrees in (0, 180)
};

struct CameraView {
    Vec3f eye{};                    // m
    Vec3f right{}, up{}, forward{};  // orthonormal camera axes in world space
    Vec3f world_up{};                // Camera::up, normalised (the sky's zenith)
    float tan_half_x = 0.0f;         // tan(fov_x / 2)
    float tan_half_y = 0.0f;         // tan(fov_y / 2)
    std::int32_t width = 0;          // pixels
    std::int32_t height = 0;         // pixels
    float near_m = 0.0f;             // particles reaching closer than this are not drawn

    PK_DEVICE_INLINE float u_of(float x) const { return (2.0f * (x + 0.5f) / float(width) - 1.0f) * tan_half_x; }
    PK_DEVICE_INLINE float v_of(float y) const { return (1.0f - 2.0f * (y + 0.5f) / float(height)) * tan_half_y; }
    // The ray through pixel (x, y) in world space (forward component 1).
    PK_DEVICE_INLINE Vec3f ray(int x, int y) const {
        return forward + u_of(float(x)) * right + v_of(float(y)) * up;
    }
    // World point -> camera space (x right, y up, z depth).
    PK_DEVICE_INLINE Vec3f to_camera(Vec3f p) const {
        const Vec3f d = p - eye;
        return {dot(d, right), dot(d, up), dot(d, forward)};
    }
    // Camera-space direction -> world space.
    PK_DEVICE_INLINE Vec3f to_world_direction(Vec3f c) const { return c.x * right + c.y * up + c.z * forward; }
    // Continuous pixel coordinates of camera-space u = x/z and v = y/z (pixel centres at +1/2).
    PK_DEVICE_INLINE float pixel_x(float u) const { return (u / tan_half_x + 1.0f) * 0.5f * float(width); }
    PK_DEVICE_INLINE float pixel_y(float v) const { return (1.0f - v / tan_half_y) * 0.5f * float(height); }
};

// The largest image side, so that pixel coordinates fit 16 bits in splat records.
inline constexpr int kMaxImageSide = 16384;

// Checks the camera and image size (UsageError: coincident eye and target, up along the view,
// a field of view outside (0, 180), a side outside 1..kMaxImageSide) and builds the view.
CameraView make_view(const Camera& camera, int width, int height);

// OpenEXR's worldToCamera and worldToNDC matrices (row vectors, p' = p M; NDC x to the right
// and y down, (0, 0) the top-left and (1, 1) the bottom-right corner of the image, after the
// division by w; z / w = 1 - near / depth).
std::array<float, 16> world_to_camera_matrix(const CameraView& view);
std::array<float, 16> world_to_ndc_matrix(const CameraView& view);

// A camera looking at the centre of the box [lo, hi] from `direction` (target towards eye),
// as close as it can be with every corner of the box inside the image, with `margin` (1.05:
// 5 % to spare) around. A box of no extent is seen from 1 m.
Camera fit_camera(Vec3f lo, Vec3f hi, Vec3f direction, Vec3f up, float fov_y_deg, float aspect_w_over_h,
                  float margin = 1.05f);

// The camera turned by `angle_deg` about the axis through its target along its up vector
// (a right-handed turn: counter-clockwise seen from above the target).
Camera orbit(const Camera& camera, float angle_deg);

// Camera keyframes from a text file: one key per line,
//   FRAME  EYE_X EYE_Y EYE_Z  TARGET_X TARGET_Y TARGET_Z  [FOV_Y_DEG]
// with FRAME the index of the output frame (0-based, strictly increasing from line to line);
// '#' starts a comment. Between keys eye, target and field of view are interpolated linearly;
// before the first key the first holds, after the last the last.
class CameraPath {
public:
    struct Key {
        double frame = 0;
        Camera camera;
    };
    // `text` is the file's content, `name` names it in messages (FormatError with the line);
    // keys without a field of view take `default_fov_y_deg`; every key takes `up`.
    static CameraPath parse(const std::string& text, const std::string& name, Vec3f up, float default_fov_y_deg);
    static CameraPath load(const std::string& path, Vec3f up, float default_fov_y_deg);  // IoError, FormatError
    Camera at(double frame) const;
    const std::vector<Key>& keys() const { return keys_; }

private:
    std::vector<Key> keys_;
};

}  // namespace partikel::render
