// Logging to stderr: `prog: level: message` as text, or one JSON object per line
// (--log-format json) for machines. Owned by the program, passed to whoever logs.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace partikel {

enum class LogLevel { debug = 0, info = 1, note = 2, warning = 3, error = 4, quiet = 5 };
enum class LogFormat { text, json };

class Log {
public:
    explicit Log(std::string program = "partikel", LogLevel min_level = LogLevel::info,
                 LogFormat format = LogFormat::text, std::FILE* sink = stderr);

    void set_level(LogLevel level) { min_level_ = level; }
    void set_format(LogFormat format) { format_ = format; }
    LogLevel level() const { return min_level_; }
    LogFormat format() const { return format_; }
    const std::string& program() const { return program_; }
    bool enabled(LogLevel level) const { return level >= min_level_; }

    void write(LogLevel level, std::string_view message);
    void debug(std::string_view m) { write(LogLevel::debug, m); }
    void info(std::string_view m) { write(LogLevel::info, m); }
    void note(std::string_view m) { write(LogLevel::note, m); }
    void warning(std::string_view m) { write(LogLevel::warning, m); }
    void error(std::string_view m) { write(LogLevel::error, m); }

    std::FILE* sink() const { return sink_; }

private:
    std::string program_;
    LogLevel min_level_;
    LogFormat format_;
    std::FILE* sink_;
};

std::string_view log_level_name(LogLevel level);
// A JSON string literal (with quotes) for `text`.
std::string json_quote(std::string_view text);
// A number for a message: %.6g ("0.25", "1.5e-07").
std::string format_g(double value);

}  // namespace partikel
