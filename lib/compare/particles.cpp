#include "compare/particles.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "compare/column.hpp"
#include "compare/match.hpp"
#include "base/error.hpp"

namespace partikel::compare {

namespace {

// One row of a column as doubles in SI units, so f32 against f64 and mm against m compare.
struct ColumnLoader {
    const fmt::Column& column;
    double si_factor;

    template <class T>
    void copy(std::uint64_t row, double* out) const {
        const T* values = reinterpret_cast<const T*>(column.raw().data()) + row * column.components();
        for (std::uint32_t k = 0; k < column.components(); ++k) out[k] = double(values[k]) * si_factor;
    }
    void operator()(std::uint64_t row, double* out) const {
        using fmt::ScalarType;
        switch (column.type()) {
            case ScalarType::u8:
                return copy<std::uint8_t>(row, out);
            case ScalarType::i32:
                return copy<std::int32_t>(row, out);
            case ScalarType::u32:
                return copy<std::uint32_t>(row, out);
            case ScalarType::i64:
                return copy<std::int64_t>(row, out);
            case ScalarType::u64:
                return copy<std::uint64_t>(row, out);
            case ScalarType::f32:
                return copy<float>(row, out);
            case ScalarType::f64:
                return copy<double>(row, out);
        }
    }
};

ColumnLoader loader(const fmt::Column& column) { return {column, column.unit().si_factor}; }

bool is_64_bit_integer(const fmt::Column& column) {
    return column.type() == fmt::ScalarType::i64 || column.type() == fmt::ScalarType::u64;
}

// Component k of a row of a 64-bit integer column, signed or not, exactly.
__int128 integer_at(const fmt::Column& column, std::uint64_t row, std::uint32_t k) {
    const std::size_t i = std::size_t(row) * column.components() + k;
    return column.type() == fmt::ScalarType::i64 ? __int128{column.values<std::int64_t>()[i]}
                                                 : __int128{column.values<std::uint64_t>()[i]};
}

DifferenceStats column_stats(const fmt::Column& a, const fmt::Column& b, const RowMatch& match,
                             const Tolerance& tolerance, const ElementOptions& options) {
    // Doubles hold integers exactly only up to 2^53: 64-bit keys (Morton codes, hashes, u64 x 3
    // cell coordinates) that differ in their low bits would compare equal, so 64-bit integers
    // compare exactly, component by component; the row's difference is the norm of them.
    if (is_64_bit_integer(a) && is_64_bit_integer(b) && a.unit().si_factor == b.unit().si_factor) {
        const double scale = a.unit().si_factor;
        const std::uint32_t components = a.components();
        return accumulate_rows(match.count, [&](DifferenceStats& stats, std::uint64_t begin, std::uint64_t end) {
            for (std::uint64_t pair = begin; pair < end; ++pair) {
                double difference_sq = 0.0, a_sq = 0.0, b_sq = 0.0, difference = 0.0;
                for (std::uint32_t k = 0; k < components; ++k) {
                    const __int128 value_a = integer_at(a, match.row_a(pair), k), value_b = integer_at(b, match.row_b(pair), k);
                    const double d = double(value_a > value_b ? value_a - value_b : value_b - value_a) * scale;
                    difference_sq += d * d;
                    difference = d;  // a scalar's, without a square root
                    a_sq += double(value_a) * scale * double(value_a) * scale;
                    b_sq += double(value_b) * scale * double(value_b) * scale;
                }
                if (components > 1) difference = std::sqrt(difference_sq);
                stats.add_exact(difference, std::sqrt(a_sq), std::sqrt(b_sq), pair, tolerance, options);
            }
        });
    }
    const ColumnLoader load_a = loader(a), load_b = loader(b);
    return compare_rows(
        match.count, a.components(), [&](std::uint64_t pair, double* out) { load_a(match.row_a(pair), out); },
        [&](std::uint64_t pair, double* out) { load_b(match.row_b(pair), out); }, tolerance, options);
}

// Why two columns of one name cannot be compared element by element, or nullopt.
std::optional<std::string> shape_mismatch(const fmt::Column& a, const fmt::Column& b) {
    if (a.components() != b.components())
        return "column '" + a.name() + "' has " + std::to_string(a.components()) + " components in A, " +
               std::to_string(b.components()) + " in B";
    if (a.unit().dimension != b.unit().dimension)
        return "column '" + a.name() + "' is in " + fmt::unit_symbol(a.unit()) + " in A, " +
               fmt::unit_symbol(b.unit()) + " in B";
    return std::nullopt;
}

void note_unmatched_rows(const RowMatch& match, bool by_id, const std::string& group, const CompareOptions& options,
                         Section& section) {
    const auto describe = [&](std::uint64_t count, std::optional<std::uint64_t> example, const char* side) {
        std::string text = std::to_string(count) + " particle" + (count == 1 ? "" : "s") + " only in " + side;
        if (example)
            text += by_id ? " (e.g. id " + std::to_string(*example) + ")"
                          : " (from index " + std::to_string(*example) + ")";
        (options.subset ? section.notes : section.mismatches).push_back(text);
    };
    // Without ids, rows are matched by index: different counts leave nothing sound to compare
    // (issue #4: an error unless --subset), so this is trouble, not a difference.
    if (!by_id && !options.subset && (match.only_a > 0 || match.only_b > 0))
        throw Error("group '" + group + "': " + std::to_string(match.only_a + match.count) + " particles in A, " +
                    std::to_string(match.only_b + match.count) +
                    " in B, and no id column to match them by (--subset compares the common index range)");
    if (match.only_a > 0) describe(match.only_a, match.example_only_a, "A");
    if (match.only_b > 0) describe(match.only_b, match.example_only_b, "B");
}

void compare_distributions_of(const fmt::Column& a, const fmt::Column& b, const std::string& group,
                              const CompareOptions& options, Section& section) {
    DistributionOptions distribution = options.distribution;
    distribution.nan_equal = options.elements.nan_equal;
    const Tolerance tolerance = options.tolerances.lookup(a.name(), group);
    const std::uint32_t components = a.components();
    std::vector<double> row_a(components), row_b(components), values_a(a.count()), values_b(b.count());
    const ColumnLoader load_a = loader(a), load_b = loader(b);
    for (std::uint32_t k = 0; k < components; ++k) {
        for (std::uint64_t row = 0; row < a.count(); ++row) {
            load_a(row, row_a.data());
            values_a[row] = row_a[k];
        }
        for (std::uint64_t row = 0; row < b.count(); ++row) {
            load_b(row, row_b.data());
            values_b[row] = row_b[k];
        }
        DistributionResult result{component_name(a.name(), k, components), tolerance, {}};
        result.comparison = compare_distributions(values_a, values_b, tolerance, distribution);
        section.distributions.push_back(std::move(result));
        values_a.resize(a.count());   // compare_distributions drops NaNs
        values_b.resize(b.count());
    }
}

// The names a frame offers the options: columns, alone and as GROUP/NAME.
void note_names(const fmt::Frame& frame, Report& report) {
    for (const fmt::Group& g : frame.groups())
        for (const fmt::Column& c : g.columns()) {
            report.names.insert(c.name());
            report.names.insert(g.name() + "/" + c.name());
        }
}

}  // namespace

Section compare_groups(const fmt::Group& a, const fmt::Group& b, const CompareOptions& options) {
    Section section;
    section.kind = "particles";
    section.group = a.name();
    section.rows_a = a.count();
    section.rows_b = b.count();

    const fmt::Column* id_a = a.find(options.id_column);
    const fmt::Column* id_b = b.find(options.id_column);
    const bool by_id = !options.stats && id_a && id_b;
    std::vector<std::uint64_t> ids_a;
    RowMatch match;
    if (options.stats) {
        section.matched_by = "distribution";
    } else if (by_id) {
        ids_a = id_values(*id_a);
        match = match_by_id(ids_a, id_values(*id_b), "A group '" + a.name() + "'", "B group '" + b.name() + "'");
        section.matched_by = options.id_column;
    } else {
        match = match_by_index(a.count(), b.count());
        section.matched_by = "index";
    }
    if (!options.stats) note_unmatched_rows(match, by_id, a.name(), options, section);
    // A distribution comparison uses every row of both sides.
    section.rows_compared = options.stats ? std::min(a.count(), b.count()) : match.count;
    section.rows_only_a = options.stats ? 0 : match.only_a;
    section.rows_only_b = options.stats ? 0 : match.only_b;
    const auto label_row = [&](std::uint64_t pair) {
        return by_id ? options.id_column + " " + std::to_string(ids_a[match.row_a(pair)])
                     : "index " + std::to_string(match.row_a(pair));
    };

    for (const fmt::Column& column_a : a.columns()) {
        const std::string& name = column_a.name();
        if (!options.selected(name) || ((by_id || options.stats) && name == options.id_column)) continue;
        const fmt::Column* column_b = b.find(name);
        if (!column_b) {
            section.mismatches.push_back("column '" + name + "' only in A");
            continue;
        }
        if (const auto mismatch = shape_mismatch(column_a, *column_b)) {
            section.mismatches.push_back(*mismatch);
            continue;
        }
        if (options.stats) {
            compare_distributions_of(column_a, *column_b, a.name(), options, section);
            continue;
        }
        const Tolerance tolerance = options.tolerances.lookup(name, a.name());
        section.columns.push_back(column_result(name, column_a.components(), tolerance,
                                                column_stats(column_a, *column_b, match, tolerance, options.elements),
                                                label_row));
    }
    for (const fmt::Column& column_b : b.columns())
        if (options.selected(column_b.name()) && !a.find(column_b.name()) &&
            !((by_id || options.stats) && column_b.name() == options.id_column))
            section.mismatches.push_back("column '" + column_b.name() + "' only in B");
    return section;
}

void compare_frames(const fmt::Frame& a, const fmt::Frame& b, const CompareOptions& options, Report& report) {
    const std::string where = "step " + std::to_string(a.step);
    for (const fmt::Group& group_a : a.groups()) {
        const fmt::Group* group_b = b.find_group(group_a.name());
        if (!group_b) {
            ++report.coverage.groups_only_a;
            (options.subset ? report.notes : report.mismatches).push_back(where + ": group '" + group_a.name() +
                                                                          "' only in A");
            continue;
        }
        ++report.coverage.groups_compared;
        Section section = compare_groups(group_a, *group_b, options);
        section.title = where + " group " + group_a.name();
        section.step = a.step;
        section.time_a = a.time * a.time_unit_si;
        section.time_b = b.time * b.time_unit_si;
        if (a.step != b.step)
            section.notes.push_back("paired by time: step " + std::to_string(a.step) + " in A, " +
                                    std::to_string(b.step) + " in B");
        else if (std::fabs(*section.time_a - *section.time_b) > options.time_tolerance_s)
            section.notes.push_back("paired by step: t = " + format_number(*section.time_a, 9) + " s in A, " +
                                    format_number(*section.time_b, 9) + " s in B");
        report.sections.push_back(std::move(section));
    }
    for (const fmt::Group& group_b : b.groups())
        if (!a.find_group(group_b.name())) {
            ++report.coverage.groups_only_b;
            (options.subset ? report.notes : report.mismatches).push_back(where + ": group '" + group_b.name() +
                                                                          "' only in B");
        }
}

namespace {

// Reads one side's frames and checks their keys never decrease, which the merge relies on.
class OrderedFrames {
public:
    OrderedFrames(fmt::FrameReader& reader, const CompareOptions& options) : reader_(reader), options_(options) {
        advance();
    }

