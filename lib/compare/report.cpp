#include "compare/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "base/log.hpp"
#include "formats/frame.hpp"

namespace partikel::compare {

std::string format_number(double value, int significant_digits) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char text[40];
    std::snprintf(text, sizeof text, "%.*g", significant_digits, value);
    return text;
}

bool ColumnResult::pass() const {
    if (min_psnr_db) return stats.nan_mismatch == 0 && psnr_db && *psnr_db >= *min_psnr_db;
    return stats.beyond == 0;
}

bool Section::pass() const {
    return mismatches.empty() &&
           std::all_of(columns.begin(), columns.end(), [](const ColumnResult& c) { return c.pass(); }) &&
           std::all_of(distributions.begin(), distributions.end(),
                       [](const DistributionResult& d) { return d.comparison.pass(); });
}

bool Report::equal() const {
    return mismatches.empty() && !nothing_compared() &&
           std::all_of(sections.begin(), sections.end(), [](const Section& s) { return s.pass(); });
}

std::uint64_t Report::values_compared() const {
    std::uint64_t values = 0;
    for (const Section& s : sections) {
        for (const ColumnResult& c : s.columns) values += c.stats.compared;
        for (const DistributionResult& d : s.distributions)
            values += d.comparison.a.count + d.comparison.a.nan_count + d.comparison.b.count + d.comparison.b.nan_count;
    }
    return values;
}

bool Report::nothing_compared() const {
    std::uint64_t rows = 0;
    for (const Section& s : sections) rows += s.rows_a + s.rows_b;
    const bool one_sided = coverage.frames_only_a + coverage.frames_only_b + coverage.groups_only_a +
                               coverage.groups_only_b > 0;
    // Empty groups on both sides compare as equal; rows or frames that pair with nothing do not,
    // nor rows of which no column was compared.
    return values_compared() == 0 && (rows > 0 || one_sided || (kind == "particles" && coverage.frames_compared == 0));
}

bool Report::unjudged() const {
    return nothing_compared() && mismatches.empty() &&
           std::all_of(sections.begin(), sections.end(), [](const Section& s) { return s.mismatches.empty(); });
}

namespace {

std::string count_of(std::uint64_t n, const char* singular, const char* plural) {
    return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

}  // namespace

std::string Report::coverage_text() const {
    const char* row = kind == "particles" ? "particle" : kind == "table" ? "row" : "pixel";
    const char* rows = kind == "particles" ? "particles" : kind == "table" ? "rows" : "pixels";
    std::uint64_t compared = 0, only_a = 0, only_b = 0;
    for (const Section& s : sections) compared += s.rows_compared, only_a += s.rows_only_a, only_b += s.rows_only_b;
    std::string text = "compared ";
    if (kind == "particles")
        text += count_of(coverage.frames_compared, "frame", "frames") + ", " +
                count_of(coverage.groups_compared, "group", "groups") + ", ";
    text += count_of(compared, row, rows);
    const auto one_side = [&](const char* side, std::uint64_t frames, std::uint64_t groups, std::uint64_t n) {
        std::vector<std::string> parts;
        if (frames) parts.push_back(count_of(frames, "frame", "frames"));
        if (groups) parts.push_back(count_of(groups, "group", "groups"));
        if (n) parts.push_back(count_of(n, row, rows));
        if (parts.empty()) return;
        text += std::string("; only in ") + side + (subset ? " (skipped: --subset): " : ": ");
        for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
    };
    one_side("A", coverage.frames_only_a, coverage.groups_only_a, only_a);
    one_side("B", coverage.frames_only_b, coverage.groups_only_b, only_b);
    return text;
}

namespace {

std::string status(bool pass) { return pass ? "ok" : "DIFF"; }

// Columns padded to their widest cell, two spaces apart, indented by two.
void print_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width;
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (width.size() <= c) width.push_back(0);
            width[c] = std::max(width[c], row[c].size());
        }
    for (const auto& row : rows) {
        std::string line = " ";
        for (std::size_t c = 0; c < row.size(); ++c) {
            line += ' ';
            line += row[c];
            if (c + 1 < row.size()) line.append(width[c] - row[c].size() + 1, ' ');
        }
        out << line << '\n';
    }
}

