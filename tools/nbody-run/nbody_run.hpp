// nbody-run as a function, so tests run it in-process; main.cpp only forwards to it.
#pragma once

#include <span>
#include <string>

namespace partikel::tools {

// Exit status: 0 ok, 1 runtime failure, 2 usage error, 128 + signal when interrupted.
int nbody_run(std::span<const std::string> args);

}  // namespace partikel::tools
