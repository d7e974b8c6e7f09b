// Held groups (formats/SPEC.md §1.2): a group that stays the same from frame to frame, such as a
// terrain's height samples, is stored once per file instead of in every frame. A frame marks it
// with the attribute "held.<group>" (i64: the index, in its file, of the frame that stores the
// group). Writers of multi-frame files store the group in the first frame that has it and again
// whenever it changes, and drop it from the frames in between; readers put it back, so every
// frame a program reads is complete, whichever frame it starts at.
#pragma once

#include <memory>
#include <string_view>

#include "formats/reader.hpp"

namespace partikel::fmt {

// Marks `group` of `frame` as held (the writer fills in the index).
void mark_held(Frame& frame, std::string_view group);

// A reader that restores held groups from the frames that store them (seeking back to one when
// the reader starts past it). FormatError when a held group cannot be found.
std::unique_ptr<FrameReader> restore_held_groups(std::unique_ptr<FrameReader> reader);
// A writer that stores each held group once per file (and again when it changes).
std::unique_ptr<FrameWriter> store_held_groups_once(std::unique_ptr<FrameWriter> writer);

}  // namespace partikel::fmt
