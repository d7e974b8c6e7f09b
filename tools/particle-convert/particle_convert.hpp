// particle-convert as a function, so tests run it in-process; main.cpp only forwards to it.
#pragma once

#include <span>
#include <string>

namespace partikel::tools {

// Converts particle data between encodings, selecting frames, groups and columns.
// Exit status: 0 ok, 1 unreadable input or failed output, 2 usage error.
int particle_convert(std::span<const std::string> args);

}  // namespace partikel::tools