void print_columns(std::ostream& out, const std::vector<ColumnResult>& columns) {
    const bool images =
        std::any_of(columns.begin(), columns.end(), [](const ColumnResult& c) { return c.psnr_db.has_value(); });
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"column", "n", "max_abs", "max_rel", images ? "mean_abs" : "rms", images ? "rmse" : "rel_l2",
                    "beyond", "nan", "worst", "atol", "rtol", "status"});
    if (images) rows.front().insert(rows.front().end() - 1, "psnr_db");
    for (const ColumnResult& c : columns) {
        const DifferenceStats& s = c.stats;
        // A vector column's row covers all its components: "position.xyz", "stress.xx..xy".
        const auto parts = fmt::component_names(c.components);
        const std::string name = c.components > 1 ? c.name + "." + (c.components <= 3 ? std::string("xyz").substr(0, c.components)
                                                                                      : parts.front() + ".." + parts.back())
                                                   : c.name;
        std::vector<std::string> row;
        if (c.text)
            row = {name,
                   std::to_string(s.compared),
                   "-",
                   "-",
                   "-",
                   "-",
                   std::to_string(s.beyond),
                   "-",
                   c.worst.empty() ? "-" : c.worst,
                   "-",
                   "-",
                   status(c.pass())};
        else
            row = {name,
                   std::to_string(s.compared),
                   format_number(s.max_abs),
                   format_number(s.max_rel),
                   format_number(images ? s.mean_abs() : s.rms()),
                   format_number(images ? s.rms() : s.rel_l2()),
                   std::to_string(s.beyond),
                   std::to_string(s.nan_mismatch),
                   c.worst.empty() ? "-" : c.worst,
                   format_number(c.tolerance.atol),
                   format_number(c.tolerance.rtol),
                   status(c.pass())};
        if (images) row.insert(row.end() - 1, c.psnr_db ? format_number(*c.psnr_db) : "-");
        rows.push_back(std::move(row));
    }
    print_aligned(out, rows);
}

double max_quantile_difference(const DistributionComparison& d) {
    double worst = 0.0;
    for (std::size_t q = 0; q < d.a.quantiles.size() && q < d.b.quantiles.size(); ++q)
        worst = std::max(worst, std::fabs(d.a.quantiles[q] - d.b.quantiles[q]));
    return worst;
}

void print_distributions(std::ostream& out, const std::vector<DistributionResult>& distributions) {
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"column", "n_a", "n_b", "mean_a", "mean_b", "std_a", "std_b", "max_q_diff", "ks_D", "ks_max",
                    "ks_p", "status"});
    for (const DistributionResult& r : distributions) {
        const DistributionComparison& d = r.comparison;
        rows.push_back({r.name, std::to_string(d.a.count), std::to_string(d.b.count), format_number(d.a.mean),
                        format_number(d.b.mean), format_number(d.a.std), format_number(d.b.std),
                        format_number(max_quantile_difference(d)), format_number(d.ks_statistic),
                        format_number(d.ks_threshold), format_number(d.ks_p_value), status(d.pass())});
    }
    print_aligned(out, rows);
}

std::string section_heading(const Section& s) {
    std::string heading = s.title;
    if (s.time_a) {
        heading += ", t = " + format_number(*s.time_a);
        if (s.time_b && *s.time_b != *s.time_a) heading += " / " + format_number(*s.time_b);
    }
    heading += ": " + std::to_string(s.rows_a) + (s.rows_a == 1 ? " row" : " rows") + " in A, " +
               std::to_string(s.rows_b) + " in B";
    if (!s.matched_by.empty()) heading += ", matched by " + s.matched_by;
    return heading;
}

}  // namespace

