// Patches (formats/SPEC.md §1, "patches.<group>"): a group's rows as consecutive ranges, stored
// as the frame attribute "patches.<group>" (the rows of each range), which every encoding
// carries; the openPMD writer writes one particlePatches entry per range, so that a parallel
// reader can take one patch's particles and box without reading the others'. Partikel's
// programs record none: a run of several ranks gathers its frames in particle-id order, like
// one rank's, where a rank's rows are not consecutive; a frame from elsewhere may carry them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "formats/frame.hpp"

namespace partikel::fmt {

// Records the rows of each patch of `group` (in row order).
void set_patch_rows(Frame& frame, std::string_view group, std::span<const std::uint64_t> rows);

// The rows of each patch of `group`: the attribute's when it is a list of whole numbers that
// add up to the group's count, else one patch of the whole group (no attribute, or a group
// whose rows a program has changed since).
std::vector<std::uint64_t> patch_rows(const Frame& frame, const Group& group);

}  // namespace partikel::fmt
