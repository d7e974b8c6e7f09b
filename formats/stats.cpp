#include "formats/stats.hpp"

#include <cmath>
#include <limits>

namespace partikel::fmt {
namespace {

template <class T> std::vector<ComponentStats> stats_of(const Column& column) {
    const auto values = column.values<T>();
    const std::uint32_t c = column.components();
    std::vector<ComponentStats> out(c);
    for (std::uint32_t k = 0; k < c; ++k) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0.0;
        std::uint64_t finite = 0, non_finite = 0;
        for (std::size_t i = k; i < values.size(); i += c) {
            const double v = static_cast<double>(values[i]);
            if (!std::isfinite(v)) {
                ++non_finite;
                continue;
            }
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            sum += v;
            ++finite;
        }
        if (finite > 0) out[k] = {lo, hi, sum / static_cast<double>(finite), non_finite};
        else out[k].non_finite = non_finite;
    }
    return out;
}

}  // namespace

std::vector<ComponentStats> column_stats(const Column& column) {
    switch (column.type()) {
    case ScalarType::u8: return stats_of<std::uint8_t>(column);
    case ScalarType::i32: return stats_of<std::int32_t>(column);
    case ScalarType::u32: return stats_of<std::uint32_t>(column);
    case ScalarType::i64: return stats_of<std::int64_t>(column);
    case ScalarType::u64: return stats_of<std::uint64_t>(column);
    case ScalarType::f32: return stats_of<float>(column);
    case ScalarType::f64: return stats_of<double>(column);
    }
    return {};
}

}  // namespace partikel::fmt
