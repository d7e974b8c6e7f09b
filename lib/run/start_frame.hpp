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

#include "base/error.hpp"
#include "dist/communicator.hpp"
#include "formats/frame.hpp"

namespace partikel::run {

// Frame `index` (0-based; negative counts from the end, -1: the last) of `path` ("-": stdin).
// A stream is read whole (every frame verified, one kept in memory at a time, |index| for a
// negative index); an HDF5 file jumps to the frame.
// FormatError when the input holds no such frame.
fmt::Frame read_start_frame(const std::string& path, std::int64_t index = -1);

// `parse(frame)` of that frame: a model's parameters and particles from it, and their checks.
// What it refuses is bad data, whichever error the check throws: a FormatError (exit 1) named
// with the input and the frame's step, "start.pks: step 120: attribute sph.h = 1e+300 must be
// ...", also for a UsageError of a parameter check that a flag would have met.
template <class Parse> auto parse_start_frame(const std::string& path, std::int64_t index, Parse&& parse) {
    const fmt::Frame frame = read_start_frame(path, index);
    const auto named = [&](const Error& e) {
        return FormatError((path == "-" ? std::string("<stdin>") : path) + ": step " + std::to_string(frame.step) + ": " +
                           e.what());
    };
    try {
        return parse(frame);
    } catch (const FormatError& e) {
        throw named(e);
    } catch (const UsageError& e) {
        throw named(e);
    }
}
// A start on several ranks: rank 0 makes one frame per rank (`on_root`, rank order: the start
// frame read there and cut by the model's decomposition) and sends each rank its own; every
// rank returns its frame. An error in on_root ends every rank alike (dist::Communicator::
// collectively). One rank: on_root()'s only frame.
fmt::Frame scatter_frames(const dist::Communicator& ranks, const std::function<std::vector<fmt::Frame>()>& on_root);

// A frame as bytes (the stream encoding, uncompressed, without an index) and back.
std::vector<std::byte> encode_frame(const fmt::Frame& frame);
fmt::Frame decode_frame(std::span<const std::byte> bytes);

}  // namespace partikel::run
