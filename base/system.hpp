// Facts about the host machine that readers and planners check sizes against.
#pragma once

#include <cstdint>
#include <string>

namespace partikel {

// The machine's physical memory in bytes (2^36 when the system does not say). Readers refuse
// to allocate more than this for what a damaged file declares.
std::uint64_t host_memory_bytes();

// The largest text file read whole and split into cells (CSV particles, compared tables): a
// quarter of the machine's memory, as the cells take several times the text.
std::uint64_t text_table_limit_bytes();

// Memory a new allocation can have now: Linux's MemAvailable (free memory plus what the kernel
// can reclaim), or host_memory_bytes() where the system does not say.
std::uint64_t available_memory_bytes();

// Refuses, before allocating, a particle set that cannot fit in the memory available now:
// throws UsageError "WHAT needs about X GB of host memory (B bytes each), more than the Y GB
// available (of Z GB)". `what` names the request ("dx 1e-09 m makes at least 6.5e+16 particles").
void require_host_memory(const std::string& what, double count, double bytes_each);

// The time written into outputs (stream headers, provenance, openPMD's date), as UTC text in
// strftime's `format` (e.g. "%Y-%m-%dT%H:%M:%SZ"): now, or SOURCE_DATE_EPOCH (seconds since
// 1970, the reproducible-builds.org convention) when the environment sets it to a valid number,
// so that two runs of the same command write the same bytes.
std::string output_time_utc(const char* format);

}  // namespace partikel
