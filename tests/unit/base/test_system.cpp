// base/system.hpp: the time written into outputs.
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "base/system.hpp"

using partikel::output_time_utc;

namespace {
// Sets SOURCE_DATE_EPOCH for the scope (unset: nullptr), restoring what was there.
struct Epoch {
    explicit Epoch(const char* value) {
        if (const char* old = std::getenv("SOURCE_DATE_EPOCH")) saved = old;
        if (value) setenv("SOURCE_DATE_EPOCH", value, 1);
        else unsetenv("SOURCE_DATE_EPOCH");
    }
    ~Epoch() {
        if (saved) setenv("SOURCE_DATE_EPOCH", saved->c_str(), 1);
        else unsetenv("SOURCE_DATE_EPOCH");
    }
    std::optional<std::string> saved;
};
}  // namespace

TEST_CASE("output times follow SOURCE_DATE_EPOCH when it is a valid number, else the clock") {
    {
        const Epoch e("1700000000");
        CHECK(output_time_utc("%Y-%m-%dT%H:%M:%SZ") == "2023-11-14T22:13:20Z");
        CHECK(output_time_utc("%Y-%m-%d %H:%M:%S +0000") == "2023-11-14 22:13:20 +0000");
    }
    {
        const Epoch e("0");
        CHECK(output_time_utc("%Y-%m-%dT%H:%M:%SZ") == "1970-01-01T00:00:00Z");
    }
    // Invalid values are ignored: the clock's time (a year of this century).
    for (const char* bad : {"", "12abc", "-5", "1e9", "99999999999999999999"}) {
        CAPTURE(bad);
        const Epoch e(bad);
        const std::string now = output_time_utc("%Y");
        CHECK(now.size() == 4);
        CHECK(now >= "2024");
    }
    const Epoch e(nullptr);
    CHECK(output_time_utc("%Y") >= "2024");
}
