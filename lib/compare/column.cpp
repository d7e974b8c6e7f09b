#include "compare/column.hpp"

namespace partikel::compare {

std::string component_name(const std::string& column, std::uint32_t component, std::uint32_t components) {
    if (components == 1) return column;
    if (components == 3) return column + "." + "xyz"[component];
    return column + "[" + std::to_string(component) + "]";
}

}  // namespace partikel::compare
