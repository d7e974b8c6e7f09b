// frnn-build as a function, so tests run it in-process; main.cpp only forwards to it.
#pragma once

#include <span>
#include <string>

namespace partikel::tools {

// Exit status: 0 success, 1 runtime failure (including a --check difference), 2 usage error.
int frnn_build(std::span<const std::string> args);

}  // namespace partikel::tools
