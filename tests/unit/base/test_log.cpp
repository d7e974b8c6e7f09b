#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "base/log.hpp"
#include "base/progress.hpp"
#include "core/timer.hpp"

using namespace partikel;

namespace {
std::string read_all(std::FILE* f) {
    std::rewind(f);
    std::string out;
    char buf[256];
    while (std::fgets(buf, sizeof buf, f)) out += buf;
    return out;
}
}  // namespace

TEST_CASE("core.log text and json lines, levels filter") {
    std::FILE* f = std::tmpfile();
    Log log("prog", LogLevel::info, LogFormat::text, f);
    log.debug("hidden");
    log.warning("careful");
    log.set_format(LogFormat::json);
    log.error("bad \"thing\"\n");
    std::string text = read_all(f);
    CHECK(text.find("hidden") == std::string::npos);
    CHECK(text.find("prog: warning: careful\n") != std::string::npos);
    CHECK(text.find("\"level\":\"error\",\"message\":\"bad \\\"thing\\\"\\n\"}") != std::string::npos);
    std::fclose(f);
}

TEST_CASE("core.progress line has bar, percentage, rate and ETA") {
    std::string line = Progress::format_line("step", 50, 200, 10, "steps/s", 10);
    CHECK(line == "step [##        ]  25.0% 10 steps/s ETA 00:15");
    CHECK(Progress::format_line("x", 0, 0, 0, "u", 4).find("ETA --:--") != std::string::npos);
    CHECK(Progress::format_line("step", 50, 200, 10, "steps/s", 0) == "step  25.0% 10 steps/s ETA 00:15");
}

TEST_CASE("base.progress without a bar logs a line per interval, with its note") {
    std::FILE* f = std::tmpfile();
    Log log("prog", LogLevel::info, LogFormat::text, f);
    {
        Progress p(log, "run", 100, "steps/s", false, 1e-9);
        p.set_note("waiting for the frame writer");
        p.update(10);
    }
    std::string text = read_all(f);
    CHECK(text.find("prog: info: run  10.0%") != std::string::npos);
    CHECK(text.find("(waiting for the frame writer)") != std::string::npos);
    std::fclose(f);
    std::FILE* g = std::tmpfile();
    Log quiet_log("prog", LogLevel::info, LogFormat::text, g);
    {
        Progress p(quiet_log, "run", 100, "steps/s", false, 0.0);  // no interval: silent
        p.update(10);
    }
    CHECK(read_all(g).empty());
    std::fclose(g);
}

TEST_CASE("core.progress is silent when disabled") {
    std::FILE* f = std::tmpfile();
    Log log("prog", LogLevel::info, LogFormat::text, f);
    {
        Progress p(log, "work", 10, "items/s", false);
        p.update(5);
        p.finish();
    }
    CHECK(read_all(f).empty());
    std::fclose(f);
}

TEST_CASE("core.phase profile sums phases") {
    Backend b = Backend::cpu(1);
    PhaseProfile profile(b, true);
    for (int i = 0; i < 3; ++i) {
        auto scope = profile.phase("sort");
    }
    profile.add("io", 0.5);
    REQUIRE(profile.entries().size() == 2);
    CHECK(profile.entries()[0].calls == 3);
    CHECK(profile.entries()[1].total_seconds == doctest::Approx(0.5));
    CHECK(profile.report().find("sort") != std::string::npos);
    CHECK(profile.report_json().starts_with("{\"sort\":{\"calls\":3"));
    PhaseProfile off(b, false);
    { auto scope = off.phase("x"); }
    CHECK(off.entries().empty());
}

TEST_CASE("core.phase profile: a phase inside another counts for itself only") {
    using namespace std::chrono_literals;
    const Backend b = Backend::cpu(1);
    PhaseProfile profile(b, true);
    Stopwatch wall;
    {
        auto outer = profile.phase("outer");
        std::this_thread::sleep_for(10ms);
        {
            auto inner = profile.phase("inner");
            std::this_thread::sleep_for(30ms);
        }
    }
    const double elapsed = wall.seconds();
    REQUIRE(profile.entries().size() == 2);
    const double outer = profile.entries()[0].total_seconds, inner = profile.entries()[1].total_seconds;
    CHECK(inner >= 0.030);
    CHECK(outer >= 0.010);
    CHECK(outer < 0.030);  // the inner phase's 30 ms are not the outer one's
    CHECK(profile.total_seconds() <= elapsed);
}

TEST_CASE("core.phase profile timeline gives every interval between marks to the phase open in it") {
    using namespace std::chrono_literals;
    const Backend b = Backend::cpu(1);
    PhaseProfile profile(b, true, PhaseProfile::Timing::timeline);
    Stopwatch wall;
    {
        auto outer = profile.phase("outer");
        std::this_thread::sleep_for(20ms);
        {
            auto inner = profile.phase("inner");
            std::this_thread::sleep_for(10ms);
        }
        std::this_thread::sleep_for(5ms);
    }
    std::this_thread::sleep_for(10ms);  // between phases: the host was late to queue more
    { auto last = profile.phase("last"); }
    const double elapsed = wall.seconds();
    profile.flush();
    const auto seconds = [&](const std::string& name) {
        for (const auto& e : profile.entries())
            if (e.name == name) return e.total_seconds;
        FAIL("no phase " << name);
        return 0.0;
    };
    CHECK(seconds("outer") >= 0.025);
    CHECK(seconds("inner") >= 0.010);
    CHECK(seconds("inner") < seconds("outer"));
    CHECK(seconds("between phases") >= 0.010);
    // The intervals tile the time from the first mark to the last: nothing counted twice.
    CHECK(profile.total_seconds() <= elapsed);
    CHECK(profile.total_seconds() >= 0.045);
    // Flushing again adds nothing; marks after a flush continue from its last mark.
    profile.flush();
    CHECK(profile.total_seconds() <= elapsed);
    // Moved, the profile keeps its entries.
    PhaseProfile moved = std::move(profile);
    CHECK(moved.entries().size() == 4);
}
