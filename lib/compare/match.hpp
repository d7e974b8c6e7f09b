// Pairing the particles of two groups: by id when both have an `id` column, else by index.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "formats/frame.hpp"

namespace partikel::compare {

// Which row of A goes with which row of B. `identity` means row i with row i for
// i < count, without index arrays (equal id order, or matching by index).
struct RowMatch {
    bool identity = false;
    std::uint64_t count = 0;             // matched pairs
    std::vector<std::uint64_t> rows_a;   // empty when identity
    std::vector<std::uint64_t> rows_b;
    std::uint64_t only_a = 0;   // rows of A without a partner in B
    std::uint64_t only_b = 0;
    std::optional<std::uint64_t> example_only_a;   // an id (or index) present only in A
    std::optional<std::uint64_t> example_only_b;

    std::uint64_t row_a(std::uint64_t pair) const { return identity ? pair : rows_a[pair]; }
    std::uint64_t row_b(std::uint64_t pair) const { return identity ? pair : rows_b[pair]; }
};

// The first min(n_a, n_b) rows pair up; the rest are unmatched.
RowMatch match_by_index(std::uint64_t n_a, std::uint64_t n_b);

// Pairs equal ids; pairs come in A's row order. O(N) through a direct table when the ids of B
// are dense (a permutation of a range, the usual case), else O(N log N) by sorting.
// Throws FormatError "duplicate id ..." naming `side_a`/`side_b` when an id repeats on a side.
RowMatch match_by_id(std::span<const std::uint64_t> ids_a, std::span<const std::uint64_t> ids_b,
                     const std::string& side_a = "A", const std::string& side_b = "B");

// The values of an integer column as u64 (signed values keep their bit pattern, which keeps
// them distinct). Throws UsageError for float or vector columns.
std::vector<std::uint64_t> id_values(const fmt::Column& column);

}  // namespace partikel::compare
