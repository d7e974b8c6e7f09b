#include "base/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace partikel {

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

Progress::Progress(Log& log, std::string label, double total, std::string rate_unit, bool enabled, double log_interval_s)
    : log_(log), label_(std::move(label)), total_(total), rate_unit_(std::move(rate_unit)), enabled_(enabled),
      log_interval_s_(log_interval_s), start_(std::chrono::steady_clock::now()), last_draw_(start_), last_log_(start_) {}

Progress::~Progress() {
    if (enabled_ && !finished_ && log_.format() == LogFormat::text && done_ > 0) std::fputc('\n', log_.sink());
}

static std::string clock_text(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return "--:--";
    long s = std::lround(seconds);
    char buf[32];
    if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    else std::snprintf(buf, sizeof buf, "%02ld:%02ld", s / 60, s % 60);
    return buf;
}

std::string Progress::format_line(const std::string& label, double done, double total, double rate,
                                  const std::string& rate_unit, int width) {
    double fraction = total > 0 ? std::clamp(done / total, 0.0, 1.0) : 0.0;
    std::string bar;
    if (width > 0) {
        bar.assign(static_cast<std::size_t>(width), ' ');
        std::fill(bar.begin(), bar.begin() + static_cast<int>(fraction * width), '#');
        bar = "[" + bar + "] ";
    }
    double eta = rate > 0 ? (total - done) / rate : -1.0;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s %s%5.1f%% %.3g %s ETA %s", label.c_str(), bar.c_str(), 100.0 * fraction, rate,
                  rate_unit.c_str(), clock_text(eta).c_str());
    return buf;
}

void Progress::update(double done) {
    done_ = done;
    if (finished_) return;
    auto now = std::chrono::steady_clock::now();
    if (!enabled_) {
        if (log_interval_s_ <= 0 || std::chrono::duration<double>(now - last_log_).count() < log_interval_s_) return;
        last_log_ = now;
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        const double rate = elapsed > 0 ? done_ / elapsed : 0.0;
        std::string line = format_line(label_, done_, total_, rate, rate_unit_, 0);
        if (!note_.empty()) line += " (" + note_ + ")";
        log_.info(line);
        return;
    }
    double since = std::chrono::duration<double>(now - last_draw_).count();
    double interval = log_.format() == LogFormat::json ? 1.0 : 0.2;
    if (since < interval) return;
    last_draw_ = now;
    draw(false);
}

void Progress::finish() {
    if (!enabled_ || finished_) return;
    draw(true);
    finished_ = true;
}

void Progress::draw(bool final_draw) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    double rate = elapsed > 0 ? done_ / elapsed : 0.0;
    if (log_.format() == LogFormat::json) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "{\"program\":%s,\"progress\":%s,\"done\":%.17g,\"total\":%.17g,\"rate\":%.6g}\n",
                      json_quote(log_.program()).c_str(), json_quote(label_).c_str(), done_, total_, rate);
        std::fputs(buf, log_.sink());
    } else {
        std::string line = format_line(label_, done_, total_, rate, rate_unit_, 30);
        if (!note_.empty()) line += " (" + note_ + ")";
        std::fprintf(log_.sink(), "\r%s\033[K%s", line.c_str(), final_draw ? "\n" : "");
    }
    std::fflush(log_.sink());
}

}  // namespace partikel