void print_text(std::ostream& out, const Report& report, bool differences_only) {
    out << "A: " << report.name_a << "\nB: " << report.name_b << "\n";
    std::size_t failing_sections = 0;
    for (const Section& s : report.sections) {
        failing_sections += s.pass() ? 0 : 1;
        if (differences_only && s.pass()) continue;
        out << '\n' << section_heading(s) << '\n';
        if (!s.columns.empty()) print_columns(out, s.columns);
        if (!s.distributions.empty()) print_distributions(out, s.distributions);
        for (const std::string& note : s.notes) out << "  note: " << note << '\n';
        for (const std::string& mismatch : s.mismatches) out << "  differs: " << mismatch << '\n';
    }
    if (!report.mismatches.empty() || !report.notes.empty()) out << '\n';
    // One-sided frames and groups: all differences, and the first notes (a long run against a
    // short reference would otherwise list every frame).
    constexpr std::size_t kNotesShown = 20;
    for (std::size_t i = 0; i < report.notes.size() && i < kNotesShown; ++i) out << "note: " << report.notes[i] << '\n';
    if (report.notes.size() > kNotesShown)
        out << "note: ... and " << report.notes.size() - kNotesShown << " more (--json lists all)\n";
    for (const std::string& mismatch : report.mismatches) out << "differs: " << mismatch << '\n';
    out << '\n' << report.coverage_text() << '\n';
    if (report.unjudged())
        out << "NOTHING COMPARED: no " << (report.kind == "particles" ? "frame, group or particle" : "row or pixel")
            << " of A pairs with one of B\n";
    else if (report.equal())
        out << "EQUAL within tolerance (" << report.sections.size() << " " << report.kind << " section"
            << (report.sections.size() == 1 ? "" : "s") << " compared)\n";
    else
        out << "DIFFERENT: " << failing_sections << " of " << report.sections.size() << " sections differ"
            << (report.mismatches.empty() ? "" : ", " + std::to_string(report.mismatches.size()) + " unmatched")
            << '\n';
}

namespace {

class JsonWriter {
public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}

    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }
    JsonWriter& key(std::string_view name) {
        comma();
        string(name);
        out_ << ':';
        after_key_ = true;
        return *this;
    }
    void value(std::string_view text) {
        comma();
        string(text);
    }
    void value(bool flag) {
        comma();
        out_ << (flag ? "true" : "false");
    }
    void value(std::uint64_t n) {
        comma();
        out_ << n;
    }
    void value(std::int64_t n) {
        comma();
        out_ << n;
    }
    void value(std::uint32_t n) { value(std::uint64_t(n)); }
    // JSON has no infinities or NaN: they are written as the strings "inf", "-inf", "nan".
    void value(double x) {
        if (!std::isfinite(x)) return value(std::string_view(format_number(x)));
        comma();
        char text[32];
        std::snprintf(text, sizeof text, "%.17g", x);
        out_ << text;
    }
    void strings(const std::vector<std::string>& items) {
        begin_array();
        for (const std::string& item : items) value(std::string_view(item));
        end_array();
    }

private:
    void open(char bracket) {
        comma();
        out_ << bracket;
        first_ = true;
    }
    void close(char bracket) {
        out_ << bracket;
        first_ = false;
    }
    void comma() {
        if (after_key_)
            after_key_ = false;
        else if (!first_)
            out_ << ',';
        first_ = false;
    }
    void string(std::string_view text) { out_ << json_quote(text); }

    std::ostream& out_;
    bool first_ = true;
    bool after_key_ = false;
};

void write_column(JsonWriter& json, const ColumnResult& c) {
    const DifferenceStats& s = c.stats;
    json.begin_object();
    json.key("name").value(std::string_view(c.name));
    json.key("components").value(c.components);
    json.key("text").value(c.text);
    json.key("atol").value(c.tolerance.atol);
    json.key("rtol").value(c.tolerance.rtol);
    json.key("compared").value(s.compared);
    json.key("beyond").value(s.beyond);
    json.key("nan_mismatch").value(s.nan_mismatch);
    if (!c.text) {
        json.key("max_abs").value(s.max_abs);
        json.key("max_rel").value(s.max_rel);
        json.key("mean_abs").value(s.mean_abs());
        json.key("rms").value(s.rms());
        json.key("rel_l2").value(s.rel_l2());
    }
    json.key("worst").value(std::string_view(c.worst));
    if (c.psnr_db) json.key("psnr_db").value(*c.psnr_db);
    if (c.min_psnr_db) json.key("min_psnr_db").value(*c.min_psnr_db);
    json.key("pass").value(c.pass());
    json.end_object();
}

