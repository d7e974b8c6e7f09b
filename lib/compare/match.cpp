#include "compare/match.hpp"

#include <algorithm>
#include <limits>
#include <parallel/algorithm>
#include <utility>

#include "base/error.hpp"

namespace partikel::compare {

namespace {

constexpr std::uint64_t no_row = std::numeric_limits<std::uint64_t>::max();

[[noreturn]] void throw_duplicate(std::uint64_t id, const std::string& side) {
    throw FormatError(side + ": duplicate id " + std::to_string(id) + " (ids must be unique to match particles)");
}

void note_only_b(RowMatch& match, std::span<const std::uint64_t> ids_b, const std::vector<std::uint8_t>& used_b) {
    match.only_b = ids_b.size() - match.count;
    for (std::size_t row = 0; row < ids_b.size() && match.only_b > 0; ++row)
        if (!used_b[row]) {
            match.example_only_b = ids_b[row];
            break;
        }
}

RowMatch match_dense(std::span<const std::uint64_t> ids_a, std::span<const std::uint64_t> ids_b, std::uint64_t min_b,
                     std::uint64_t span_b, const std::string& side_a, const std::string& side_b) {
    std::vector<std::uint64_t> row_of_id(span_b, no_row);
    for (std::uint64_t row = 0; row < ids_b.size(); ++row) {
        std::uint64_t& slot = row_of_id[ids_b[row] - min_b];
        if (slot != no_row) throw_duplicate(ids_b[row], side_b);
        slot = row;
    }
    RowMatch match;
    match.rows_a.reserve(std::min(ids_a.size(), ids_b.size()));
    match.rows_b.reserve(std::min(ids_a.size(), ids_b.size()));
    std::vector<std::uint8_t> used_b(ids_b.size(), 0);
    for (std::uint64_t row = 0; row < ids_a.size(); ++row) {
        const std::uint64_t offset = ids_a[row] - min_b;   // wraps to a huge value below min_b
        const std::uint64_t partner = offset < span_b ? row_of_id[offset] : no_row;
        if (partner == no_row) {
            if (match.only_a++ == 0) match.example_only_a = ids_a[row];
            continue;
        }
        // B's ids are unique, so a partner taken twice means A repeats that id.
        if (used_b[partner]) throw_duplicate(ids_a[row], side_a);
        used_b[partner] = 1;
        match.rows_a.push_back(row);
        match.rows_b.push_back(partner);
    }
    match.count = match.rows_a.size();
    note_only_b(match, ids_b, used_b);
    return match;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> sorted_ids(std::span<const std::uint64_t> ids,
                                                                const std::string& side) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs(ids.size());
    for (std::uint64_t row = 0; row < ids.size(); ++row) pairs[row] = {ids[row], row};
    __gnu_parallel::sort(pairs.begin(), pairs.end());
    for (std::size_t i = 1; i < pairs.size(); ++i)
        if (pairs[i].first == pairs[i - 1].first) throw_duplicate(pairs[i].first, side);
    return pairs;
}

RowMatch match_sorted(std::span<const std::uint64_t> ids_a, std::span<const std::uint64_t> ids_b,
                      const std::string& side_a, const std::string& side_b) {
    const auto a = sorted_ids(ids_a, side_a);
    const auto b = sorted_ids(ids_b, side_b);
    std::vector<std::uint64_t> partner_of_a(ids_a.size(), no_row);
    std::vector<std::uint8_t> used_b(ids_b.size(), 0);
    for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
        if (a[i].first < b[j].first)
            ++i;
        else if (b[j].first < a[i].first)
            ++j;
        else {
            partner_of_a[a[i].second] = b[j].second;
            used_b[b[j].second] = 1;
            ++i, ++j;
        }
    }
    RowMatch match;
    for (std::uint64_t row = 0; row < ids_a.size(); ++row) {
        if (partner_of_a[row] == no_row) {
            if (match.only_a++ == 0) match.example_only_a = ids_a[row];
            continue;
        }
        match.rows_a.push_back(row);
        match.rows_b.push_back(partner_of_a[row]);
    }
    match.count = match.rows_a.size();
    note_only_b(match, ids_b, used_b);
    return match;
}

// (min, span) of the ids when a direct table over them costs at most a few entries per id.
std::optional<std::pair<std::uint64_t, std::uint64_t>> dense_range(std::span<const std::uint64_t> ids) {
    if (ids.empty()) return std::nullopt;
    const auto [min_it, max_it] = std::minmax_element(ids.begin(), ids.end());
    const std::uint64_t span = *max_it - *min_it + 1;   // 0 only for the full u64 range
    if (span == 0 || span > 4 * ids.size() + 1024) return std::nullopt;
    return std::pair{*min_it, span};
}

void check_unique(std::span<const std::uint64_t> ids, const std::string& side) {
    const auto range = dense_range(ids);
    if (!range) {
        sorted_ids(ids, side);
        return;
    }
    std::vector<std::uint8_t> seen(range->second, 0);
    for (const std::uint64_t id : ids) {
        std::uint8_t& slot = seen[id - range->first];
        if (slot) throw_duplicate(id, side);
        slot = 1;
    }
}

}  // namespace

