#include "compare/table.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <unordered_map>

#include "compare/column.hpp"
#include "compare/match.hpp"
#include "base/error.hpp"
#include "base/io.hpp"
#include "base/system.hpp"

namespace partikel::compare {

namespace {

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

enum class Delimiter { tab, comma, blanks };

Delimiter detect_delimiter(std::string_view header) {
    if (header.find('\t') != std::string_view::npos) return Delimiter::tab;
    if (header.find(',') != std::string_view::npos) return Delimiter::comma;
    return Delimiter::blanks;
}

// Fields of one line; double quotes group text containing the delimiter ("" is a quote).
std::vector<std::string> split(std::string_view line, Delimiter delimiter) {
    std::vector<std::string> fields;
    if (delimiter == Delimiter::blanks) {
        std::size_t at = 0;
        while ((at = line.find_first_not_of(" \t\r", at)) != std::string_view::npos) {
            const auto end = std::min(line.find_first_of(" \t\r", at), line.size());
            fields.emplace_back(line.substr(at, end - at));
            at = end;
        }
        return fields;
    }
    const char separator = delimiter == Delimiter::tab ? '\t' : ',';
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                field += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == separator) {
            fields.emplace_back(trim(field));
            field.clear();
        } else {
            field += c;
        }
    }
    fields.emplace_back(trim(field));
    return fields;
}

// A cell as a number: the whole cell must parse ("nan" and "inf" do); empty is NaN.
bool parse_number(std::string_view cell, double& value) {
    if (cell.empty()) {
        value = std::numeric_limits<double>::quiet_NaN();
        return true;
    }
    if (cell.front() == '+') cell.remove_prefix(1);
    const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
    return ec == std::errc{} && end == cell.data() + cell.size();
}

// The text a key cell is matched by: numbers in one canonical form, so "12" pairs "12.0".
std::string key_text(const Table& table, std::size_t column, std::uint64_t row) {
    if (!table.numeric[column]) return table.cells[column][row];
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", table.numbers[column][row]);
    return text;
}

struct KeyedRows {
    std::vector<std::size_t> key_columns;
    std::string label(const Table& table, std::uint64_t row) const {
        std::string text;
        for (const std::size_t column : key_columns) {
            if (!text.empty()) text += ',';
            text += table.header[column] + "=" + table.cells[column][row];
        }
        return text;
    }
    std::string key(const Table& table, std::uint64_t row) const {
        std::string text;
        for (const std::size_t column : key_columns) {
            text += key_text(table, column, row);
            text += '\x1f';   // unit separator: cannot occur in a cell
        }
        return text;
    }
};

std::vector<std::size_t> key_columns(const Table& table, const std::vector<std::string>& keys, const char* side) {
    std::vector<std::size_t> columns;
    for (const std::string& key : keys) {
        const auto index = table.column_index(key);
        if (index < 0)
            throw UsageError("--key " + key + ": no such column in " + std::string(side) + " (" + table.name + ")");
        columns.push_back(std::size_t(index));
    }
    return columns;
}

// Pairs rows by key through a hash of B's keys; duplicate keys are trouble (which row pairs?).
RowMatch match_by_key(const Table& a, const Table& b, const KeyedRows& keys_a, const KeyedRows& keys_b,
                      std::string& example_a, std::string& example_b) {
    std::unordered_map<std::string, std::uint64_t> row_of_key;
    row_of_key.reserve(b.rows);
    for (std::uint64_t row = 0; row < b.rows; ++row)
        if (!row_of_key.emplace(keys_b.key(b, row), row).second)
            throw FormatError(b.name + ": duplicate key " + keys_b.label(b, row));
    RowMatch match;
    std::vector<std::uint8_t> used_b(b.rows, 0);
    for (std::uint64_t row = 0; row < a.rows; ++row) {
        const auto found = row_of_key.find(keys_a.key(a, row));
        if (found == row_of_key.end()) {
            if (match.only_a++ == 0) example_a = keys_a.label(a, row);
            continue;
        }
        if (used_b[found->second]) throw FormatError(a.name + ": duplicate key " + keys_a.label(a, row));
        used_b[found->second] = 1;
        match.rows_a.push_back(row);
        match.rows_b.push_back(found->second);
    }
    match.count = match.rows_a.size();
    match.only_b = b.rows - match.count;
    for (std::uint64_t row = 0; row < b.rows && match.only_b > 0; ++row)
        if (!used_b[row]) {
            example_b = keys_b.label(b, row);
            break;
        }
    return match;
}