void write_summary(JsonWriter& json, const DistributionSummary& s, const std::vector<double>& probabilities) {
    json.begin_object();
    json.key("count").value(s.count);
    json.key("nan_count").value(s.nan_count);
    json.key("mean").value(s.mean);
    json.key("std").value(s.std);
    json.key("min").value(s.min);
    json.key("max").value(s.max);
    json.key("quantiles");
    json.begin_array();
    for (std::size_t q = 0; q < s.quantiles.size() && q < probabilities.size(); ++q) {
        json.begin_object();
        json.key("p").value(probabilities[q]);
        json.key("value").value(s.quantiles[q]);
        json.end_object();
    }
    json.end_array();
    json.end_object();
}

void write_distribution(JsonWriter& json, const DistributionResult& r) {
    const DistributionComparison& d = r.comparison;
    json.begin_object();
    json.key("name").value(std::string_view(r.name));
    json.key("atol").value(r.tolerance.atol);
    json.key("rtol").value(r.tolerance.rtol);
    json.key("a");
    write_summary(json, d.a, d.probabilities);
    json.key("b");
    write_summary(json, d.b, d.probabilities);
    json.key("ks_statistic").value(d.ks_statistic);
    json.key("ks_p_value").value(d.ks_p_value);
    json.key("ks_threshold").value(d.ks_threshold);
    json.key("moments_judged").value(d.moments_judged);
    json.key("pass").value(d.pass());
    json.end_object();
}

void write_section(JsonWriter& json, const Section& s) {
    json.begin_object();
    json.key("kind").value(std::string_view(s.kind));
    json.key("title").value(std::string_view(s.title));
    if (s.step) json.key("step").value(*s.step);
    if (s.time_a) json.key("time_a").value(*s.time_a);
    if (s.time_b) json.key("time_b").value(*s.time_b);
    if (!s.group.empty()) json.key("group").value(std::string_view(s.group));
    json.key("matched_by").value(std::string_view(s.matched_by));
    json.key("rows_a").value(s.rows_a);
    json.key("rows_b").value(s.rows_b);
    json.key("pass").value(s.pass());
    json.key("mismatches").strings(s.mismatches);
    json.key("notes").strings(s.notes);
    json.key("columns");
    json.begin_array();
    for (const ColumnResult& c : s.columns) write_column(json, c);
    json.end_array();
    json.key("distributions");
    json.begin_array();
    for (const DistributionResult& d : s.distributions) write_distribution(json, d);
    json.end_array();
    json.end_object();
}

}  // namespace

void print_json(std::ostream& out, const Report& report) {
    JsonWriter json(out);
    json.begin_object();
    json.key("a").value(std::string_view(report.name_a));
    json.key("b").value(std::string_view(report.name_b));
    json.key("kind").value(std::string_view(report.kind));
    json.key("equal").value(report.equal());
    json.key("mismatches").strings(report.mismatches);
    json.key("notes").strings(report.notes);
    json.key("nothing_compared").value(report.nothing_compared());
    json.key("compared");
    json.begin_object();
    json.key("frames").value(report.coverage.frames_compared);
    json.key("groups").value(report.coverage.groups_compared);
    std::uint64_t rows = 0, only_a = 0, only_b = 0;
    for (const Section& s : report.sections) rows += s.rows_compared, only_a += s.rows_only_a, only_b += s.rows_only_b;
    json.key("rows").value(rows);
    json.end_object();
    for (const auto& [key, frames, groups, n] :
         {std::tuple{"only_a", report.coverage.frames_only_a, report.coverage.groups_only_a, only_a},
          std::tuple{"only_b", report.coverage.frames_only_b, report.coverage.groups_only_b, only_b}}) {
        json.key(key);
        json.begin_object();
        json.key("frames").value(frames);
        json.key("groups").value(groups);
        json.key("rows").value(n);
        json.end_object();
    }
    json.key("sections");
    json.begin_array();
    for (const Section& s : report.sections) write_section(json, s);
    json.end_array();
    json.end_object();
    out << '\n';
}

}  // namespace partikel::compare
