// nbody-init as a function, so tests run it in-process; main.cpp only forwards to it.
#pragma once

#include <span>
#include <string>

namespace partikel::tools {

// Exit status: 0 ok, 1 runtime failure, 2 usage error.
int nbody_init(std::span<const std::string> args);

}  // namespace partikel::tools
