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
// What the writer aims a block at (SPEC.md §2.6): about 1/64 of the frame's raw bytes, between
// 1 and 4 MiB, so that a frame of a million particles (60 MB) still gives every core of a
// 16-core host several blocks to compress, and a large frame's blocks stay big enough for zstd.
// It depends on the frame alone, not on the threads, so the bytes written do not either.
inline constexpr std::uint64_t min_target_block_raw = 1u << 20;
inline constexpr std::uint64_t max_target_block_raw = 4u << 20;
inline constexpr std::uint64_t blocks_per_frame_target = 64;

std::unique_ptr<FrameWriter> make_stream_writer(std::unique_ptr<OutputStream> out, const WriterOptions& options);
std::unique_ptr<FrameReader> make_stream_reader(std::unique_ptr<InputStream> in,
                                                std::shared_ptr<ColumnMemory> memory = {});

// Total column bytes a single frame may declare before the reader refuses to allocate it
// (SPEC.md §2.9): the machine's physical memory.
std::uint64_t stream_frame_byte_limit();

}  // namespace partikel::fmt
