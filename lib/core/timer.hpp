// Timing: DeviceTimer measures work queued on a backend (CUDA events on the GPU, the monotonic
// clock on the CPU); PhaseProfile sums named phases for `--profile` summaries and benchmarks.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"

namespace partikel {

class Stopwatch {
public:
    Stopwatch() : start_(std::chrono::steady_clock::now()) {}
    void reset() { start_ = std::chrono::steady_clock::now(); }
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

private:
    std::chrono::steady_clock::time_point start_;
};

// start() and stop() mark points in the backend's queue; seconds() waits for stop and returns
// the device time between them. Reusable: events are created once.
class DeviceTimer {
public:
    explicit DeviceTimer(const Backend& backend);
    ~DeviceTimer();
    DeviceTimer(const DeviceTimer&) = delete;
    DeviceTimer& operator=(const DeviceTimer&) = delete;
    DeviceTimer(DeviceTimer&& other) noexcept;
    DeviceTimer& operator=(DeviceTimer&&) = delete;
    void start();
    void stop();
    double seconds();

private:
    Backend backend_;
    void* start_event_ = nullptr;
    void* stop_event_ = nullptr;
    std::chrono::steady_clock::time_point start_time_, stop_time_;
};

// Median device time of `repeats` runs of `body`, after one untimed warm-up run: the
// measurement every benchmark in bench/ reports.
double median_device_seconds(const Backend& backend, int repeats, const std::function<void()>& body);

// Per-phase totals. When disabled, phase() costs nothing. When enabled, each phase is timed on
// the device (so it adds one wait per phase: use it for --profile and benchmarks, not always).
class PhaseProfile {
public:
    PhaseProfile(const Backend& backend, bool enabled);
    bool enabled() const { return enabled_; }

    class Scope {
    public:
        Scope(PhaseProfile* profile, std::size_t index);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        PhaseProfile* profile_;
        std::size_t index_;
    };
    Scope phase(std::string_view name);
    void add(std::string_view name, double seconds);

    struct Entry {
        std::string name;
        std::uint64_t calls = 0;
        double total_seconds = 0.0;
    };
    const std::vector<Entry>& entries() const { return entries_; }
    double total_seconds() const;
    // An aligned table: phase, calls, total s, mean ms, share %.
    std::string report() const;
    // One JSON object: {"phase": {"calls": n, "seconds": s}, ...}
    std::string report_json() const;

private:
    std::size_t index_of(std::string_view name);
    Backend backend_;
    bool enabled_;
    std::vector<Entry> entries_;
    std::vector<DeviceTimer> timers_;
};

}  // namespace partikel
