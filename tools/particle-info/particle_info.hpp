// particle-info as a function, so tests run it in-process; main.cpp only forwards to it.
#pragma once

#include <span>
#include <string>

namespace partikel::tools {

// Describes a particle file or stream: frames, groups, columns, statistics, attributes.
// Exit status: 0 ok, 1 unreadable or malformed input, 2 usage error.
int particle_info(std::span<const std::string> args);

}  // namespace partikel::tools
