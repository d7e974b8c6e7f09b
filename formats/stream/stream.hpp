// The stream format (SPEC.md §2): the common, pipe-friendly encoding of frames.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "base/io.hpp"
#include "formats/reader.hpp"

namespace partikel::fmt {

inline constexpr std::array<unsigned char, 8> stream_magic{0x89, 'P', 'K', 'S', '\r', '\n', 0x1A, '\n'};
inline constexpr std::uint16_t stream_version_major = 1;
inline constexpr std::uint16_t stream_version_minor = 0;

// Limits of SPEC.md §2.4, §2.6 and §2.9.
inline constexpr std::uint32_t max_record_body = 64u << 20;
inline constexpr std::uint64_t max_block_raw = 16u << 20;
inline constexpr std::uint32_t max_components = 65536;
// What the writer aims a block at (SPEC.md §2.6).
inline constexpr std::uint64_t target_block_raw = 4u << 20;

std::unique_ptr<FrameWriter> make_stream_writer(std::unique_ptr<OutputStream> out, const WriterOptions& options);
std::unique_ptr<FrameReader> make_stream_reader(std::unique_ptr<InputStream> in);

// Total column bytes a single frame may declare before the reader refuses to allocate it
// (SPEC.md §2.9): the machine's physical memory.
std::uint64_t stream_frame_byte_limit();

}  // namespace partikel::fmt
