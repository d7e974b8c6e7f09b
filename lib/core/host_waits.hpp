// Host waits for a backend's queue, counted since the process started: Backend::synchronize and
// the executors' synchronize, synchronous copies between host and device memory (read_value and
// write_value among them), event and timer waits. The CPU backend counts the same calls although
// it never waits, so that a CPU run shows the waits its GPU run has (bench_dist reports them per
// step). Any thread.
#pragma once

#include <cstdint>

namespace partikel {

std::uint64_t host_wait_count();
void count_host_wait();

}  // namespace partikel
