#include "compare/tolerance.hpp"

#include <charconv>
#include <cmath>

#include "base/error.hpp"

namespace partikel::compare {

namespace {

double parse_nonnegative(std::string_view text, std::string_view spec) {
    double value = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || !(value >= 0.0) || std::isinf(value))
        throw UsageError("--tol " + std::string(spec) + ": '" + std::string(text) +
                         "' is not a finite non-negative number");
    return value;
}

}  // namespace

void ToleranceTable::add_spec(std::string_view spec) {
    const auto equals = spec.find('=');
    if (equals == std::string_view::npos || equals == 0 || equals + 1 == spec.size())
        throw UsageError("--tol " + std::string(spec) + ": expected NAME=ATOL:RTOL (e.g. density=1e-3:1e-5)");
    const std::string_view name = spec.substr(0, equals);
    const std::string_view pair = spec.substr(equals + 1);
    const auto colon = pair.find(':');
    const std::string_view atol_text = pair.substr(0, colon);
    const std::string_view rtol_text = colon == std::string_view::npos ? std::string_view{} : pair.substr(colon + 1);
    if (atol_text.empty() && rtol_text.empty())
        throw UsageError("--tol " + std::string(spec) + ": give ATOL, :RTOL or ATOL:RTOL");
    // A side left out is zero: "name=:1e-6" is purely relative.
    Tolerance tolerance;
    if (!atol_text.empty()) tolerance.atol = parse_nonnegative(atol_text, spec);
    if (!rtol_text.empty()) tolerance.rtol = parse_nonnegative(rtol_text, spec);
    set(std::string(name), tolerance);
}

void ToleranceTable::set(std::string name, Tolerance tolerance) { by_name_[std::move(name)] = tolerance; }

Tolerance ToleranceTable::lookup(std::string_view name, std::string_view group) const {
    if (!group.empty()) {
        const auto qualified = by_name_.find(std::string(group) + "/" + std::string(name));
        if (qualified != by_name_.end()) return qualified->second;
    }
    const auto plain = by_name_.find(name);
    return plain != by_name_.end() ? plain->second : global;
}

std::vector<std::string> ToleranceTable::names() const {
    std::vector<std::string> out;
    for (const auto& [name, tolerance] : by_name_) out.push_back(name);
    return out;
}

}  // namespace partikel::compare
