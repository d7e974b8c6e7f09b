#include "base/system.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include "base/error.hpp"

namespace partikel {

std::uint64_t host_memory_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return std::uint64_t(1) << 36;
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

std::uint64_t text_table_limit_bytes() { return host_memory_bytes() / 4; }

std::uint64_t available_memory_bytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return host_memory_bytes();
}

void require_host_memory(const std::string& what, double count, double bytes_each) {
    const double bytes = count * bytes_each;
    const double available = double(available_memory_bytes());
    if (bytes <= available) return;
    char text[320];
    std::snprintf(text, sizeof text,
                  "%s needs about %.3g GB of host memory (%.0f bytes each), more than the %.3g GB available (of %.3g GB)",
                  what.c_str(), bytes / 1e9, bytes_each, available / 1e9, double(host_memory_bytes()) / 1e9);
    throw UsageError(text);
}

std::string output_time_utc(const char* format) {
    std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH")) {
        char* end = nullptr;
        const long long seconds = std::strtoll(epoch, &end, 10);
        // Not a whole non-negative number: ignored, as the convention asks of invalid values.
        if (end != epoch && *end == '\0' && seconds >= 0 && seconds <= 253402300799LL) t = std::time_t(seconds);
    }
    std::tm tm{};
    gmtime_r(&t, &tm);
    char text[64];
    const std::size_t length = std::strftime(text, sizeof text, format, &tm);
    return std::string(text, length);
}

}  // namespace partikel
