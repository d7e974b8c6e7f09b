#include "compare/image.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compare/column.hpp"

namespace partikel::compare {

Section compare_images(const image::Image& a, const image::Image& b, const CompareOptions& options) {
    Section section;
    section.kind = "image";
    section.title = "image";
    section.matched_by = "pixel";
    section.rows_a = std::uint64_t(a.width) * std::uint64_t(a.height);
    section.rows_b = std::uint64_t(b.width) * std::uint64_t(b.height);
    const bool same_size = a.width == b.width && a.height == b.height;
    section.rows_compared = same_size ? section.rows_a : 0;
    if (!same_size)
        section.mismatches.push_back("size " + std::to_string(a.width) + "x" + std::to_string(a.height) + " in A, " +
                                     std::to_string(b.width) + "x" + std::to_string(b.height) + " in B");
    else if (a.origin_x != b.origin_x || a.origin_y != b.origin_y)
        section.notes.push_back("data windows start at (" + std::to_string(a.origin_x) + "," +
                                std::to_string(a.origin_y) + ") in A and (" + std::to_string(b.origin_x) + "," +
                                std::to_string(b.origin_y) + "); pixels compared relative to them");
    const auto find = [](const image::Image& image, const std::string& name) -> const std::vector<float>* {
        const auto at = std::find(image.channel_names.begin(), image.channel_names.end(), name);
        return at == image.channel_names.end() ? nullptr
                                               : &image.channels[std::size_t(at - image.channel_names.begin())];
    };
    const auto label_pixel = [&](std::uint64_t pixel) {
        return "pixel (" + std::to_string(a.origin_x + std::int64_t(pixel % std::uint64_t(a.width))) + "," +
               std::to_string(a.origin_y + std::int64_t(pixel / std::uint64_t(a.width))) + ")";
    };
    for (std::size_t c = 0; c < a.channel_names.size(); ++c) {
        const std::string& name = a.channel_names[c];
        if (!options.selected(name)) continue;
        const std::vector<float>* values_b = find(b, name);
        if (!values_b) {
            section.mismatches.push_back("channel '" + name + "' only in A");
            continue;
        }
        if (!same_size) continue;
        const std::vector<float>& values_a = a.channels[c];
        const Tolerance tolerance = options.tolerances.lookup(name);
        const DifferenceStats stats = compare_rows(
            values_a.size(), 1, [&](std::uint64_t pixel, double* out) { *out = values_a[pixel]; },
            [&](std::uint64_t pixel, double* out) { *out = (*values_b)[pixel]; }, tolerance, options.elements);
        ColumnResult result = column_result(name, 1, tolerance, stats, label_pixel);
        double peak = 0.0;
        for (const auto* values : {&values_a, values_b})
            for (const float v : *values)
                if (std::isfinite(v)) peak = std::max(peak, double(std::fabs(v)));
        if (peak == 0.0) peak = 1.0;
        const double rmse = result.stats.rms();
        result.psnr_db = rmse == 0.0 ? std::numeric_limits<double>::infinity() : 20.0 * std::log10(peak / rmse);
        result.min_psnr_db = options.min_psnr_db;
        section.columns.push_back(std::move(result));
    }
    for (const std::string& name : b.channel_names)
        if (options.selected(name) && !find(a, name)) section.mismatches.push_back("channel '" + name + "' only in B");
    return section;
}

}  // namespace partikel::compare
