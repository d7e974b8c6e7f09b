// A progress display on stderr: bar, rate and ETA, redrawn at most 5 times a second.
// Shown only when enabled (stderr is a terminal or --progress, and not --quiet); with
// --log-format json it emits a JSON line per second instead of a bar.
#pragma once

#include <chrono>
#include <string>

#include "base/log.hpp"

namespace partikel {

class Progress {
public:
    Progress(Log& log, std::string label, double total, std::string unit, bool enabled);
    ~Progress();
    void update(double done);
    void finish();                     // final line, then stop drawing
    bool enabled() const { return enabled_; }

    // The text of one redraw; public for tests.
    static std::string format_line(const std::string& label, double done, double total, double rate,
                                   const std::string& unit, int width);

private:
    void draw(bool final_draw);

    Log& log_;
    std::string label_;
    double total_;
    std::string unit_;
    bool enabled_;
    bool finished_ = false;
    double done_ = 0.0;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_draw_;
};

// stderr is a terminal (for the default of progress display).
bool stderr_is_terminal();

}  // namespace partikel
