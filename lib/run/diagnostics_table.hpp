// The diagnostics table of a run (--diag): one row per output, as TSV (a header line of column
// names, which carry their units: "time_s", "kinetic_J"), CSV, or JSON lines (one object per row
// with the names as keys, and a first line {"columns": [...], "units": [...]} giving each
// column's unit symbol). Written through a temporary file and renamed when closed; a row is
// written whole or not at all, so a table cut short by an interrupt ends on a complete row.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/io.hpp"
#include "run/run_loop.hpp"
#include "run/simulation.hpp"

namespace partikel::run {

class DiagnosticsTable {
public:
    // An empty path: no table (write() does nothing).
    DiagnosticsTable(const std::string& path, TableFormat format, std::vector<DiagnosticsColumn> columns);
    bool enabled() const { return out_ != nullptr; }
    // One row; `step` identifies it: a second row for the same step is skipped.
    void write(std::int64_t step, const std::vector<double>& values);
    // Flush and rename into place (also after an error: the rows so far are kept).
    void close();

    // A number as the table prints it (integers exactly, reals with 9 significant digits).
    static std::string format_value(double v);

private:
    std::unique_ptr<OutputStream> out_;
    TableFormat format_;
    std::vector<DiagnosticsColumn> columns_;
    std::int64_t last_step_ = -1;
    bool any_row_ = false;
};

}  // namespace partikel::run
