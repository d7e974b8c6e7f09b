// Checks for numeric flags, the one way every program bounds a number. CLI11's Range and
// PositiveNumber let "nan" through (every comparison with NaN is false) and print DBL_MAX in their
// messages, so programs use these: `app.add_option("--theta", theta)->check(finite_positive())`.
// Tool::run adds finite_number() to every floating-point option and whole_number() to every
// integer option by itself, so no flag of any program accepts NaN, infinity or a number its
// type cannot hold. A failed check reads "--dx must be > 0 (got -1)"; a list of words is
// one_of({"tsv", "csv"}).
#pragma once

#include <CLI/CLI.hpp>

#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace partikel::tools {

namespace detail {

inline std::string format_bound(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

// `accept` judges a finite value; `expected` completes "must be ..." when it does not.
// Values beyond FLT_MAX are not finite for the many flags held as float.
template <class Accept>
CLI::Validator real_check(const std::string& description, const std::string& expected, Accept accept) {
    return CLI::Validator(
        [accept, expected](std::string& text) -> std::string {
            double value = 0.0;
            if (!CLI::detail::lexical_cast(text, value)) return "must be a number (got '" + text + "')";
            if (!std::isfinite(value)) return "must be a finite number (got " + text + ")";
            if (std::fabs(value) > double(FLT_MAX))  // finite, but not as the float many flags are held in
                return "must be between -" + format_bound(FLT_MAX) + " and " + format_bound(FLT_MAX) + " (got " + text + ")";
            return accept(value) ? std::string() : "must be " + expected + " (got " + text + ")";
        },
        description);
}

}  // namespace detail

// Any finite number (added to every floating-point option by Tool::run; no help text).
inline CLI::Validator finite_number() {
    return detail::real_check("", "a finite number", [](double) { return true; });
}
// A decimal integer that fits 64 bits (signed, or unsigned: no minus sign). Added to every integer
// option by Tool::run: CLI11 (2.1) turns 99999999999999999999 into INT64_MAX and -1 into
// UINT64_MAX for an unsigned option, silently.
inline CLI::Validator whole_number(bool is_unsigned) {
    return CLI::Validator(
        [is_unsigned](std::string& text) -> std::string {
            const char* first = text.data() + (!text.empty() && text.front() == '+');
            const char* last = text.data() + text.size();
            std::from_chars_result result{};
            if (is_unsigned) {
                std::uint64_t value = 0;
                if (first != last && *first == '-') return "must be >= 0 (got " + text + ")";
                result = std::from_chars(first, last, value);
            } else {
                std::int64_t value = 0;
                result = std::from_chars(first, last, value);
            }
            if (result.ec == std::errc::result_out_of_range) return "must be an integer of at most 64 bits (got " + text + ")";
            if (result.ec != std::errc() || result.ptr != last || first == last)
                return "must be a whole number (got '" + text + "')";
            return std::string();
        },
        "");
}
// A finite number > 0.
inline CLI::Validator finite_positive() {
    return detail::real_check("POSITIVE", "> 0", [](double v) { return v > 0.0; });
}
// A finite number >= 0.
inline CLI::Validator finite_non_negative() {
    return detail::real_check("NONNEGATIVE", ">= 0", [](double v) { return v >= 0.0; });
}
// A number in [lo, hi], integer or real: "must be in -7..22 (got -99)".
inline CLI::Validator number_in(double lo, double hi) {
    const std::string range = detail::format_bound(lo) + ".." + detail::format_bound(hi);
    return detail::real_check(range, "in " + range, [lo, hi](double v) { return v >= lo && v <= hi; });
}
// A number in (lo, hi]: "must be > 0 and <= 1 (got 0)".
inline CLI::Validator number_above_at_most(double lo, double hi) {
    const std::string expected = "> " + detail::format_bound(lo) + " and <= " + detail::format_bound(hi);
    return detail::real_check("(" + detail::format_bound(lo) + ", " + detail::format_bound(hi) + "]", expected,
                              [lo, hi](double v) { return v > lo && v <= hi; });
}

// A number in (lo, hi): "must be > 0 and < 180 (got 180)".
inline CLI::Validator number_above_below(double lo, double hi) {
    const std::string expected = "> " + detail::format_bound(lo) + " and < " + detail::format_bound(hi);
    return detail::real_check("(" + detail::format_bound(lo) + ", " + detail::format_bound(hi) + ")", expected,
                              [lo, hi](double v) { return v > lo && v < hi; });
}
// A number >= lo: "must be >= 1 (got 0.5)".
inline CLI::Validator number_at_least(double lo) {
    return detail::real_check(">=" + detail::format_bound(lo), ">= " + detail::format_bound(lo),
                              [lo](double v) { return v >= lo; });
}

// One of a list of words: "--units must be nbody or astro (got 'foo')". (CLI11's IsMember reads
// "foo not in {nbody,astro}".)
inline CLI::Validator one_of(std::vector<std::string> words) {
    std::string expected;
    for (std::size_t i = 0; i < words.size(); ++i)
        expected += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
    std::string description = "{";
    for (std::size_t i = 0; i < words.size(); ++i) description += (i ? "," : "") + words[i];
    description += "}";
    return CLI::Validator(
        [words, expected](std::string& text) -> std::string {
            for (const std::string& w : words)
                if (text == w) return std::string();
            return "must be " + expected + " (got '" + text + "')";
        },
        description);
}

// The largest --threads: far beyond any host's cores, far below the thousands of OS threads that
// would exhaust a process's limits (OpenMP starts one per requested thread).
inline constexpr int kMaxThreads = 4096;

}  // namespace partikel::tools
