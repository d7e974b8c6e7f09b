// Diagnostic tables: parsing CSV/TSV and comparing by key or row (lib/compare/table.hpp).
#include <doctest/doctest.h>

#include <cmath>

#include "compare/table.hpp"
#include "base/error.hpp"
#include "fixtures.hpp"
#include "support/hostile_text.hpp"

using namespace partikel;
using namespace partikel::compare;
using namespace partikel::compare::testing;

namespace {

const char* const moments =
    "# pic-track moments\n"
    "turn,alive,x_rms,eps_x\n"
    "0,1000,1.0e-3,12.5e-6\n"
    "1,1000,1.1e-3,12.5e-6\n"
    "2,998,1.2e-3,12.6e-6\n";

}  // namespace

TEST_CASE("CSV with comments, TSV and blank-separated tables parse alike") {
    const Table csv = parse_table(moments, "m.csv");
    CHECK(csv.header == std::vector<std::string>{"turn", "alive", "x_rms", "eps_x"});
    CHECK(csv.rows == 3);
    CHECK(csv.numbers[2][1] == 1.1e-3);
    CHECK(csv.numeric[3]);

    const Table tsv = parse_table("turn\talive\tx_rms\teps_x\n0\t1000\t1.0e-3\t12.5e-6\n", "m.tsv");
    CHECK(tsv.header.size() == 4);
    CHECK(tsv.numbers[3][0] == 12.5e-6);

    const Table blanks = parse_table("  turn   energy\n  0  -1.5\n  1   +2\n", "e.dat");
    CHECK(blanks.header == std::vector<std::string>{"turn", "energy"});
    CHECK(blanks.numbers[1][1] == 2.0);
}

TEST_CASE("a byte order mark does not stick to the first column name") {
    const Table table = parse_table("\xEF\xBB\xBFturn,energy\n0,1\n", "bom.csv");
    CHECK(table.header[0] == "turn");
}

TEST_CASE("quoted cells, text columns, empty cells and nan") {
    const Table table = parse_table("name,value\n\"a, b\",1\n\"say \"\"hi\"\"\",\nplain,nan\n", "q.csv");
    CHECK(table.cells[0][0] == "a, b");
    CHECK(table.cells[0][1] == "say \"hi\"");
    CHECK_FALSE(table.numeric[0]);
    CHECK(table.numeric[1]);
    CHECK(std::isnan(table.numbers[1][1]));   // empty
    CHECK(std::isnan(table.numbers[1][2]));
}

TEST_CASE("ragged rows and missing headers are format errors") {
    CHECK_THROWS_WITH_AS(parse_table("a,b\n1,2\n3\n", "r.csv"), "r.csv: line 3 has 1 fields, the header has 2",
                         FormatError);
    CHECK_THROWS_AS(parse_table("# only a comment\n\n", "e.csv"), FormatError);
}

TEST_CASE("identical tables are equal; rows pair by key in any order") {
    const Table a = parse_table(moments, "a.csv");
    CHECK(compare_tables(a, a, CompareOptions{}).pass());
    const Table shuffled = parse_table(
        "turn,eps_x,alive,x_rms\n2,12.6e-6,998,1.2e-3\n0,12.5e-6,1000,1.0e-3\n"
        "1.0,12.5e-6,1000,1.1e-3\n",
        "b.csv");
    CHECK_FALSE(compare_tables(a, shuffled, CompareOptions{}).pass());   // by row they differ
    CompareOptions keyed;
    keyed.table_keys = {"turn"};
    const Section section = compare_tables(a, shuffled, keyed);
    CHECK(section.pass());
    CHECK(section.matched_by == "key turn");
    CHECK(section.columns.size() == 3);   // the key is not compared
}

