#include "render/io/image_output.hpp"

#include <png.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "base/io.hpp"
#include "partikel_config.hpp"
#include "render/colormap.hpp"

namespace partikel::render::io {

OutputPattern OutputPattern::parse(const std::string& pattern) {
    if (pattern.empty()) throw UsageError("--output must not be empty");
    OutputPattern p;
    p.text_ = pattern;
    std::string* part = &p.before_;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%') {
            *part += pattern[i];
            continue;
        }
        if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
            *part += '%';
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        const bool zero = j < pattern.size() && pattern[j] == '0';
        int width = 0;
        while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j])) && width < 100)
            width = 10 * width + (pattern[j++] - '0');
        if (j >= pattern.size() || pattern[j] != 'd' || p.numbered_)
            throw UsageError("--output must be a name with at most one %d, e.g. frames/%04d.exr (%% for a percent sign; got '" +
                             pattern + "')");
        if (width > 20) throw UsageError("--output must have a %d field width of at most 20 (got '" + pattern + "')");
        p.numbered_ = true;
        p.zero_pad_ = zero;
        p.width_ = width;
        part = &p.after_;
        i = j;
    }
    return p;
}

std::string OutputPattern::number(std::int64_t index) const {
    if (index < 0) return {};  // never a frame's: matches no name
    std::string text = std::to_string(index);
    if (int(text.size()) < width_) text.insert(0, std::size_t(width_) - text.size(), zero_pad_ ? '0' : ' ');
    return text;
}

std::string OutputPattern::path(std::uint64_t index) const {
    if (!numbered_) return before_;
    return before_ + number(std::int64_t(index)) + after_;
}

namespace {
// "x.exr" -> "x.png", anything else gets ".png" appended.
std::string png_name(std::string name) {
    if (name.ends_with(".exr")) name.resize(name.size() - 4);
    return name + ".png";
}
}  // namespace

std::string OutputPattern::preview_path(std::uint64_t index) const { return png_name(path(index)); }

std::vector<NamedFile> OutputPattern::files(const std::string& flag, bool preview) const {
    const auto number_of = [pattern = *this](std::int64_t n) { return pattern.number(n); };  // outlives *this
    std::vector<NamedFile> out{{flag, text_, std::nullopt}};
    if (numbered_) out.front().series = NamedFile::Series{before_, after_, number_of};
    if (preview && text_ != "-") {
        out.push_back({flag, numbered_ ? png_name(text_) : preview_path(0), std::nullopt});
        if (numbered_) out.back().series = NamedFile::Series{before_, png_name(after_), number_of};
    }
    return out;
}

void OutputPattern::check_writable() const {
    if (text_ == "-") return;  // standard output
    const std::string first = path(0);
    const auto slash = first.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : first.substr(0, slash));
    if (::access(dir.c_str(), W_OK) != 0)
        throw IoError(first + ": cannot write into " + dir + ": " + std::strerror(errno));
}