    const std::optional<fmt::Frame>& current() const { return frame_; }
    double key() const { return key_of(*frame_); }
    void advance() {
        // Only the key survives: the previous frame is freed before the next one is read.
        const bool had_previous = frame_.has_value();
        const double previous_key = had_previous ? key() : 0.0;
        const std::string previous_text = had_previous ? key_text(*frame_) : std::string();
        frame_.reset();
        frame_ = reader_.next();
        if (frame_ && had_previous && key() < previous_key)
            throw FormatError(reader_.name() + ": frames are not in increasing " + key_name() + " order (" +
                              key_text(*frame_) + " after " + previous_text +
                              "); compare-results pairs frames by merging both inputs in order");
    }
    std::string key_text(const fmt::Frame& frame) const {
        return options_.frame_key == FrameKey::step ? "step " + std::to_string(frame.step)
                                                    : "t = " + format_number(key_of(frame), 9) + " s";
    }

private:
    double key_of(const fmt::Frame& frame) const {
        return options_.frame_key == FrameKey::step ? double(frame.step) : frame.time * frame.time_unit_si;
    }
    std::string key_name() const { return options_.frame_key == FrameKey::step ? "step" : "time"; }

    fmt::FrameReader& reader_;
    const CompareOptions& options_;
    std::optional<fmt::Frame> frame_;
};

}  // namespace

void compare_frame_streams(fmt::FrameReader& a, fmt::FrameReader& b, const CompareOptions& options, Report& report,
                           const FrameProgress& on_frame) {
    OrderedFrames frames_a(a, options), frames_b(b, options);
    std::uint64_t frames_done_a = 0;
    const auto advance = [&](OrderedFrames& side) {
        side.advance();
        if (&side == &frames_a && on_frame) on_frame(++frames_done_a, a.frame_count());
    };
    const auto only_on = [&](OrderedFrames& side, const char* name) {
        ++(&side == &frames_a ? report.coverage.frames_only_a : report.coverage.frames_only_b);
        (options.subset ? report.notes : report.mismatches)
            .push_back(side.key_text(*side.current()) + ": frame only in " + std::string(name));
        advance(side);
    };
    while (frames_a.current() || frames_b.current()) {
        for (const OrderedFrames* side : {&frames_a, &frames_b})
            if (side->current()) note_names(*side->current(), report);
        if (!frames_b.current()) {
            only_on(frames_a, "A");
            continue;
        }
        if (!frames_a.current()) {
            only_on(frames_b, "B");
            continue;
        }
        const double key_a = frames_a.key(), key_b = frames_b.key();
        const bool same =
            options.frame_key == FrameKey::step ? key_a == key_b : std::fabs(key_a - key_b) <= options.time_tolerance_s;
        if (same) {
            ++report.coverage.frames_compared;
            compare_frames(*frames_a.current(), *frames_b.current(), options, report);
            advance(frames_a);
            advance(frames_b);
        } else if (key_a < key_b) {
            only_on(frames_a, "A");
        } else {
            only_on(frames_b, "B");
        }
    }
}

}  // namespace partikel::compare
