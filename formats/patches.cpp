#include "formats/patches.hpp"

#include <cmath>
#include <string>
#include <variant>

namespace partikel::fmt {
namespace {

constexpr std::string_view kPrefix = "patches.";

}  // namespace

void set_patch_rows(Frame& frame, std::string_view group, std::span<const std::uint64_t> rows) {
    // As reals: attributes hold no integer lists; counts stay exact up to 2^53.
    frame.attributes[std::string(kPrefix) + std::string(group)] = std::vector<double>(rows.begin(), rows.end());
}

std::vector<std::uint64_t> patch_rows(const Frame& frame, const Group& group) {
    const std::vector<std::uint64_t> whole{group.count()};
    const auto it = frame.attributes.find(std::string(kPrefix) + group.name());
    if (it == frame.attributes.end()) return whole;
    const auto* list = std::get_if<std::vector<double>>(&it->second);
    if (!list || list->empty()) return whole;
    std::vector<std::uint64_t> rows;
    std::uint64_t total = 0;
    for (const double r : *list) {
        if (!(r >= 0.0 && r <= double(group.count() - total)) || r != std::floor(r)) return whole;
        rows.push_back(static_cast<std::uint64_t>(r));
        total += rows.back();
    }
    return total == group.count() ? rows : whole;
}

}  // namespace partikel::fmt
