// Z-order (Morton) codes, for kernels of both backends and for host code: 21 bits per axis
// interleaved into a 63-bit key (x in bit 0, y in bit 1, z in bit 2 of each triple), so that
// sorting by key walks space along the Z curve. The cell grid numbers cells by it
// (frnn::GridSpec::morton); tree codes sort bodies by it.
#pragma once

#include <cstdint>

#include "base/hd.hpp"
#include "base/vec.hpp"

namespace partikel {

inline constexpr int kMortonBitsPerAxis = 21;

// The low 21 bits of v moved so that bit b lands at bit 3b.
PK_DEVICE_INLINE std::uint64_t morton_spread(std::uint64_t v) {
    v &= 0x1fffffu;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
}

// The inverse of morton_spread: bits 0, 3, 6, ... of v gathered into the low 21 bits.
PK_DEVICE_INLINE std::uint32_t morton_compact(std::uint64_t v) {
    v &= 0x1249249249249249ULL;
    v = (v ^ (v >> 2)) & 0x10c30c30c30c30c3ULL;
    v = (v ^ (v >> 4)) & 0x100f00f00f00f00fULL;
    v = (v ^ (v >> 8)) & 0x1f0000ff0000ffULL;
    v = (v ^ (v >> 16)) & 0x1f00000000ffffULL;
    v = (v ^ (v >> 32)) & 0x1fffffULL;
    return static_cast<std::uint32_t>(v);
}

// Code of the integer coordinates (each below 2^21).
PK_DEVICE_INLINE std::uint64_t morton_code(std::uint32_t ix, std::uint32_t iy, std::uint32_t iz) {
    return morton_spread(ix) | morton_spread(iy) << 1 | morton_spread(iz) << 2;
}

// Code of a point in the cube [lo, lo + 1/inv_edge)^3: each coordinate quantised to 2^21 steps,
// clamped into the cube (a NaN coordinate gives 0).
PK_DEVICE_INLINE std::uint64_t morton_code_of(Vec3f p, Vec3f lo, float inv_edge) {
    constexpr float scale = float(1u << kMortonBitsPerAxis);
    constexpr float top = scale - 1.0f;
    auto q = [&](float x, float x0) {
        float t = (x - x0) * inv_edge * scale;
        t = t > 0.0f ? t : 0.0f;  // also NaN -> 0
        t = t < top ? t : top;
        return static_cast<std::uint32_t>(t);
    };
    return morton_code(q(p.x, lo.x), q(p.y, lo.y), q(p.z, lo.z));
}

}  // namespace partikel
