// Diagnostic tables: CSV or TSV text with a header row (pic-track's per-turn moments,
// nbody-run's energies). Lines starting with '#' are comments. The delimiter is a tab when
// the header has one, else a comma when it has one, else runs of blanks. A UTF-8 byte order
// mark is skipped; empty cells of numeric columns are NaN.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compare/options.hpp"
#include "compare/report.hpp"

namespace partikel::compare {

struct Table {
    std::string name;   // for messages: the path or "<stdin>"
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> cells;   // [column][row], trimmed, quotes removed
    std::vector<std::vector<double>> numbers;      // [column][row]; NaN for empty cells
    std::vector<bool> numeric;                     // every non-empty cell of the column parses
    std::uint64_t rows = 0;
    std::unordered_map<std::string, std::size_t> column_of;  // header name -> column (names are unique)

    // Index of a header name, or -1.
    std::ptrdiff_t column_index(std::string_view name) const;
};

// Throws FormatError naming `name` and the line for a ragged row, a missing header or a name
// the header has twice (which of two columns "a" would a comparison compare?).
Table parse_table(std::string_view text, std::string name);
// "-" is stdin.
Table read_table(const std::string& path);

// Rows pair by options.table_keys (all must exist on both sides) or else by index.
Section compare_tables(const Table& a, const Table& b, const CompareOptions& options);

}  // namespace partikel::compare
