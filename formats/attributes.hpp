// Frame attributes read as parameters (sph.h, nbody.theta, pic.intensity, domain.min): every
// value checked against the range the program holds it in, so that a file cannot pass NaN,
// infinity, 1e300 into a float or 2^40 into an int. Absent keys give nullopt; a present key of
// the wrong kind or out of range is a FormatError naming it:
//   "attribute sph.shepard_every = 1099511627776 must be an integer in 0..2147483647"
// (callers reading a start frame add the file and frame: run::parse_start_frame).
#pragma once

#include <cfloat>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/frame.hpp"

namespace partikel::fmt {

// A finite number in [lo, hi] (an integer attribute is taken as its value). The default range
// is float's: most parameters are held as float.
std::optional<double> real_attribute(const Frame& frame, std::string_view key, double lo = -FLT_MAX,
                                     double hi = FLT_MAX);
// An integer in [lo, hi] (a real attribute holding a whole number is taken too). The default
// range is int's.
std::optional<std::int64_t> integer_attribute(const Frame& frame, std::string_view key,
                                              std::int64_t lo = std::numeric_limits<std::int32_t>::min(),
                                              std::int64_t hi = std::numeric_limits<std::int32_t>::max());
std::optional<std::string> text_attribute(const Frame& frame, std::string_view key);
// A vector of `size` finite numbers, each in [lo, hi].
std::optional<std::vector<double>> vector_attribute(const Frame& frame, std::string_view key, std::size_t size,
                                                    double lo = -FLT_MAX, double hi = FLT_MAX);

}  // namespace partikel::fmt
