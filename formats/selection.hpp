// Frame, group and column selection for the programs (particle-convert --frames 0:100:10,
// --groups fluid, --columns position,density:rho).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <functional>

#include "formats/frame.hpp"
#include "formats/reader.hpp"

namespace partikel::fmt {

// A comma-separated list of frame indices (0-based) and slices start:stop[:step], Python
// style with stop exclusive and any part optional ("10:", ":5", "::2"). Empty selects all.
class FrameSelection {
public:
    FrameSelection() = default;
    static FrameSelection parse(const std::string& text);   // UsageError on bad syntax, naming --frames
    bool contains(std::uint64_t index) const;
    // One past the last index that can be selected, or nullopt when unbounded.
    std::optional<std::uint64_t> end() const;
    bool all() const { return items_.empty(); }

private:
    struct Slice {
        std::uint64_t start, stop, step;  // stop = UINT64_MAX: open
    };
    std::vector<Slice> items_;
};

// "a,b:c": keep a, keep b renamed to c, in this order. Empty keeps everything.
struct NameSelection {
    std::vector<std::pair<std::string, std::string>> names;  // (existing, new)
    static NameSelection parse(const std::string& text, const std::string& flag);  // errors name `flag`
    bool all() const { return names.empty(); }
};

// Calls `visit(index, frame)` for each selected frame of `reader`, in order. Where the reader
// knows its frame count (an indexed stream file, HDF5) it seeks past unselected frames instead
// of decoding them; otherwise it reads sequentially and stops after the selection's last frame.
void for_each_selected(FrameReader& reader, const FrameSelection& selection,
                       const std::function<void(std::uint64_t, Frame&)>& visit);

// Keeps and renames the selected groups, then the selected columns in every kept group.
// A named group must exist; a named column must exist in at least one kept group.
void apply_selection(Frame& frame, const NameSelection& groups, const NameSelection& columns);

}  // namespace partikel::fmt
