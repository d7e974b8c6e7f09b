// The frame a simulation starts from: any frame of a file or stream (by default the last, the
// state a previous run ended in), read and verified like any other frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dist/communicator.hpp"
#include "formats/frame.hpp"

namespace partikel::run {

// Frame `index` (0-based; negative counts from the end, -1: the last) of `path` ("-": stdin).
// A stream is read whole (every frame verified, one kept in memory at a time, |index| for a
// negative index); an HDF5 file jumps to the frame.
// FormatError when the input holds no such frame.
fmt::Frame read_start_frame(const std::string& path, std::int64_t index = -1);

// A start on several ranks: rank 0 makes one frame per rank (`on_root`, rank order: the start
// frame read there and cut by the model's decomposition) and sends each rank its own; every
// rank returns its frame. An error in on_root ends every rank alike (dist::Communicator::
// collectively). One rank: on_root()'s only frame.
fmt::Frame scatter_frames(const dist::Communicator& ranks, const std::function<std::vector<fmt::Frame>()>& on_root);

// A frame as bytes (the stream encoding, uncompressed, without an index) and back.
std::vector<std::byte> encode_frame(const fmt::Frame& frame);
fmt::Frame decode_frame(std::span<const std::byte> bytes);

}  // namespace partikel::run