void write_exr_frame(const std::string& path, RenderedImage& image, image::Image& scratch, const CameraView& view,
                     const FrameMeta& meta, Style style, const ExrOptions& options) {
    // OpenEXR's standard names for colour and depth; the other planes as layer.channel, the
    // names Blender writes for its own passes (Normal.X, IndexOB.X), which Blender, Nuke and
    // OpenImageIO all split into a layer and its channels (docs/RENDER.md, "Output").
    const std::pair<const char*, std::vector<float>*> planes[] = {
        {"R", &image.r},     {"G", &image.g},     {"B", &image.b},     {"A", &image.a},
        {"Z", &image.z},     {"thickness.X", &image.thickness},        {"N.X", &image.nx},
        {"N.Y", &image.ny},  {"N.Z", &image.nz},  {"count.X", &image.count}};
    // The planes a style produced move into the scratch image and back after writing.
    std::array<std::vector<float>*, std::size(planes)> moved{};
    std::size_t used = 0;
    scratch.channel_names.clear();
    const auto colour = [](std::string_view name) {
        return name == "R" || name == "G" || name == "B" || name == "A";
    };
    for (const auto& [name, plane] : planes)
        if (!plane->empty() && (!options.rgba_only || colour(name))) {
            scratch.channel_names.emplace_back(name);
            moved[used++] = plane;
        }
    if (used == 0) throw UsageError(path + ": a rendered image without channels");
    scratch.channels.resize(used);
    for (std::size_t k = 0; k < used; ++k) std::swap(scratch.channels[k], *moved[k]);
    struct SwapBack {
        image::Image& scratch;
        const std::array<std::vector<float>*, std::size(planes)>& moved;
        std::size_t used;
        ~SwapBack() {
            for (std::size_t k = 0; k < used; ++k) std::swap(scratch.channels[k], *moved[k]);
        }
    } swap_back{scratch, moved, used};

    scratch.width = image.width;
    scratch.height = image.height;
    scratch.origin_x = scratch.origin_y = 0;
    scratch.attributes.clear();
    scratch.attributes["worldToCamera"] = world_to_camera_matrix(view);
    scratch.attributes["worldToNDC"] = world_to_ndc_matrix(view);
    // OpenEXR's integer attribute has 32 bits: larger indices and steps saturate.
    constexpr std::int64_t kIntMax = std::numeric_limits<int>::max(), kIntMin = std::numeric_limits<int>::min();
    scratch.attributes["partikel.frame"] = int(std::min<std::uint64_t>(meta.index, kIntMax));
    scratch.attributes["partikel.step"] = int(std::clamp<std::int64_t>(meta.step, kIntMin, kIntMax));
    scratch.attributes["partikel.time_s"] = meta.time_s;
    scratch.attributes["partikel.style"] = std::string(style_name(style));
    scratch.attributes["partikel.version"] = std::string(PARTIKEL_VERSION);
    scratch.attributes["partikel.commit"] = std::string(PARTIKEL_GIT_COMMIT);
    if (!meta.command_line.empty()) scratch.attributes["partikel.command_line"] = meta.command_line;
    if (!meta.source.empty()) scratch.attributes["partikel.source"] = meta.source;
    for (const auto& [key, value] : meta.source_provenance) scratch.attributes["partikel.source." + key] = value;
    image::WriteOptions write;
    write.compression = options.compression;
    write.zip_level = options.zip_level;
    for (const char* rgba : {"R", "G", "B", "A"}) write.pixel_types[rgba] = image::PixelType::half;
    image::write_exr(path, scratch, write);
}

void write_png_preview(const std::string& path, const RenderedImage& image, float exposure, bool alpha) {
    const int channels = alpha ? 4 : 3;
    std::vector<std::uint8_t> pixels(std::size_t(image.width) * std::size_t(image.height) * std::size_t(channels));
    const auto byte = [](float v) { return std::uint8_t(std::lround(255.0f * linear_to_srgb(v))); };
    for (std::size_t p = 0; p < std::size_t(image.width) * std::size_t(image.height); ++p) {
        const float a = image.a.empty() ? 1.0f : std::clamp(image.a[p], 0.0f, 1.0f);
        const float unpremultiply = alpha && a > 0.0f ? 1.0f / a : 1.0f;
        std::uint8_t* out = &pixels[p * std::size_t(channels)];
        out[0] = byte(exposure * image.r[p] * unpremultiply);
        out[1] = byte(exposure * image.g[p] * unpremultiply);
        out[2] = byte(exposure * image.b[p] * unpremultiply);
        if (alpha) out[3] = std::uint8_t(std::lround(255.0f * a));
    }
    TempFile temp(path);
    png_image png{};
    png.version = PNG_IMAGE_VERSION;
    png.width = png_uint_32(image.width);
    png.height = png_uint_32(image.height);
    png.format = alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    if (!png_image_write_to_file(&png, temp.path().c_str(), 0, pixels.data(), 0, nullptr)) {
        const std::string message = png.message;
        png_image_free(&png);
        throw IoError(path + ": cannot write PNG preview: " + message);
    }
    temp.commit();
}

float automatic_exposure(const RenderedImage& image) {
    std::vector<float> luminance;
    for (std::size_t p = 0; p < image.r.size(); ++p)
        if (image.count.empty() || image.count[p] > 0.0f)
            luminance.push_back(0.2126f * image.r[p] + 0.7152f * image.g[p] + 0.0722f * image.b[p]);
    if (luminance.empty()) return 1.0f;
    const std::size_t k = std::min(luminance.size() - 1, std::size_t(0.995 * double(luminance.size())));
    std::nth_element(luminance.begin(), luminance.begin() + std::ptrdiff_t(k), luminance.end());
    const float top = luminance[k];
    return top > 0.0f && std::isfinite(top) ? 1.0f / top : 1.0f;
}

}  // namespace partikel::render::io
