// Per-component statistics of a column (particle-info, tests, compare tools).
#pragma once

#include <cstdint>
#include <vector>

#include "formats/frame.hpp"

namespace partikel::fmt {

struct ComponentStats {
    double min = 0.0;    // over finite values; 0 when there are none
    double max = 0.0;
    double mean = 0.0;   // over finite values
    std::uint64_t non_finite = 0;  // NaN and infinities (floating-point columns)
};

// One entry per component.
std::vector<ComponentStats> column_stats(const Column& column);

}  // namespace partikel::fmt
