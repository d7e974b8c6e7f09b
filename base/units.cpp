#include "base/units.hpp"

#include <charconv>

#include "base/error.hpp"

namespace partikel {

std::size_t scalar_size(ScalarType type) {
    switch (type) {
    case ScalarType::u8: return 1;
    case ScalarType::i32: case ScalarType::u32: case ScalarType::f32: return 4;
    case ScalarType::i64: case ScalarType::u64: case ScalarType::f64: return 8;
    }
    throw UsageError("unknown scalar type code " + std::to_string(static_cast<int>(type)));
}

std::string_view scalar_name(ScalarType type) {
    switch (type) {
    case ScalarType::u8: return "u8";
    case ScalarType::i32: return "i32";
    case ScalarType::u32: return "u32";
    case ScalarType::i64: return "i64";
    case ScalarType::u64: return "u64";
    case ScalarType::f32: return "f32";
    case ScalarType::f64: return "f64";
    }
    return "?";
}

std::optional<ScalarType> parse_scalar_type(std::string_view name) {
    for (auto t : {ScalarType::u8, ScalarType::i32, ScalarType::u32, ScalarType::i64, ScalarType::u64,
                   ScalarType::f32, ScalarType::f64})
        if (scalar_name(t) == name) return t;
    return std::nullopt;
}

bool is_float(ScalarType type) { return type == ScalarType::f32 || type == ScalarType::f64; }

namespace {

std::string format_power(const char* symbol, double power) {
    if (power == 0) return {};
    std::string s = symbol;
    if (power != 1) {
        char buf[32];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, power);
        s += '^';
        s.append(buf, end);
    }
    return s;
}

}  // namespace

std::string unit_symbol(const Unit& unit) {
    static const char* const symbols[7] = {"m", "kg", "s", "A", "K", "mol", "cd"};
    std::string numerator, denominator;
    for (int i = 0; i < 7; ++i) {
        double p = unit.dimension[i];
        if (p > 0) {
            if (!numerator.empty()) numerator += ' ';
            numerator += format_power(symbols[i], p);
        } else if (p < 0) {
            if (!denominator.empty()) denominator += ' ';
            denominator += format_power(symbols[i], -p);
        }
    }
    // Named units people expect to read.
    const UnitDimension pascal{-1, 1, -2, 0, 0, 0, 0}, newton{1, 1, -2, 0, 0, 0, 0}, joule{2, 1, -2, 0, 0, 0, 0};
    std::string s;
    if (unit.dimension == pascal) s = "Pa";
    else if (unit.dimension == newton) s = "N";
    else if (unit.dimension == joule) s = "J";
    else if (numerator.empty() && denominator.empty()) s = "1";
    else if (denominator.empty()) s = numerator;
    else {
        bool compound = denominator.find(' ') != std::string::npos;
        s = (numerator.empty() ? "1" : numerator) + "/" + (compound ? "(" + denominator + ")" : denominator);
    }
    if (unit.si_factor != 1.0) {
        char buf[32];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, unit.si_factor);
        s = std::string(buf, end) + " " + s;
    }
    return s;
}

}  // namespace partikel
