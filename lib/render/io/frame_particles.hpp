// The particles of a stored frame as the renderer takes them (render/renderer.hpp): which
// groups are fluid, opaque or drawn, the colour and radius columns, the SPH smoothing length.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/vec.hpp"
#include "formats/frame.hpp"
#include "render/renderer.hpp"

namespace partikel::render::io {

struct ParticleSelection {
    Style style = Style::fluid;
    std::string fluid_group = "fluid";       // fluid style: the SPH fluid
    std::vector<std::string> opaque_groups;  // fluid style: drawn as opaque spheres; empty: every other group with positions
    std::vector<std::string> groups;         // points, spheres: the groups drawn; empty: all with positions
    // Colour values: a column NAME (a vector column gives its magnitude), NAME.x, NAME.y or
    // NAME.z (one component); empty: no values (the constant colour).
    std::string colour;
    std::string radius;                      // points, spheres: a radius column (m); empty: none
};

// One frame's particles as the renderer takes them, reused from frame to frame (no allocation
// once the largest frame has been seen). Where the drawn (or the opaque) particles are one
// group's f32 positions, all finite, input() points into the frame's own column instead of a
// copy: the renderer uploads them from where the reader decoded them (page-locked memory when
// the reader was given it: render_stream, sequence.hpp). The frame then must outlive the use of
// input() (until the next load()).
class FrameParticles {
public:
    // Reads `frame` (index: its place in the input, for messages). Particles whose position is
    // not finite are left out and counted (skipped()). FormatError for a drawn group without
    // position, or a named column that is missing, not numeric or of the wrong shape;
    // UsageError for a named group that is missing.
    void load(const fmt::Frame& frame, const ParticleSelection& selection, std::uint64_t index);
    // Which columns load() reads of `selection`, for a reader's column memory (formats/frame.hpp,
    // ColumnMemory::wants): positions, and the radius and colour columns when named.
    static bool reads(const ParticleSelection& selection, std::string_view group, std::string_view column);

    FrameInput input() const;
    std::uint64_t skipped() const { return skipped_; }
    // Bounds of every particle loaded (opaque ones too); false when there are none.
    bool bounds(Vec3f& lo, Vec3f& hi) const;

private:
    struct Part {
        std::vector<Vec3f> position;     // copied positions, or
        std::span<const Vec3f> borrowed;  // one group's column (above)
        std::vector<float> radius, value;
        int groups = 0;
        std::span<const Vec3f> positions() const { return groups == 1 && position.empty() ? borrowed : std::span<const Vec3f>(position); }
        void clear() {
            position.clear();
            borrowed = {};
            radius.clear();
            value.clear();
            groups = 0;
        }
    };
    void append(Part& part, const fmt::Group& group, const ParticleSelection& selection, std::uint64_t index,
                bool colour, bool radius);

    Part particles_, opaque_;
    std::uint64_t skipped_ = 0;
};

// One frame rendered sort-last across `ranks` (render/renderer.hpp): each rank's share as a
// frame (group "particles": position, and radius, value and halo where given; group "opaque":
// every opaque particle, for every rank). The particles are cut into slabs of equal counts
// along the longest axis of their bounds (dist/slabs.hpp); with `halo_m` > 0 a rank also gets,
// flagged as halo, every other particle within halo_m of its slab along that axis (the
// anisotropy's support). Each share keeps the frame's order of its particles.
std::vector<fmt::Frame> split_by_slabs(const FrameInput& all, int ranks, float halo_m);
// Rank `rank`'s share alone, equal to split_by_slabs(all, ranks, halo_m)[rank]: what a rank
// that read the whole frame itself keeps. Its columns in `memory` when given (page-locked, for
// the upload: run/pinned_columns.hpp), else on the heap.
fmt::Frame slab_share(const FrameInput& all, int ranks, int rank, float halo_m,
                      const std::shared_ptr<fmt::ColumnMemory>& memory = {});
// The renderer's input over a share made by split_by_slabs (spans into `share`).
FrameInput share_input(const fmt::Frame& share);

}  // namespace partikel::render::io
