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

// Per-phase totals. When disabled, phase() costs nothing. Two ways of timing when enabled:
//  - synchronised (the default): each phase is timed on the device and waited for (one wait per
//    phase), so a phase's time is its own work, without the waits for the host or other ranks
//    that the phases around it would otherwise overlap; use it for --profile and benchmarks.
//  - timeline: each phase's start and end only mark the device's queue (no wait); flush() reads
//    the marks back and gives every interval between consecutive marks to the phase open in it
//    ("between phases" outside any). The phases then add up to the device's wall time,
//    including the time it stood idle because the host was late to queue the next work (a host
//    wait, an MPI collective, launch overhead): where a step's time goes, not what each phase
//    costs alone. Flushes itself when its marks fill up (one wait per few hundred phases).
// Either way a phase opened inside another counts for itself only: the outer one's total
// leaves out the inner one's time.
class PhaseProfile {
public:
    enum class Timing { synchronised, timeline };
    PhaseProfile(const Backend& backend, bool enabled, Timing timing = Timing::synchronised);
    ~PhaseProfile();
    PhaseProfile(PhaseProfile&& other) noexcept;
    PhaseProfile& operator=(PhaseProfile&& other) noexcept;
    bool enabled() const { return enabled_; }
    Timing timing() const { return timing_; }

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
    // Timeline: attributes every interval marked so far (waits for the last mark); the next
    // interval starts at the last mark. Nothing to do in the synchronised timing.
    void flush();

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
    // Timeline: a mark in the device's queue after which `phase` (an entry index, or kBetween)
    // is the one open.
    void mark(std::size_t phase);
    static constexpr std::size_t kBetween = ~std::size_t(0);
    Backend backend_;
    bool enabled_;
    Timing timing_;
    std::vector<Entry> entries_;
    std::vector<DeviceTimer> timers_;
    struct Mark {
        void* event = nullptr;  // CUDA event; nullptr on the CPU (the time below)
        std::chrono::steady_clock::time_point time;
        std::size_t phase = kBetween;
    };
    std::vector<Mark> marks_;          // preallocated events; [0, used_marks_) recorded
    std::size_t used_marks_ = 0;
    std::vector<std::size_t> open_;    // the open phases, innermost last
};

}  // namespace partikel
