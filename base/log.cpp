#include "base/log.hpp"

#include <chrono>
#include <cstdio>

namespace partikel {

Log::Log(std::string program, LogLevel min_level, LogFormat format, std::FILE* sink)
    : program_(std::move(program)), min_level_(min_level), format_(format), sink_(sink) {}

std::string_view log_level_name(LogLevel level) {
    switch (level) {
        case LogLevel::debug: return "debug";
        case LogLevel::info: return "info";
        case LogLevel::note: return "note";
        case LogLevel::warning: return "warning";
        case LogLevel::error: return "error";
        case LogLevel::quiet: return "quiet";
    }
    return "?";
}

std::string format_g(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

std::string json_quote(std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

void Log::write(LogLevel level, std::string_view message) {
    if (!enabled(level) || !sink_) return;
    std::string line;
    if (format_ == LogFormat::json) {
        double t = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        char stamp[32];
        std::snprintf(stamp, sizeof stamp, "%.3f", t);
        line = std::string("{\"time\":") + stamp + ",\"program\":" + json_quote(program_) +
               ",\"level\":\"" + std::string(log_level_name(level)) + "\",\"message\":" + json_quote(message) + "}\n";
    } else {
        line = program_ + ": " + std::string(log_level_name(level)) + ": " + std::string(message) + "\n";
    }
    std::fwrite(line.data(), 1, line.size(), sink_);
    std::fflush(sink_);
}

}  // namespace partikel
