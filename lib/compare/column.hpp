// The step every comparison shares: a column's metrics, with the worst row named the way the
// caller labels rows (an id, a table key, a pixel).
#pragma once

#include <string>

#include "compare/metrics.hpp"
#include "formats/frame.hpp"
#include "compare/report.hpp"

namespace partikel::compare {

template <class LabelRow>
ColumnResult column_result(std::string name, std::uint32_t components, const Tolerance& tolerance,
                           const DifferenceStats& stats, const LabelRow& label_row) {
    ColumnResult result;
    result.name = std::move(name);
    result.components = components;
    result.tolerance = tolerance;
    result.stats = stats;
    if (stats.has_worst()) result.worst = label_row(stats.worst_row);
    return result;
}

// "position.x", "stress.xy": the data model's component names (fmt::component_label).
std::string component_name(const std::string& column, std::uint32_t component, std::uint32_t components);

}  // namespace partikel::compare
