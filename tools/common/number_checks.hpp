// Checks for real-valued flags. CLI11's Range and PositiveNumber let "nan" through (every
// comparison with NaN is false), so a program whose physics must not see NaN or infinity
// checks its flags with these: `app.add_option("--theta", theta)->check(finite_positive())`.
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <string>

namespace partikel::tools {

namespace detail {
template <class Accept>
CLI::Validator real_check(const char* name, const char* expected, Accept accept) {
    return CLI::Validator(
        [accept, expected](std::string& text) -> std::string {
            double value = 0.0;
            if (!CLI::detail::lexical_cast(text, value)) return "expected a number, got '" + text + "'";
            return std::isfinite(value) && accept(value) ? std::string() : std::string("expected ") + expected +
                                                                              ", got " + text;
        },
        name);
}
}  // namespace detail

// Any finite number.
inline CLI::Validator finite_number() {
    return detail::real_check("FINITE", "a finite number", [](double) { return true; });
}
// A finite number > 0.
inline CLI::Validator finite_positive() {
    return detail::real_check("POSITIVE", "a finite number > 0", [](double v) { return v > 0.0; });
}
// A finite number >= 0.
inline CLI::Validator finite_non_negative() {
    return detail::real_check("NONNEGATIVE", "a finite number >= 0", [](double v) { return v >= 0.0; });
}

}  // namespace partikel::tools
