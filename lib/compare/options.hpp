// What compare-results is asked to do: tolerances, matching rules, modes.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compare/distribution.hpp"
#include "compare/metrics.hpp"
#include "compare/tolerance.hpp"

namespace partikel::compare {

enum class FrameKey { step, time };

struct CompareOptions {
    ToleranceTable tolerances;             // --atol/--rtol and --tol NAME=ATOL:RTOL
    ElementOptions elements;               // --nan-equal, --rel-floor
    bool subset = false;                   // compare what both sides have; missing is no difference
    FrameKey frame_key = FrameKey::step;   // --match step|time
    double time_tolerance_s = 1e-9;        // --match time: |t_a - t_b| in seconds
    std::string id_column = "id";          // particles pair by this column when both have it
    bool id_column_given = false;          // --id-column was given: its column must exist
    std::vector<std::string> table_keys;   // --key: table rows pair by these columns
    bool stats = false;                    // distributions instead of element by element
    DistributionOptions distribution;
    std::optional<double> min_psnr_db;         // images: judge channels by PSNR instead
    std::vector<std::string> only_columns;     // --columns: compare just these (empty: all)
    std::vector<std::string> ignore_columns;   // --ignore

    bool selected(std::string_view column) const;
    // UsageError for a name of --columns, --ignore, --tol or --id-column that is not in `names`
    // (every column or channel of both inputs): a typo must not compare nothing and say EQUAL.
    void check_names(const std::set<std::string>& names, std::string_view kind) const;
};

}  // namespace partikel::compare
