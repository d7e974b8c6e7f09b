#include "compare/column.hpp"

namespace partikel::compare {

std::string component_name(const std::string& column, std::uint32_t component, std::uint32_t components) {
    return fmt::component_label(column, components, component);
}

}  // namespace partikel::compare
