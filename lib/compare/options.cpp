#include "compare/options.hpp"

#include <algorithm>

namespace partikel::compare {

bool CompareOptions::selected(std::string_view column) const {
    const auto named = [&](const std::vector<std::string>& names) {
        return std::find(names.begin(), names.end(), column) != names.end();
    };
    return (only_columns.empty() || named(only_columns)) && !named(ignore_columns);
}

}  // namespace partikel::compare