RowMatch match_by_index(std::uint64_t n_a, std::uint64_t n_b) {
    RowMatch match;
    match.identity = true;
    match.count = std::min(n_a, n_b);
    match.only_a = n_a - match.count;
    match.only_b = n_b - match.count;
    if (match.only_a > 0) match.example_only_a = match.count;
    if (match.only_b > 0) match.example_only_b = match.count;
    return match;
}

RowMatch match_by_id(std::span<const std::uint64_t> ids_a, std::span<const std::uint64_t> ids_b,
                     const std::string& side_a, const std::string& side_b) {
    // Same ids in the same order (both runs of one program): pair rows directly, after
    // checking uniqueness, which a clean identity pairing would otherwise hide.
    if (std::equal(ids_a.begin(), ids_a.end(), ids_b.begin(), ids_b.end())) {
        check_unique(ids_a, side_a);
        return match_by_index(ids_a.size(), ids_b.size());
    }
    if (ids_a.empty() || ids_b.empty()) {
        check_unique(ids_a, side_a);
        check_unique(ids_b, side_b);
        RowMatch match;
        match.only_a = ids_a.size();
        match.only_b = ids_b.size();
        if (!ids_a.empty()) match.example_only_a = ids_a.front();
        if (!ids_b.empty()) match.example_only_b = ids_b.front();
        return match;
    }
    const auto range = dense_range(ids_b);
    if (range) return match_dense(ids_a, ids_b, range->first, range->second, side_a, side_b);
    return match_sorted(ids_a, ids_b, side_a, side_b);
}

std::vector<std::uint64_t> id_values(const fmt::Column& column) {
    if (column.components() != 1)
        throw UsageError("id column '" + column.name() + "' has " + std::to_string(column.components()) +
                         " components; ids must be scalars");
    std::vector<std::uint64_t> ids(column.count());
    const auto copy = [&](auto values) {
        for (std::size_t row = 0; row < ids.size(); ++row) ids[row] = std::uint64_t(values[row]);
    };
    using fmt::ScalarType;
    switch (column.type()) {
        case ScalarType::u8:
            copy(column.values<std::uint8_t>());
            break;
        case ScalarType::i32:
            copy(column.values<std::int32_t>());
            break;
        case ScalarType::u32:
            copy(column.values<std::uint32_t>());
            break;
        case ScalarType::i64:
            copy(column.values<std::int64_t>());
            break;
        case ScalarType::u64:
            copy(column.values<std::uint64_t>());
            break;
        case ScalarType::f32:
        case ScalarType::f64:
            throw UsageError("id column '" + column.name() + "' holds floating-point values; ids must be integers");
    }
    return ids;
}

}  // namespace partikel::compare
