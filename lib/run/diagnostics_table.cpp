#include "run/diagnostics_table.hpp"

#include <cmath>
#include <cstdio>

#include "base/error.hpp"
#include "base/log.hpp"

namespace partikel::run {

TableFormat parse_table_format(const std::string& name) {
    if (name == "tsv") return TableFormat::tsv;
    if (name == "csv") return TableFormat::csv;
    if (name == "jsonl" || name == "json") return TableFormat::jsonl;
    throw UsageError("--diag-format: expected tsv, csv or jsonl, got '" + name + "'");
}

std::string DiagnosticsTable::format_value(double v) {
    char text[40];
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.007199254740992e15)
        std::snprintf(text, sizeof text, "%.0f", v);
    else
        std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}

DiagnosticsTable::DiagnosticsTable(const std::string& path, TableFormat format, std::vector<DiagnosticsColumn> columns)
    : format_(format), columns_(std::move(columns)) {
    if (path.empty()) return;
    out_ = OutputStream::open(path, false);
    std::string header;
    if (format_ == TableFormat::jsonl) {
        std::string names, units;
        for (const auto& c : columns_) {
            names += (names.empty() ? "" : ",") + json_quote(c.name);
            units += (units.empty() ? "" : ",") + json_quote(unit_symbol(c.unit));
        }
        header = "{\"columns\":[" + names + "],\"units\":[" + units + "]}\n";
    } else {
        const char sep = format_ == TableFormat::csv ? ',' : '\t';
        for (std::size_t i = 0; i < columns_.size(); ++i) header += (i ? std::string(1, sep) : "") + columns_[i].name;
        header += '\n';
    }
    out_->write(header.data(), header.size());
}

void DiagnosticsTable::write(std::int64_t step, const std::vector<double>& values) {
    if (!out_) return;
    if (any_row_ && step == last_step_) return;
    if (values.size() != columns_.size())
        throw UsageError("diagnostics: " + std::to_string(values.size()) + " values for " +
                         std::to_string(columns_.size()) + " columns");
    std::string row;
    if (format_ == TableFormat::jsonl) {
        row = "{";
        for (std::size_t i = 0; i < values.size(); ++i) {
            // JSON has no NaN or infinity: write them as null.
            const std::string v = std::isfinite(values[i]) ? format_value(values[i]) : "null";
            row += (i ? "," : "") + json_quote(columns_[i].name) + ":" + v;
        }
        row += "}\n";
    } else {
        const char sep = format_ == TableFormat::csv ? ',' : '\t';
        for (std::size_t i = 0; i < values.size(); ++i) row += (i ? std::string(1, sep) : "") + format_value(values[i]);
        row += '\n';
    }
    out_->write(row.data(), row.size());
    out_->flush();
    last_step_ = step;
    any_row_ = true;
}

void DiagnosticsTable::close() {
    if (!out_) return;
    auto out = std::move(out_);
    out->commit();
}

}  // namespace partikel::run