TEST_CASE("a perturbation just above or below the column tolerance flips the result") {
    const Table a = parse_table(moments, "a.csv");
    CompareOptions options;
    options.table_keys = {"turn"};
    options.tolerances.add_spec("x_rms=1e-6:0");
    const Table below = parse_table(
        "turn,alive,x_rms,eps_x\n0,1000,1.0e-3,12.5e-6\n1,1000,1.1009e-3,12.5e-6\n"
        "2,998,1.2e-3,12.6e-6\n",
        "b.csv");
    CHECK(compare_tables(a, below, options).pass());
    const Table above = parse_table(
        "turn,alive,x_rms,eps_x\n0,1000,1.0e-3,12.5e-6\n1,1000,1.1011e-3,12.5e-6\n"
        "2,998,1.2e-3,12.6e-6\n",
        "b.csv");
    const Section section = compare_tables(a, above, options);
    CHECK_FALSE(section.pass());
    CHECK(column(section, "x_rms").worst == "turn=1");
    CHECK(column(section, "alive").pass());
}

TEST_CASE("rows and columns on one side only are reported") {
    const Table a = parse_table(moments, "a.csv");
    const Table b = parse_table("turn,alive,x_rms,y_rms\n0,1000,1.0e-3,1\n1,1000,1.1e-3,1\n", "b.csv");
    CompareOptions options;
    options.table_keys = {"turn"};
    Section section = compare_tables(a, b, options);
    CHECK_FALSE(section.pass());
    CHECK(section.mismatches == std::vector<std::string>{"1 row only in A (first: turn=2)", "column 'eps_x' only in A",
                                                         "column 'y_rms' only in B"});
    options.subset = true;
    options.ignore_columns = {"eps_x", "y_rms"};
    section = compare_tables(a, b, options);
    CHECK(section.pass());
    CHECK(section.notes.size() == 1);
}

TEST_CASE("text columns compare cell by cell") {
    const Table a = parse_table("turn,state\n0,ok\n1,ok\n", "a.csv");
    const Table b = parse_table("turn,state\n0,ok\n1,lost\n", "b.csv");
    CompareOptions options;
    options.table_keys = {"turn"};
    const Section section = compare_tables(a, b, options);
    CHECK_FALSE(section.pass());
    CHECK(column(section, "state").text);
    CHECK(column(section, "state").stats.beyond == 1);
    CHECK(column(section, "state").worst == "turn=1");
}

TEST_CASE("bad or duplicate keys are trouble") {
    const Table a = parse_table(moments, "a.csv");
    CompareOptions options;
    options.table_keys = {"step"};
    CHECK_THROWS_AS(compare_tables(a, a, options), UsageError);
    options.table_keys = {"alive"};   // 1000 twice
    CHECK_THROWS_WITH_AS(compare_tables(a, a, options), "a.csv: duplicate key alive=1000", FormatError);
    options.table_keys = {"turn", "alive"};   // composite keys are unique
    CHECK(compare_tables(a, a, options).pass());
}

TEST_CASE("--stats compares table columns as distributions") {
    const Table a = parse_table("x\n1\n2\n3\n4\n", "a.csv");
    const Table b = parse_table("x\n4\n3\n2\n1\n", "b.csv");
    CompareOptions options;
    options.stats = true;
    const Section section = compare_tables(a, b, options);
    CHECK(section.pass());
    REQUIRE(section.distributions.size() == 1);
    CHECK(section.distributions[0].comparison.ks_statistic == 0.0);
}

// Hostile tables (tests/support/hostile_text.hpp): parsed, or one FormatError naming the table;
// never a crash or undefined behaviour (the sanitizer build runs this too).
TEST_CASE("hostile tables parse or fail with an error naming the table") {
    const std::string valid = "# moments\nturn,alive,x_rms,\"note, quoted\"\n0,1000,1.0e-3,a\n1,998,,\"b \"\"c\"\"\"\n";
    CHECK_NOTHROW(parse_table(valid, "fuzz.csv"));
    for (const std::string& hostile : partikel::test::hostile_texts(valid, 26, 600)) {
        try {
            const Table t = parse_table(hostile, "fuzz.csv");
            CHECK(t.column_of.size() == t.header.size());
        } catch (const FormatError& e) {
            CHECK(std::string_view(e.what()).starts_with("fuzz.csv"));
        }
    }
}
