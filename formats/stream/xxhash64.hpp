// XXH64 (seed 0 unless given), the checksum of every stream record and block (SPEC.md §2.1).
// Written here because libzstd does not export its bundled xxHash.
#pragma once

#include <cstddef>
#include <cstdint>

namespace partikel::fmt {

std::uint64_t xxh64(const void* data, std::size_t bytes, std::uint64_t seed = 0);

}  // namespace partikel::fmt
