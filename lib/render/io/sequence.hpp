// Rendering a whole stream of frames to OpenEXR (and PNG previews): what splat-render does,
// as one library call (docs/RENDER.md, "The program").
//
// Frames are read and decompressed one ahead on a thread of their own, rendered on the
// backend, and encoded and written by tasks on the host's cores while the next frames render
// (OpenEXR compresses the lines of one image on its own thread pool too), at most
// `frames_in_flight` images at once. The camera, colour range and exposure are decided at the
// first frame and held for the sequence, so that frames match.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "base/log.hpp"
#include "base/vec.hpp"
#include "core/backend.hpp"
#include "render/io/frame_particles.hpp"
#include "render/io/image_output.hpp"
#include "render/renderer.hpp"

namespace partikel::render::io {

struct CameraOptions {
    std::optional<Vec3f> eye;       // m; none: fitted to the first frame
    std::optional<Vec3f> target;    // m; none: the centre of the first frame's particles
    Vec3f up{0.0f, 1.0f, 0.0f};
    float fov_y_deg = 40.0f;
    Vec3f direction{0.35f, 0.45f, 1.0f};  // fitting without an eye: from the target towards the eye
    bool fit = false;                // fit even with an eye given (keeping its direction)
    float orbit_deg_per_frame = 0.0f;  // turn about up through the target, per input frame index
    std::string path_file;           // camera keyframes (render/camera.hpp, CameraPath); overrides the rest
};

struct SequenceOptions {
    std::string input = "-";
    std::string frames;              // formats' frame selection ("0:100:10"); empty: all
    std::string output;              // OutputPattern, e.g. "frames/%04d.exr"
    bool preview = false;            // a PNG beside each EXR
    ExrOptions exr;
    RenderSettings settings;
    ParticleSelection selection;
    CameraOptions camera;
    std::optional<float> smoothing_length_m;      // fluid; none: the frames' sph.h attribute
    std::optional<std::pair<float, float>> range;  // colour range; none: percentiles of the first frame
    double percentile_lo = 0.01, percentile_hi = 0.99;
    std::optional<float> exposure;   // PNG previews; none: 1, or automatic for points (first frame)
    // Points: Gaussians of settings.points.sigma_px pixels instead of the default world radius
    // (splat-render's --sigma; --radius and --radius-column still win).
    bool points_in_pixels = false;
    std::string environment_map;     // equirectangular OpenEXR (R, G, B) for the environment background
    // Images encoding while the next render; 0: half the host's cores, at least 2 (one image's
    // zip encoding keeps only a few cores busy: OpenEXR's serial steps and the PNG preview).
    int frames_in_flight = 0;
    bool profile = false;            // time every phase (one synchronisation per phase)
};

struct SequenceReport {
    std::uint64_t frames = 0;             // rendered and written
    std::uint64_t skipped_particles = 0;  // non-finite positions, over all frames
    double seconds = 0.0;                 // wall clock
    double encode_seconds = 0.0;          // summed over the encoding tasks (overlapped)
    std::string profile;                  // per-phase table (options.profile)
};

// Called after each frame is handed to the encoder: frames done, and the total when known.
using FrameCallback = std::function<void(std::uint64_t done, std::optional<std::uint64_t> total)>;

// Renders every selected frame of options.input to options.output. Errors: UsageError for bad
// options (found before any frame is rendered where possible), FormatError for bad input,
// IoError for unwritable output; a frame being written when an error strikes leaves no file.
SequenceReport render_stream(const Backend& backend, const SequenceOptions& options, Log& log,
                             const FrameCallback& on_frame = {});

}  // namespace partikel::render::io
