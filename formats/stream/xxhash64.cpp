// XXH64: the xxHash library's where the build found its header (PARTIKEL_HAVE_XXHASH), and
// ours after Yann Collet's reference description (xxhash.h, "XXH64 algorithm").
#include "formats/stream/xxhash64.hpp"

#include <cstring>

#if PARTIKEL_HAVE_XXHASH
#define XXH_INLINE_ALL  // the header alone: nothing to link, nothing to install
#include <xxhash.h>
#endif

namespace partikel::fmt {
namespace {

constexpr std::uint64_t P1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t P2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t P3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t P4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t P5 = 0x27D4EB2F165667C5ULL;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Little-endian loads; the stream format is little-endian and so are our targets.
inline std::uint64_t load64(const unsigned char* p) { std::uint64_t v; std::memcpy(&v, p, 8); return v; }
inline std::uint32_t load32(const unsigned char* p) { std::uint32_t v; std::memcpy(&v, p, 4); return v; }

inline std::uint64_t round(std::uint64_t acc, std::uint64_t input) {
    acc += input * P2;
    acc = rotl(acc, 31);
    return acc * P1;
}

inline std::uint64_t merge_round(std::uint64_t acc, std::uint64_t val) {
    acc ^= round(0, val);
    return acc * P1 + P4;
}

}  // namespace

std::uint64_t xxh64(const void* data, std::size_t bytes, std::uint64_t seed) {
#if PARTIKEL_HAVE_XXHASH
    return XXH64(data, bytes, seed);
#else
    return xxh64_portable(data, bytes, seed);
#endif
}

bool xxh64_from_library() { return PARTIKEL_HAVE_XXHASH; }

std::uint64_t xxh64_portable(const void* data, std::size_t bytes, std::uint64_t seed) {
    const auto* p = static_cast<const unsigned char*>(data);
    const unsigned char* const end = p + bytes;
    std::uint64_t h;
    if (bytes >= 32) {
        std::uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        const unsigned char* const limit = end - 32;
        do {
            v1 = round(v1, load64(p));
            v2 = round(v2, load64(p + 8));
            v3 = round(v3, load64(p + 16));
            v4 = round(v4, load64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
        h = merge_round(h, v1);
        h = merge_round(h, v2);
        h = merge_round(h, v3);
        h = merge_round(h, v4);
    } else {
        h = seed + P5;
    }
    h += static_cast<std::uint64_t>(bytes);
    while (end - p >= 8) {
        h ^= round(0, load64(p));
        h = rotl(h, 27) * P1 + P4;
        p += 8;
    }
    if (end - p >= 4) {
        h ^= static_cast<std::uint64_t>(load32(p)) * P1;
        h = rotl(h, 23) * P2 + P3;
        p += 4;
    }
    while (p < end) {
        h ^= (*p) * P5;
        h = rotl(h, 11) * P1;
        ++p;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

}  // namespace partikel::fmt
