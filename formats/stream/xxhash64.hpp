// XXH64 (seed 0 unless given), the checksum of every stream record and block (SPEC.md §2.1):
// Yann Collet's xxHash library (libxxhash-dev's header, inlined) where the build found it,
// else xxh64_portable. The two ran at the same speed on 256 MB (formats/README.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace partikel::fmt {

std::uint64_t xxh64(const void* data, std::size_t bytes, std::uint64_t seed = 0);

// Ours, from the algorithm's description: xxh64 where the xxHash header is missing (the GPU
// machines cannot install Debian packages); the unit tests check it against the library and
// the reference vectors.
std::uint64_t xxh64_portable(const void* data, std::size_t bytes, std::uint64_t seed = 0);

// Whether xxh64 is the library's.
bool xxh64_from_library();

}  // namespace partikel::fmt
