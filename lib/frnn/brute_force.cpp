#include "frnn/brute_force.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

namespace partikel::frnn {

HostNeighborLists brute_force_neighbors(std::span<const Vec3f> positions, const Box& box, float radius,
                                        std::span<const std::uint32_t> queries, int threads) {
    const std::size_t n = positions.size();
    const std::size_t rows = queries.empty() ? n : queries.size();
    const float radius2 = radius * radius;
    std::vector<std::vector<std::uint32_t>> found(rows);
    const int t = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for num_threads(t) schedule(dynamic, 16)
    for (std::int64_t r = 0; r < static_cast<std::int64_t>(rows); ++r) {
        const std::size_t q = queries.empty() ? static_cast<std::size_t>(r) : queries[static_cast<std::size_t>(r)];
        const Vec3f p = positions[q];
        auto& out = found[static_cast<std::size_t>(r)];
        for (std::size_t j = 0; j < n; ++j)
            if (distance2(box.displacement(p, positions[j])) <= radius2) out.push_back(static_cast<std::uint32_t>(j));
    }
    HostNeighborLists lists;
    lists.offsets.assign(rows + 1, 0);
    for (std::size_t r = 0; r < rows; ++r) lists.offsets[r + 1] = lists.offsets[r] + found[r].size();
    lists.indices.reserve(lists.offsets[rows]);
    for (auto& f : found) lists.indices.insert(lists.indices.end(), f.begin(), f.end());
    return lists;
}

std::optional<std::string> first_difference(const HostNeighborLists& expected, const HostNeighborLists& got,
                                            std::span<const std::uint32_t> queries) {
    const std::size_t rows = expected.rows();
    if (!queries.empty() && queries.size() != rows) return "the oracle has " + std::to_string(rows) + " rows for " +
                                                            std::to_string(queries.size()) + " queries";
    std::vector<std::uint32_t> a, b;
    for (std::size_t r = 0; r < rows; ++r) {
        const std::size_t q = queries.empty() ? r : queries[r];
        if (q >= got.rows()) return "particle " + std::to_string(q) + ": no row in the list (" +
                                    std::to_string(got.rows()) + " rows)";
        auto e = expected.row(r);
        auto g = got.row(q);
        a.assign(e.begin(), e.end());
        b.assign(g.begin(), g.end());
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a == b) continue;
        if (auto twice = std::adjacent_find(b.begin(), b.end()); twice != b.end())
            return "particle " + std::to_string(q) + ": neighbour " + std::to_string(*twice) + " listed twice";
        std::vector<std::uint32_t> missing, extra;
        std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(missing));
        std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(extra));
        std::string what = "particle " + std::to_string(q) + ": " + std::to_string(a.size()) +
                           " neighbours expected, " + std::to_string(b.size()) + " found";
        if (!missing.empty()) what += "; missing " + std::to_string(missing.front());
        if (!extra.empty()) what += "; unexpected " + std::to_string(extra.front());
        return what;
    }
    return std::nullopt;
}

}  // namespace partikel::frnn
