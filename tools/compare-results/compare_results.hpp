// compare-results as a function, so tests run it in-process; main.cpp only forwards to it.
#pragma once

#include <span>
#include <string>

namespace partikel::tools {

// Exit status: 0 equal within tolerance, 1 different, 2 trouble (usage, unreadable input).
int compare_results(std::span<const std::string> args);

}  // namespace partikel::tools