ColumnResult compare_text_column(const Table& a, const Table& b, std::size_t column_a, std::size_t column_b,
                                 const RowMatch& match, const std::function<std::string(std::uint64_t)>& label_row) {
    ColumnResult result;
    result.name = a.header[column_a];
    result.text = true;
    for (std::uint64_t pair = 0; pair < match.count; ++pair) {
        ++result.stats.compared;
        if (a.cells[column_a][match.row_a(pair)] == b.cells[column_b][match.row_b(pair)]) continue;
        if (result.stats.beyond++ == 0) result.worst = label_row(pair);
    }
    return result;
}

void compare_column_distributions(const Table& a, const Table& b, std::size_t column_a, std::size_t column_b,
                                  const CompareOptions& options, Section& section) {
    DistributionOptions distribution = options.distribution;
    distribution.nan_equal = options.elements.nan_equal;
    const Tolerance tolerance = options.tolerances.lookup(a.header[column_a]);
    std::vector<double> values_a = a.numbers[column_a], values_b = b.numbers[column_b];
    section.distributions.push_back(
        {a.header[column_a], tolerance, compare_distributions(values_a, values_b, tolerance, distribution)});
}

}  // namespace

std::ptrdiff_t Table::column_index(std::string_view column) const {
    const auto found = column_of.find(std::string(column));
    return found == column_of.end() ? -1 : std::ptrdiff_t(found->second);
}

Table parse_table(std::string_view text, std::string name) {
    // A UTF-8 byte order mark (spreadsheet exports) would otherwise stick to the first name.
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    Table table;
    table.name = std::move(name);
    Delimiter delimiter = Delimiter::comma;
    std::size_t line_number = 0;
    for (std::size_t at = 0; at < text.size();) {
        const auto end = std::min(text.find('\n', at), text.size());
        const std::string_view line = text.substr(at, end - at);
        at = end + 1;
        ++line_number;
        const std::string_view content = trim(line);
        if (content.empty() || content.front() == '#') continue;
        if (table.header.empty()) {
            delimiter = detect_delimiter(content);
            table.header = split(content, delimiter);
            table.cells.resize(table.header.size());
            for (std::size_t c = 0; c < table.header.size(); ++c)
                if (!table.column_of.emplace(table.header[c], c).second)
                    throw FormatError(table.name + ": line " + std::to_string(line_number) + ": the header names column '" +
                                      table.header[c] + "' twice (columns " + std::to_string(table.column_of[table.header[c]] + 1) +
                                      " and " + std::to_string(c + 1) + ")");
            continue;
        }
        std::vector<std::string> fields = split(content, delimiter);
        if (fields.size() != table.header.size())
            throw FormatError(table.name + ": line " + std::to_string(line_number) + " has " +
                              std::to_string(fields.size()) + " fields, the header has " +
                              std::to_string(table.header.size()));
        for (std::size_t c = 0; c < fields.size(); ++c) table.cells[c].push_back(std::move(fields[c]));
        ++table.rows;
    }
    if (table.header.empty()) throw FormatError(table.name + ": no header row (an empty table?)");
    table.numbers.resize(table.header.size());
    table.numeric.assign(table.header.size(), true);
    for (std::size_t c = 0; c < table.header.size(); ++c) {
        table.numbers[c].resize(table.rows);
        for (std::uint64_t row = 0; row < table.rows && table.numeric[c]; ++row)
            table.numeric[c] = parse_number(table.cells[c][row], table.numbers[c][row]);
    }
    return table;
}

