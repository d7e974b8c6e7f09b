// The result of a comparison, and its two renderings: an aligned table for people and JSON
// for machines.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "compare/distribution.hpp"
#include "compare/metrics.hpp"
#include "compare/tolerance.hpp"

namespace partikel::compare {

// One column (or table column, or image channel) compared element by element.
struct ColumnResult {
    std::string name;
    std::uint32_t components = 1;
    Tolerance tolerance;
    DifferenceStats stats;
    std::string worst;                   // "id 42", "row 7", "turn=12", "pixel (3,5)"; empty if none
    bool text = false;                   // a text column: only `beyond` (unequal cells) is meaningful
    std::optional<double> psnr_db;       // images only; +inf when identical
    std::optional<double> min_psnr_db;   // images judged by PSNR instead of per-pixel tolerance
    bool pass() const;
};

// One column component compared as a distribution (--stats).
struct DistributionResult {
    std::string name;   // "density", "position.x", "stress[4]"
    Tolerance tolerance;
    DistributionComparison comparison;
};

// One unit of comparison: a frame's group, a table, an image.
struct Section {
    std::string kind;                   // "particles", "table", "image"
    std::string title;                  // "step 10 group fluid", "table", "image"
    std::optional<std::int64_t> step;   // particles
    std::optional<double> time_a, time_b;
    std::string group;
    std::string matched_by;   // "id", "index", "key turn", "pixel"
    std::uint64_t rows_a = 0, rows_b = 0;
    // Rows (particles, table rows, pixels) paired and compared, and those on one side only.
    std::uint64_t rows_compared = 0, rows_only_a = 0, rows_only_b = 0;
    std::vector<ColumnResult> columns;
    std::vector<DistributionResult> distributions;
    std::vector<std::string> mismatches;   // structural differences (missing columns, shapes)
    std::vector<std::string> notes;        // information that is not a difference
    bool pass() const;
};

// What a particle comparison covered: frames and groups paired, and those on one side only.
struct Coverage {
    std::uint64_t frames_compared = 0, frames_only_a = 0, frames_only_b = 0;
    std::uint64_t groups_compared = 0, groups_only_a = 0, groups_only_b = 0;
};

struct Report {
    std::string name_a, name_b;
    std::string kind;   // "particles", "table", "image"
    bool subset = false;                   // one-sided parts were skipped (notes), not differences
    Coverage coverage;
    std::vector<Section> sections;
    std::vector<std::string> mismatches;   // differences above sections (frames on one side only)
    std::vector<std::string> notes;        // what --subset skipped above sections
    // Every column or channel name either input has (particles: also GROUP/NAME), for checking
    // the names --columns, --ignore, --tol and --id-column give; not printed.
    std::set<std::string> names;
    bool equal() const;
    // Values compared: rows times the columns compared in them, distributions compared.
    std::uint64_t values_compared() const;
    // Whether no value of either input was compared with one of the other (rows were paired
    // but every column ignored, or there were none) -- except that inputs empty on both sides
    // (frames of empty groups, tables without rows) compare as equal.
    bool nothing_compared() const;
    // Nothing compared and no difference found: neither EQUAL nor DIFFERENT (exit status 2).
    bool unjudged() const;
    // "compared 11 frames, 22 groups, 12980 particles; only in A (skipped: --subset): 2 frames"
    std::string coverage_text() const;
};

// With differences_only, sections that pass are left out (the verdict still counts them).
// "%.<digits>g", with "inf", "-inf" and "nan" for the non-finite values.
std::string format_number(double value, int significant_digits = 4);

void print_text(std::ostream& out, const Report& report, bool differences_only = false);
void print_json(std::ostream& out, const Report& report);

}  // namespace partikel::compare
