#include "core/timer.hpp"

#include <algorithm>
#include <utility>
#include <cstdio>

#include "base/log.hpp"
#include "core/host_waits.hpp"
#include "partikel_config.hpp"
#if PARTIKEL_HAVE_CUDA
#include "core/cuda/runtime.hpp"
#endif

namespace partikel {

DeviceTimer::DeviceTimer(const Backend& backend) : backend_(backend) {
#if PARTIKEL_HAVE_CUDA
    if (backend_.is_cuda()) {
        start_event_ = cuda_rt::event_create(backend_.device_index());
        stop_event_ = cuda_rt::event_create(backend_.device_index());
    }
#endif
}

DeviceTimer::~DeviceTimer() {
#if PARTIKEL_HAVE_CUDA
    if (start_event_) cuda_rt::event_destroy(backend_.device_index(), start_event_);
    if (stop_event_) cuda_rt::event_destroy(backend_.device_index(), stop_event_);
#endif
}

DeviceTimer::DeviceTimer(DeviceTimer&& other) noexcept
    : backend_(other.backend_), start_event_(other.start_event_), stop_event_(other.stop_event_),
      start_time_(other.start_time_), stop_time_(other.stop_time_) {
    other.start_event_ = other.stop_event_ = nullptr;
}

void DeviceTimer::start() {
#if PARTIKEL_HAVE_CUDA
    if (start_event_) return cuda_rt::event_record(backend_.device_index(), start_event_, backend_.stream());
#endif
    start_time_ = std::chrono::steady_clock::now();
}

void DeviceTimer::stop() {
#if PARTIKEL_HAVE_CUDA
    if (stop_event_) return cuda_rt::event_record(backend_.device_index(), stop_event_, backend_.stream());
#endif
    stop_time_ = std::chrono::steady_clock::now();
}

double DeviceTimer::seconds() {
    count_host_wait();
#if PARTIKEL_HAVE_CUDA
    if (stop_event_) return 1e-3 * cuda_rt::event_elapsed_ms(backend_.device_index(), start_event_, stop_event_);
#endif
    return std::chrono::duration<double>(stop_time_ - start_time_).count();
}

double median_device_seconds(const Backend& backend, int repeats, const std::function<void()>& body) {
    DeviceTimer timer(backend);
    body();
    backend.synchronize();
    std::vector<double> times;
    for (int r = 0; r < std::max(repeats, 1); ++r) {
        timer.start();
        body();
        timer.stop();
        times.push_back(timer.seconds());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

namespace {
constexpr std::size_t kTimelineMarks = 1024;  // about 30 steps of a distributed SPH step's phases
}  // namespace

PhaseProfile::PhaseProfile(const Backend& backend, bool enabled, Timing timing)
    : backend_(backend), enabled_(enabled), timing_(timing) {
    if (!enabled_ || timing_ != Timing::timeline) return;
    marks_.resize(kTimelineMarks);
#if PARTIKEL_HAVE_CUDA
    if (backend_.is_cuda())
        for (auto& m : marks_) m.event = cuda_rt::event_create(backend_.device_index());
#endif
}

PhaseProfile::~PhaseProfile() {
#if PARTIKEL_HAVE_CUDA
    for (auto& m : marks_)
        if (m.event) cuda_rt::event_destroy(backend_.device_index(), m.event);
#endif
}

PhaseProfile::PhaseProfile(PhaseProfile&& other) noexcept
    : backend_(other.backend_), enabled_(other.enabled_), timing_(other.timing_), entries_(std::move(other.entries_)),
      timers_(std::move(other.timers_)), marks_(std::move(other.marks_)), used_marks_(other.used_marks_),
      open_(std::move(other.open_)) {
    other.marks_.clear();
    other.used_marks_ = 0;
}

PhaseProfile& PhaseProfile::operator=(PhaseProfile&& other) noexcept {
    // The swap hands this profile's events to `other`, whose destructor frees them.
    std::swap(backend_, other.backend_);
    std::swap(enabled_, other.enabled_);
    std::swap(timing_, other.timing_);
    std::swap(entries_, other.entries_);
    std::swap(timers_, other.timers_);
    std::swap(marks_, other.marks_);
    std::swap(used_marks_, other.used_marks_);
    std::swap(open_, other.open_);
    return *this;
}

void PhaseProfile::mark(std::size_t phase) {
    if (used_marks_ == marks_.size()) flush();
    Mark& m = marks_[used_marks_++];
    m.phase = phase;
#if PARTIKEL_HAVE_CUDA
    if (m.event) return cuda_rt::event_record(backend_.device_index(), m.event, backend_.stream());
#endif
    m.time = std::chrono::steady_clock::now();
}

void PhaseProfile::flush() {
    if (timing_ != Timing::timeline || used_marks_ < 2) return;
    const std::size_t last = used_marks_ - 1;
#if PARTIKEL_HAVE_CUDA
    if (marks_[last].event) cuda_rt::event_synchronize(backend_.device_index(), marks_[last].event);
#endif
    for (std::size_t k = 0; k < last; ++k) {
        const Mark& a = marks_[k];
        const Mark& b = marks_[k + 1];
        double seconds = std::chrono::duration<double>(b.time - a.time).count();
#if PARTIKEL_HAVE_CUDA
        if (a.event) seconds = 1e-3 * cuda_rt::event_elapsed_ms(backend_.device_index(), a.event, b.event);
#endif
        const std::size_t i = a.phase == kBetween ? index_of("between phases") : a.phase;
        entries_[i].total_seconds += seconds;
    }
    // The last mark starts the next interval.
    std::swap(marks_[0], marks_[last]);
    used_marks_ = 1;
}

std::size_t PhaseProfile::index_of(std::string_view name) {
    for (std::size_t i = 0; i < entries_.size(); ++i)
        if (entries_[i].name == name) return i;
    entries_.push_back(Entry{std::string(name), 0, 0.0});
    timers_.emplace_back(backend_);
    return entries_.size() - 1;
}

PhaseProfile::Scope PhaseProfile::phase(std::string_view name) {
    if (!enabled_) return Scope(nullptr, 0);
    std::size_t i = index_of(name);
    if (timing_ == Timing::timeline) {
        entries_[i].calls += 1;
        open_.push_back(i);
        mark(i);
    } else {
        open_.push_back(i);
        timers_[i].start();
    }
    return Scope(this, i);
}

PhaseProfile::Scope::Scope(PhaseProfile* profile, std::size_t index) : profile_(profile), index_(index) {}

PhaseProfile::Scope::~Scope() {
    if (!profile_) return;
    try {
        if (profile_->timing_ == Timing::timeline) {
            profile_->open_.pop_back();
            profile_->mark(profile_->open_.empty() ? kBetween : profile_->open_.back());
            return;
        }
        auto& timer = profile_->timers_[index_];
        timer.stop();
        const double seconds = timer.seconds();
        profile_->entries_[index_].calls += 1;
        profile_->entries_[index_].total_seconds += seconds;
        // A phase inside another is that one's time no more: the outer timer ran on.
        profile_->open_.pop_back();
        if (!profile_->open_.empty()) profile_->entries_[profile_->open_.back()].total_seconds -= seconds;
    } catch (...) {
        // A device failure here resurfaces at the next checked call; a destructor must not throw.
    }
}

void PhaseProfile::add(std::string_view name, double seconds) {
    if (!enabled_) return;
    std::size_t i = index_of(name);
    entries_[i].calls += 1;
    entries_[i].total_seconds += seconds;
}

double PhaseProfile::total_seconds() const {
    double total = 0.0;
    for (const auto& e : entries_) total += e.total_seconds;
    return total;
}

std::string PhaseProfile::report() const {
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "%-28s %10s %12s %12s %7s\n", "phase", "calls", "total_s", "mean_ms", "share");
    out += line;
    double total = total_seconds();
    for (const auto& e : entries_) {
        std::snprintf(line, sizeof line, "%-28s %10llu %12.6f %12.4f %6.1f%%\n", e.name.c_str(),
                      static_cast<unsigned long long>(e.calls), e.total_seconds,
                      e.calls ? 1e3 * e.total_seconds / static_cast<double>(e.calls) : 0.0,
                      total > 0 ? 100.0 * e.total_seconds / total : 0.0);
        out += line;
    }
    return out;
}

std::string PhaseProfile::report_json() const {
    std::string out = "{";
    char value[128];
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        std::snprintf(value, sizeof value, ":{\"calls\":%llu,\"seconds\":%.9g}",
                      static_cast<unsigned long long>(entries_[i].calls), entries_[i].total_seconds);
        out += (i ? "," : "") + json_quote(entries_[i].name) + value;
    }
    return out + "}";
}

}  // namespace partikel