Table read_table(const std::string& path) {
    const std::unique_ptr<InputStream> input = InputStream::open(path);
    return parse_table(read_text(*input, text_table_limit_bytes(), "a table"), input->name());
}

Section compare_tables(const Table& a, const Table& b, const CompareOptions& options) {
    Section section;
    section.kind = "table";
    section.title = "table";
    section.rows_a = a.rows;
    section.rows_b = b.rows;

    RowMatch match;
    std::string example_a, example_b;
    const KeyedRows keys_a{key_columns(a, options.table_keys, "A")}, keys_b{key_columns(b, options.table_keys, "B")};
    const bool keyed = !options.table_keys.empty();
    if (options.stats) {
        section.matched_by = "distribution";
    } else if (keyed) {
        match = match_by_key(a, b, keys_a, keys_b, example_a, example_b);
        section.matched_by = "key";
        for (const std::string& key : options.table_keys) section.matched_by += " " + key;
    } else {
        match = match_by_index(a.rows, b.rows);
        section.matched_by = "row";
        if (match.only_a > 0) example_a = "row " + std::to_string(match.count + 1);
        if (match.only_b > 0) example_b = "row " + std::to_string(match.count + 1);
    }
    if (!options.stats) {
        const auto describe = [&](std::uint64_t count, const std::string& example, const char* side) {
            if (count == 0) return;
            (options.subset ? section.notes : section.mismatches)
                .push_back(std::to_string(count) + " row" + (count == 1 ? "" : "s") + " only in " + side +
                           " (first: " + example + ")");
        };
        describe(match.only_a, example_a, "A");
        describe(match.only_b, example_b, "B");
    }
    section.rows_compared = options.stats ? std::min(a.rows, b.rows) : match.count;
    section.rows_only_a = match.only_a;
    section.rows_only_b = match.only_b;
    // Rows are numbered from 1 as in an editor, below the header.
    const std::function<std::string(std::uint64_t)> label_row = [&](std::uint64_t pair) {
        return keyed ? keys_a.label(a, match.row_a(pair)) : "row " + std::to_string(match.row_a(pair) + 1);
    };

    const auto is_key = [&](const std::string& column) {
        return std::find(options.table_keys.begin(), options.table_keys.end(), column) != options.table_keys.end();
    };
    for (std::size_t column_a = 0; column_a < a.header.size(); ++column_a) {
        const std::string& name = a.header[column_a];
        if (!options.selected(name) || is_key(name)) continue;
        const auto found = b.column_index(name);
        if (found < 0) {
            section.mismatches.push_back("column '" + name + "' only in A");
            continue;
        }
        const auto column_b = std::size_t(found);
        const bool numeric = a.numeric[column_a] && b.numeric[column_b];
        if (options.stats) {
            if (numeric)
                compare_column_distributions(a, b, column_a, column_b, options, section);
            else
                section.notes.push_back("column '" + name + "' is text: not compared as a distribution");
            continue;
        }
        if (!numeric) {
            section.columns.push_back(compare_text_column(a, b, column_a, column_b, match, label_row));
            continue;
        }
        const std::vector<double>& values_a = a.numbers[column_a];
        const std::vector<double>& values_b = b.numbers[column_b];
        const Tolerance tolerance = options.tolerances.lookup(name);
        const DifferenceStats stats = compare_rows(
            match.count, 1, [&](std::uint64_t pair, double* out) { *out = values_a[match.row_a(pair)]; },
            [&](std::uint64_t pair, double* out) { *out = values_b[match.row_b(pair)]; }, tolerance,
            options.elements);
        section.columns.push_back(column_result(name, 1, tolerance, stats, label_row));
    }
    for (const std::string& name : b.header)
        if (options.selected(name) && !is_key(name) && a.column_index(name) < 0)
            section.mismatches.push_back("column '" + name + "' only in B");
    return section;
}

}  // namespace partikel::compare
