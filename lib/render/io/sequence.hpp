// Rendering a whole stream of frames to OpenEXR (and PNG previews): what splat-render does,
// as one library call (docs/RENDER.md, "The program").
//
// Frames are read and decompressed one ahead on a thread of their own, rendered on the
// backend, and encoded and written by tasks on the host's cores while the next frames render
// (OpenEXR compresses the lines of one image on its own thread pool too), at most
// `frames_in_flight` images at once. The camera, colour range and exposure are decided at the
// first frame and held for the sequence, so that frames match.
//
// Several ranks (mpirun; SequenceOptions::ranks), split one of two ways (RankSplit):
//   frames     each rank renders its own frames, the selected frames dealt out in turn (rank r
//              the r-th, (r+R)-th, ...), and encodes and writes them; rank 0 decides the camera,
//              range and exposure at the first frame and tells the others. Each rank reads its
//              frames from the input when it can seek (a file with an index, HDF5); otherwise
//              (stdin, a pipe, a stream without index) rank 0 reads and sends each frame to its
//              rank. A failed rank ends the others at their next frame;
//   particles  every frame is cut into slabs (frame_particles.hpp, split_by_slabs): from an
//              input it can seek every rank reads the frame and keeps its own slab
//              (slab_share); otherwise rank 0 reads it and sends each rank its share. Every rank
//              renders its share and the images are composited (render/renderer.hpp), then
//              rank 0 shades, encodes and writes them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "base/log.hpp"
#include "base/vec.hpp"
#include "core/backend.hpp"
#include "dist/communicator.hpp"
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

// How several ranks share a sequence (above); automatic: particles when exactly one frame is
// selected from an input that says how many it holds, frames otherwise.
enum class RankSplit { automatic, frames, particles };
RankSplit parse_rank_split(const std::string& name);  // "auto", "frames", "particles"; UsageError

struct SequenceOptions {
    std::string input = "-";
    std::string frames;              // formats' frame selection ("0:100:10"); empty: all
    std::string output;              // OutputPattern, e.g. "frames/%04d.exr"
    std::string command_line;        // the renderer's, for the images' provenance
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
    dist::Communicator ranks = dist::Communicator::single();  // the ranks that share the work
    RankSplit split = RankSplit::automatic;
};

struct SequenceReport {
    std::uint64_t frames = 0;             // rendered and written (by every rank)
    std::uint64_t skipped_particles = 0;  // non-finite positions, over all frames
    double seconds = 0.0;                 // wall clock
    double encode_seconds = 0.0;          // summed over the encoding tasks (overlapped)
    std::string profile;                  // per-phase table (options.profile)
};

// Called after each frame is handed to the encoder: frames done, and the total when known
// (several ranks: rank 0's frames, on rank 0 only).
using FrameCallback = std::function<void(std::uint64_t done, std::optional<std::uint64_t> total)>;

// Renders every selected frame of options.input to options.output (collective over
// options.ranks). Errors: UsageError for bad options (found before any frame is rendered where
// possible), FormatError for bad input, IoError for unwritable output; a frame being written
// when an error strikes leaves no file, and the frames written before stay.
//
// A test hook, as in the run loop (run/run_loop.hpp): with PARTIKEL_TEST_FAIL_RANK=R and
// PARTIKEL_TEST_FAIL_FRAME=F in the environment, rank R throws a DeviceError on its own before
// it renders input frame F (tests/cli/splat-render/ranks.sh).
SequenceReport render_stream(const Backend& backend, const SequenceOptions& options, Log& log,
                             const FrameCallback& on_frame = {});

}  // namespace partikel::render::io
