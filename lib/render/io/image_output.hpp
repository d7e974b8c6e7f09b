// Rendered frames to files: OpenEXR (half RGBA plus float Z, thickness.X, N.X, N.Y, N.Z and
// count.X, with the camera and the source frame in the header) and 8-bit PNG previews, named by
// a printf-style frame pattern, each written under a temporary name and renamed when complete.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/io.hpp"

#include "image/exr.hpp"
#include "render/renderer.hpp"

namespace partikel::render::io {

// "frames/%04d.exr": one %d conversion (flags '0' and a width allowed, "%%" for a percent
// sign) takes the frame's index in the input. A pattern without one names a single file; "-"
// is standard output (one image, no preview).
class OutputPattern {
public:
    OutputPattern() = default;
    static OutputPattern parse(const std::string& pattern);  // UsageError on a bad pattern
    std::string path(std::uint64_t index) const;
    // The preview beside it: the path with ".exr" replaced by ".png" (or ".png" appended).
    std::string preview_path(std::uint64_t index) const;
    bool numbered() const { return numbered_; }
    const std::string& text() const { return text_; }
    // The files it names (and with `preview` their PNG previews), named by `flag`, for
    // check_distinct_files (base/io.hpp): a numbered series or one file.
    std::vector<NamedFile> files(const std::string& flag, bool preview) const;
    // IoError when the directory of the outputs does not exist or is not writable.
    void check_writable() const;

private:
    std::string number(std::int64_t index) const;  // as path() spells it
    std::string text_, before_, after_;
    int width_ = 0;
    bool zero_pad_ = false;
    bool numbered_ = false;
};

struct FrameMeta {
    std::uint64_t index = 0;   // in the input
    std::int64_t step = 0;     // the simulation step the frame holds
    double time_s = 0.0;       // its simulated time
    std::string source;        // the input's name
    std::string command_line;  // the renderer's, as typed
    // The provenance the source frame carries (its "program", "commit", "command_line").
    std::vector<std::pair<std::string, std::string>> source_provenance;
};

struct ExrOptions {
    image::Compression compression = image::Compression::zip;
    int zip_level = 4;
    // Only the colour, R, G, B, A (splat-render --passes rgba): a quarter of the bytes of every
    // pass, for sequences that are watched rather than composited.
    bool rgba_only = false;
};

// The channels `image` has (RenderedImage), named R, G, B, A (half), Z, thickness.X, N.X, N.Y,
// N.Z, count.X (float), with attributes worldToCamera and worldToNDC (OpenEXR's m44f),
// partikel.frame and partikel.step (int), partikel.time_s (double), partikel.style,
// partikel.version, partikel.commit, partikel.command_line, partikel.source and
// partikel.source.<key> for each of meta.source_provenance (string). `scratch` lends its vectors: the image's planes are moved into it
// and back, so nothing is copied or allocated.
void write_exr_frame(const std::string& path, RenderedImage& image, image::Image& scratch, const CameraView& view,
                     const FrameMeta& meta, Style style, const ExrOptions& options);

// An 8-bit sRGB PNG: linear RGB times `exposure`, clipped to [0, 1], sRGB-encoded; with
// `alpha`, RGBA with the colour un-premultiplied.
void write_png_preview(const std::string& path, const RenderedImage& image, float exposure, bool alpha);

// The exposure that maps the 99.5th percentile of the luminance of covered pixels (count > 0)
// to 1; 1 when nothing is covered.
float automatic_exposure(const RenderedImage& image);

}  // namespace partikel::render::io
