// A progress display on stderr: bar, rate and ETA, redrawn at most 5 times a second, when the
// bar is enabled (stderr is a terminal or --progress, and not --quiet); with --log-format json
// a JSON line per second instead of a bar. Without the bar, and unless quiet, a log line every
// `log_interval_s` seconds says how far the work is (a long run piped into a file or `tee` is
// never silent for minutes). set_note() adds a word on what the work waits for.
#pragma once

#include <chrono>
#include <string>

#include "base/log.hpp"

namespace partikel {

class Progress {
public:
    // `rate_unit` names the rate of `done` per wall-clock second: "frames/s", "steps/s".
    Progress(Log& log, std::string label, double total, std::string rate_unit, bool enabled, double log_interval_s = 0.0);
    ~Progress();
    void update(double done);
    void finish();                     // final line, then stop drawing
    bool enabled() const { return enabled_; }
    void set_note(std::string note) { note_ = std::move(note); }  // "" clears it

    // The text of one redraw (width 0: no bar); public for tests.
    static std::string format_line(const std::string& label, double done, double total, double rate,
                                   const std::string& rate_unit, int width);

private:
    void draw(bool final_draw);

    Log& log_;
    std::string label_;
    double total_;
    std::string rate_unit_;
    bool enabled_;
    double log_interval_s_;
    std::string note_;
    bool finished_ = false;
    double done_ = 0.0;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_draw_;
    std::chrono::steady_clock::time_point last_log_;
};

// stderr is a terminal (for the default of progress display).
bool stderr_is_terminal();

}  // namespace partikel
