#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "core/backend.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "core/memory.hpp"

using namespace partikel;

TEST_CASE("core.select_backend parses device specs") {
    CHECK(select_backend("cpu").is_cpu());
    CHECK(select_backend("cpu", 3).threads() == 3);
    CHECK_THROWS_AS(select_backend("gpu"), UsageError);
    CHECK_THROWS_AS(select_backend("cuda:"), UsageError);
    CHECK_THROWS_AS(select_backend("cuda:x"), UsageError);
    CHECK_THROWS_AS(select_backend("cuda:-1"), UsageError);
    CHECK_THROWS_AS(select_backend("CPU"), UsageError);
}

TEST_CASE("core.select_backend: auto falls back with a note; explicit cuda never does") {
    if (!cuda_devices().empty()) {
        CHECK(select_backend("auto").is_cuda());
        CHECK_THROWS_AS(select_backend("cuda:99"), DeviceError);
        return;
    }
    std::FILE* sink = std::tmpfile();
    REQUIRE(sink);
    Log log("test", LogLevel::info, LogFormat::text, sink);
    Backend b = select_backend("auto", 0, &log);
    CHECK(b.is_cpu());
    std::rewind(sink);
    char line[512] = {};
    REQUIRE(std::fgets(line, sizeof line, sink));
    CHECK(std::string(line).starts_with("test: note: no usable GPU"));
    std::fclose(sink);
    CHECK_THROWS_AS(select_backend("cuda"), DeviceError);
    CHECK_THROWS_AS(select_backend("cuda:0"), DeviceError);
    CHECK(!cuda_unavailable_reason().empty());
}

TEST_CASE("core.backend describes itself") {
    Backend b = Backend::cpu(2);
    CHECK(b.describe() == "cpu (2 OpenMP threads)");
    CHECK(b.device_index() == -1);
    CHECK(b.stream() == nullptr);
    b.synchronize();
}

TEST_CASE("core.device_allocate of zero bytes is null and counts nothing") {
    Backend b = Backend::cpu(1);
    auto before = device_allocation_count();
    CHECK(device_allocate(b, 0) == nullptr);
    CHECK(device_allocation_count() == before);
    void* p = device_allocate(b, 100);
    CHECK(reinterpret_cast<std::uintptr_t>(p) % 64 == 0);
    CHECK(device_allocation_count() == before + 1);
    device_free(b, p);
}

TEST_CASE("core.host out of memory is an OutOfMemoryError with sizes" * doctest::test_suite("unit")) {
    Backend b = Backend::cpu(1);
    // More than any machine has: aligned_alloc fails cleanly.
    CHECK_THROWS_AS(device_allocate(b, std::size_t{1} << 62), OutOfMemoryError);
}
