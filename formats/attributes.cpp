#include "formats/attributes.hpp"

#include <cmath>
#include <cstdio>
#include <variant>

#include "base/error.hpp"

namespace partikel::fmt {

namespace {

const AttributeValue* find(const Frame& frame, std::string_view key) {
    const auto it = frame.attributes.find(key);
    return it == frame.attributes.end() ? nullptr : &it->second;
}

std::string number_text(double value) {
    char text[40];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

[[noreturn]] void refuse(std::string_view key, const std::string& value, const std::string& must) {
    throw FormatError("attribute " + std::string(key) + " = " + value + " must be " + must);
}

double checked_real(std::string_view key, double value, double lo, double hi) {
    if (!std::isfinite(value) || value < lo || value > hi)
        refuse(key, number_text(value), "a finite number in " + number_text(lo) + ".." + number_text(hi));
    return value;
}

}  // namespace

std::optional<double> real_attribute(const Frame& frame, std::string_view key, double lo, double hi) {
    const AttributeValue* v = find(frame, key);
    if (!v) return std::nullopt;
    if (const auto* d = std::get_if<double>(v)) return checked_real(key, *d, lo, hi);
    if (const auto* i = std::get_if<std::int64_t>(v)) return checked_real(key, double(*i), lo, hi);
    throw FormatError("attribute " + std::string(key) + " is not a number");
}

std::optional<std::int64_t> integer_attribute(const Frame& frame, std::string_view key, std::int64_t lo, std::int64_t hi) {
    const AttributeValue* v = find(frame, key);
    if (!v) return std::nullopt;
    const std::string must = "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
    if (const auto* i = std::get_if<std::int64_t>(v)) {
        if (*i < lo || *i > hi) refuse(key, std::to_string(*i), must);
        return *i;
    }
    if (const auto* d = std::get_if<double>(v)) {
        // Compared as doubles first: casting 1e300 or NaN to an integer is undefined.
        if (!(*d >= double(lo) && *d <= double(hi)) || *d != std::floor(*d)) refuse(key, number_text(*d), must);
        return std::int64_t(*d);
    }
    throw FormatError("attribute " + std::string(key) + " is not a number");
}

std::optional<std::string> text_attribute(const Frame& frame, std::string_view key) {
    const AttributeValue* v = find(frame, key);
    if (!v) return std::nullopt;
    if (const auto* s = std::get_if<std::string>(v)) return *s;
    throw FormatError("attribute " + std::string(key) + " is not text");
}

std::optional<std::vector<double>> vector_attribute(const Frame& frame, std::string_view key, std::size_t size, double lo,
                                                    double hi) {
    const AttributeValue* v = find(frame, key);
    if (!v) return std::nullopt;
    const auto* values = std::get_if<std::vector<double>>(v);
    if (!values || values->size() != size)
        throw FormatError("attribute " + std::string(key) + " is not a vector of " + std::to_string(size) + " numbers");
    for (const double x : *values) checked_real(key, x, lo, hi);
    return *values;
}

}  // namespace partikel::fmt
