#include "render/camera.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "base/error.hpp"
#include "base/io.hpp"
#include "base/log.hpp"

namespace partikel::render {

namespace {

constexpr double kPi = std::numbers::pi;

// |v| in double: the squares of float lengths overflow (beyond 1e19 m) or vanish (below 1e-19 m).
double length(Vec3f v) { return std::sqrt(double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z); }
Vec3f normalized(Vec3f v) {
    const double l = length(v);
    return {float(v.x / l), float(v.y / l), float(v.z / l)};
}

std::string describe(Vec3f v) {
    std::ostringstream s;
    s << v.x << "," << v.y << "," << v.z;
    return s.str();
}

bool finite(Vec3f v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

}  // namespace

CameraView make_view(const Camera& camera, int width, int height) {
    if (width < 1 || height < 1 || width > kMaxImageSide || height > kMaxImageSide)
        throw UsageError("image size " + std::to_string(width) + "x" + std::to_string(height) + " is outside 1x1.." +
                         std::to_string(kMaxImageSide) + "x" + std::to_string(kMaxImageSide));
    if (!finite(camera.eye) || !finite(camera.target) || !finite(camera.up))
        throw UsageError("camera eye, target and up must be finite");
    if (!(camera.fov_y_deg > 0.0f && camera.fov_y_deg < 180.0f))
        throw UsageError("field of view must be in (0, 180) degrees, got " + std::to_string(camera.fov_y_deg));
    const Vec3f view = camera.target - camera.eye;
    const double distance = length(view);
    if (!(distance > 0.0))
        throw UsageError("camera eye and target coincide (" + describe(camera.eye) + ")");
    if (!std::isfinite(distance) || !finite(view))
        throw UsageError("camera eye (" + describe(camera.eye) + ") and target (" + describe(camera.target) +
                         ") are too far apart for float coordinates");
    if (!(length(camera.up) > 0.0)) throw UsageError("camera up vector is zero");
    CameraView v;
    v.eye = camera.eye;
    v.forward = normalized(view);
    v.world_up = normalized(camera.up);
    // Right-handed world, left-handed camera space: right = forward x up, up = right x forward.
    const Vec3f right = cross(v.forward, v.world_up);
    if (!(norm(right) > 1e-6f))
        throw UsageError("camera up vector (" + describe(camera.up) + ") is parallel to the view direction");
    v.right = normalized(right);
    v.up = cross(v.right, v.forward);
    v.width = width;
    v.height = height;
    v.tan_half_y = float(std::tan(double(camera.fov_y_deg) * kPi / 360.0));
    v.tan_half_x = v.tan_half_y * float(width) / float(height);
    v.near_m = float(1e-4 * distance);
    return v;
}

std::array<float, 16> world_to_camera_matrix(const CameraView& v) {
    // p_cam[c] = sum_r p[r] M[r][c] + M[3][c]: column c holds camera axis c.
    const Vec3f axes[3] = {v.right, v.up, v.forward};
    std::array<float, 16> m{};
    for (int c = 0; c < 3; ++c) {
        for (int r = 0; r < 3; ++r) m[std::size_t(4 * r + c)] = axes[c][r];
        m[std::size_t(12 + c)] = -dot(v.eye, axes[c]);
    }
    m[15] = 1.0f;
    return m;
}

std::array<float, 16> world_to_ndc_matrix(const CameraView& v) {
    // Camera (x, y, z, 1) -> (X, Y, Z, W) = (z/2 + x/(2 tan_x), z/2 - y/(2 tan_y), z - near, z).
    const double p[4][4] = {{0.5 / v.tan_half_x, 0.0, 0.0, 0.0},
                            {0.0, -0.5 / v.tan_half_y, 0.0, 0.0},
                            {0.5, 0.5, 1.0, 1.0},
                            {0.0, 0.0, -double(v.near_m), 0.0}};
    const std::array<float, 16> c = world_to_camera_matrix(v);
    std::array<float, 16> m{};
    for (int r = 0; r < 4; ++r)
        for (int k = 0; k < 4; ++k) {
            double sum = 0.0;
            for (int j = 0; j < 4; ++j) sum += double(c[std::size_t(4 * r + j)]) * p[j][k];
            m[std::size_t(4 * r + k)] = float(sum);
        }
    return m;
}

Camera fit_camera(Vec3f lo, Vec3f hi, Vec3f direction, Vec3f up, float fov_y_deg, float aspect_w_over_h,
                  float margin) {
    if (!finite(lo) || !finite(hi)) throw UsageError("cannot fit the camera to non-finite bounds");
    if (!(length(direction) > 0.0)) throw UsageError("camera direction is zero");
    Camera camera;
    camera.up = up;
    camera.fov_y_deg = fov_y_deg;
    for (int k = 0; k < 3; ++k) camera.target[k] = float(0.5 * (double(lo[k]) + double(hi[k])));
    const Vec3f back = normalized(direction);
    // The view's axes do not depend on the distance: take them from a provisional eye.
    camera.eye = camera.target + back;
    const CameraView axes = make_view(camera, 1, 1);
    const double tan_y = std::tan(double(fov_y_deg) * kPi / 360.0);
    const double tan_x = tan_y * double(aspect_w_over_h);
    double distance = 0.0;
    for (int corner = 0; corner < 8; ++corner) {
        const Vec3f p{corner & 1 ? hi.x : lo.x, corner & 2 ? hi.y : lo.y, corner & 4 ? hi.z : lo.z};
        const Vec3f d = p - camera.target;
        const double x = dot(d, axes.right), y = dot(d, axes.up), z = dot(d, axes.forward);
        // Depth of the corner is z + distance; it must be at least |x| / tan_x and |y| / tan_y.
        distance = std::max({distance, double(margin) * std::fabs(x) / tan_x - z,
                             double(margin) * std::fabs(y) / tan_y - z});
    }
    if (!(distance > 0.0)) distance = 1.0;
    for (int k = 0; k < 3; ++k) camera.eye[k] = float(double(camera.target[k]) + distance * double(back[k]));
    // Float coordinates (about 7 digits, up to 3.4e38) must tell the eye from the target.
    const std::string span = "the particles span (" + describe(lo) + ") to (" + describe(hi) + ")";
    if (!finite(camera.eye) || !finite(camera.target - camera.eye))
        throw UsageError(span + ": a camera showing them all would stand " + format_g(distance) +
                         " m away, beyond float coordinates");
    if (!(length(camera.target - camera.eye) > 0.0))
        throw UsageError(span + ": so small an extent so far from the origin is below the precision of float coordinates");
    return camera;
}

Camera orbit(const Camera& camera, float angle_deg) {
    // Rodrigues' rotation of (eye - target) about the unit up axis k.
    const Vec3f k = normalized(camera.up);
    const Vec3f r = camera.eye - camera.target;
    const double a = double(angle_deg) * kPi / 180.0;
    const float c = float(std::cos(a)), s = float(std::sin(a));
    const Vec3f rotated = c * r + s * cross(k, r) + ((1.0f - c) * dot(k, r)) * k;
    Camera out = camera;
    out.eye = camera.target + rotated;
    return out;
}

CameraPath CameraPath::parse(const std::string& text, const std::string& name, Vec3f up, float default_fov_y_deg) {
    CameraPath path;
    std::istringstream lines(text);
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.erase(hash);
        std::istringstream fields(line);
        std::vector<double> v;
        double x;
        while (fields >> x) v.push_back(x);
        const std::string where = name + ":" + std::to_string(number);
        if (!fields.eof()) throw FormatError(where + ": not a number in '" + line + "'");
        if (v.empty()) continue;
        if (v.size() != 7 && v.size() != 8)
            throw FormatError(where + ": a key is FRAME, EYE x y z, TARGET x y z and an optional field of view (" +
                              std::to_string(v.size()) + " numbers)");
        // Held as float: 1e39 would be infinite there, 1e30 squares to infinity in the view.
        for (const double value : v)
            if (!std::isfinite(value) || std::fabs(value) > kMaxCoordinate)
                throw FormatError(where + ": numbers must be finite and within +-1e18");
        Key key;
        key.frame = v[0];
        key.camera.eye = {float(v[1]), float(v[2]), float(v[3])};
        key.camera.target = {float(v[4]), float(v[5]), float(v[6])};
        key.camera.up = up;
        key.camera.fov_y_deg = v.size() == 8 ? float(v[7]) : default_fov_y_deg;
        if (!path.keys_.empty() && !(key.frame > path.keys_.back().frame))
            throw FormatError(where + ": frames must increase from key to key");
        try {
            make_view(key.camera, 1, 1);
        } catch (const UsageError& e) {
            throw FormatError(where + ": " + e.what());
        }
        path.keys_.push_back(key);
    }
    if (path.keys_.empty()) throw FormatError(name + ": no camera keys");
    return path;
}

CameraPath CameraPath::load(const std::string& path, Vec3f up, float default_fov_y_deg) {
    // A key is a line of a few numbers: 16 MiB holds hundreds of thousands (and --camera-path
    // /dev/zero is refused instead of read forever).
    const auto in = InputStream::open(path);
    return parse(read_text(*in, 16u << 20, "a camera path"), path, up, default_fov_y_deg);
}

Camera CameraPath::at(double frame) const {
    if (frame <= keys_.front().frame) return keys_.front().camera;
    if (frame >= keys_.back().frame) return keys_.back().camera;
    const auto next = std::upper_bound(keys_.begin(), keys_.end(), frame,
                                       [](double f, const Key& k) { return f < k.frame; });
    const Key& b = *next;
    const Key& a = *(next - 1);
    const float t = float((frame - a.frame) / (b.frame - a.frame));
    Camera c = a.camera;
    c.eye = a.camera.eye + t * (b.camera.eye - a.camera.eye);
    c.target = a.camera.target + t * (b.camera.target - a.camera.target);
    c.fov_y_deg = a.camera.fov_y_deg + t * (b.camera.fov_y_deg - a.camera.fov_y_deg);
    return c;
}

}  // namespace partikel::render
