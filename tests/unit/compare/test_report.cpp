// The text and JSON renderings of a report (lib/compare/report.hpp).
#include <doctest/doctest.h>

#include <limits>
#include <sstream>

#include "compare/report.hpp"

using namespace partikel::compare;

namespace {

Report sample_report(bool pass) {
    Report report;
    report.name_a = "run \"new\".pks";
    report.name_b = "ref.pks";
    report.kind = "particles";
    Section section;
    section.kind = "particles";
    section.title = "step 10 group fluid";
    section.step = 10;
    section.time_a = 0.1;
    section.time_b = 0.1;
    section.group = "fluid";
    section.matched_by = "id";
    section.rows_a = section.rows_b = section.rows_compared = 3;
    ColumnResult density;
    density.name = "density";
    density.tolerance = {1e-3, 0.0};
    const double a[] = {1000.0, 1001.0, 1002.0}, b[] = {1000.0, 1001.0, pass ? 1002.0 : 1002.5};
    for (std::uint64_t row = 0; row < 3; ++row) density.stats.add_row(&a[row], &b[row], 1, row, density.tolerance, {});
    density.worst = "id 7";
    section.columns.push_back(density);
    ColumnResult image_channel;
    image_channel.name = "Z";
    image_channel.psnr_db = std::numeric_limits<double>::infinity();
    section.columns.push_back(image_channel);
    report.sections.push_back(section);
    report.coverage.frames_compared = report.coverage.groups_compared = 1;
    return report;
}

}  // namespace

TEST_CASE("the text report ends with the verdict") {
    std::ostringstream equal, different;
    print_text(equal, sample_report(true));
    print_text(different, sample_report(false));
    CHECK(equal.str().find("EQUAL within tolerance (1 particles section compared)") != std::string::npos);
    CHECK(different.str().find("DIFFERENT: 1 of 1 sections differ") != std::string::npos);
    CHECK(different.str().find("step 10 group fluid, t = 0.1: 3 rows in A, 3 in B, matched by id") !=
          std::string::npos);
    CHECK(different.str().find("id 7") != std::string::npos);
    CHECK(different.str().find("DIFF\n") != std::string::npos);
}

TEST_CASE("the text report says what was compared and what was skipped") {
    Report report = sample_report(true);
    report.subset = true;
    report.coverage.frames_only_a = 2;
    report.coverage.groups_only_b = 1;
    report.sections[0].rows_only_b = 5;
    report.notes = {"step 20: frame only in A", "step 30: frame only in A", "step 10: group 'walls' only in B"};
    std::ostringstream text;
    print_text(text, report);
    CHECK(text.str().find("compared 1 frame, 1 group, 3 particles; only in A (skipped: --subset): 2 frames; "
                          "only in B (skipped: --subset): 1 group, 5 particles\n") != std::string::npos);
    CHECK(text.str().find("note: step 20: frame only in A\n") != std::string::npos);
    CHECK(text.str().find("note: step 10: group 'walls' only in B\n") != std::string::npos);
    CHECK(text.str().find("EQUAL within tolerance") != std::string::npos);
}

TEST_CASE("a report that compared nothing is neither EQUAL nor DIFFERENT") {
    // --subset over inputs with no frame in common: every frame is a note, nothing a difference.
    Report report;
    report.kind = "particles";
    report.subset = true;
    report.coverage.frames_only_a = 1;
    report.coverage.frames_only_b = 2;
    report.notes = {"step 1: frame only in A"};
    CHECK(report.nothing_compared());
    CHECK(report.unjudged());
    CHECK_FALSE(report.equal());
    std::ostringstream text, json;
    print_text(text, report);
    print_json(json, report);
    CHECK(text.str().find("NOTHING COMPARED") != std::string::npos);
    CHECK(text.str().find("EQUAL") == std::string::npos);
    CHECK(json.str().find("\"nothing_compared\":true") != std::string::npos);
    CHECK(json.str().find("\"equal\":false") != std::string::npos);
    // Two empty inputs compare nothing too.
    Report empty;
    empty.kind = "particles";
    CHECK(empty.unjudged());
    // Without --subset the one-sided frames are differences: DIFFERENT, not trouble.
    report.subset = false;
    report.mismatches = std::move(report.notes);
    report.notes.clear();
    CHECK_FALSE(report.unjudged());
    CHECK_FALSE(report.equal());
    // Empty groups on both sides are equal: nothing to pair, nothing left over.
    Report groups = sample_report(true);
    groups.sections[0].rows_a = groups.sections[0].rows_b = groups.sections[0].rows_compared = 0;
    groups.sections[0].columns.clear();
    CHECK(groups.equal());
}

TEST_CASE("differences_only leaves out the sections that pass") {
    Report report = sample_report(false);
    report.sections.push_back(sample_report(true).sections[0]);
    report.sections.back().title = "step 20 group fluid";
    std::ostringstream brief;
    print_text(brief, report, /*differences_only=*/true);
    CHECK(brief.str().find("step 10 group fluid") != std::string::npos);
    CHECK(brief.str().find("step 20 group fluid") == std::string::npos);
    CHECK(brief.str().find("DIFFERENT: 1 of 2 sections differ") != std::string::npos);
}

TEST_CASE("JSON escapes text and writes non-finite numbers as strings") {
    std::ostringstream out;
    print_json(out, sample_report(false));
    const std::string json = out.str();
    CHECK(json.rfind("{\"a\":\"run \\\"new\\\".pks\",\"b\":\"ref.pks\",\"kind\":\"particles\",\"equal\":false,", 0) ==
          0);
    CHECK(json.find("\"psnr_db\":\"inf\"") != std::string::npos);
    CHECK(json.find("\"max_abs\":0.5,") != std::string::npos);
    CHECK(json.find("\"beyond\":1,") != std::string::npos);
    CHECK(json.find("\"step\":10,") != std::string::npos);
    CHECK(json.find("\"distributions\":[]") != std::string::npos);
    CHECK(json.back() == '\n');
    // Balanced brackets outside strings: a cheap structural check.
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < json.size(); ++i) {
        if (in_string) {
            if (json[i] == '\\')
                ++i;
            else if (json[i] == '"')
                in_string = false;
        } else if (json[i] == '"') {
            in_string = true;
        } else if (json[i] == '{' || json[i] == '[') {
            ++depth;
        } else if (json[i] == '}' || json[i] == ']') {
            REQUIRE(--depth >= 0);
        }
    }
    CHECK(depth == 0);
    CHECK_FALSE(in_string);
}
