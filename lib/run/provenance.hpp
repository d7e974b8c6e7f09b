// Provenance on every frame a program writes: program, version, commit, command line, UTC time
// of the run's start, device, and the seed where there is one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "formats/frame.hpp"

namespace partikel::run {

struct Provenance {
    std::string program;
    std::string command_line;
    std::string device;                  // Backend::describe()
    std::optional<std::uint64_t> seed;
    std::string utc_start;               // ISO 8601; filled by make_provenance
    // The ranks the run used and how they talked (dist::Communicator::transport()); set by
    // run::run_simulation. 0: not a run (no attributes).
    int ranks = 0;
    std::string transport;
};

Provenance make_provenance(std::string program, std::string command_line, std::string device,
                           std::optional<std::uint64_t> seed = std::nullopt);
// Sets "program", "version", "commit", "command_line", "utc_time", "device" (and "seed"; "ranks"
// and "transport" for a run).
void add_provenance(const Provenance& provenance, fmt::Frame& frame);

}  // namespace partikel::run
