// Facts about the host machine that readers and planners check sizes against.
#pragma once

#include <cstdint>

namespace partikel {

// The machine's physical memory in bytes (2^36 when the system does not say). Readers refuse
// to allocate more than this for what a damaged file declares.
std::uint64_t host_memory_bytes();

}  // namespace partikel
