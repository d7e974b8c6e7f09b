#include "particle_info.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/tool.hpp"
#include "formats/reader.hpp"
#include "formats/selection.hpp"
#include "formats/stats.hpp"

namespace partikel::tools {
namespace {

using namespace partikel::fmt;

std::string number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, end);
}

// Compact human form: 7 significant digits.
std::string brief(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.7g", v);
    return buf;
}

std::string json_number(double v) { return std::isfinite(v) ? number(v) : "null"; }


std::string attribute_text(const AttributeValue& value, bool json) {
    return std::visit([&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::int64_t>) return std::to_string(v);
        else if constexpr (std::is_same_v<T, double>) return json ? json_number(v) : number(v);
        else if constexpr (std::is_same_v<T, std::string>) return json_quote(v);
        else {
            std::string s = "[";
            for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + (json ? json_number(v[i]) : number(v[i]));
            return s + "]";
        }
    }, value);
}


using Attributes = decltype(Frame::attributes);

struct Options {
    bool json = false;
    bool stats = true;
    bool all_attributes = false;
    std::string frames;
};

// The attributes of a frame: all of them for the first frame shown (or with --all-attributes),
// else only those that changed since the previous frame shown, and a count of the rest.
std::string attributes_text(const Frame& f, const Attributes* previous, const Options& o) {
    std::string out;
    std::size_t unchanged = 0;
    for (const auto& [key, value] : f.attributes) {
        if (previous && !o.all_attributes) {
            const auto before = previous->find(key);
            if (before != previous->end() && before->second == value) {
                ++unchanged;
                continue;
            }
        }
        out += "  " + key + " = " + attribute_text(value, false) + "\n";
    }
    if (previous && !o.all_attributes)
        for (const auto& [key, value] : *previous)
            if (!f.attributes.count(key)) out += "  " + key + " removed\n";
    if (unchanged)
        out += "  (" + std::to_string(unchanged) + " attribute" + (unchanged == 1 ? "" : "s") +
               " as in the frame before; --all-attributes shows them)\n";
    return out;
}

void print_text(const Frame& f, std::uint64_t index, const Attributes* previous, const Options& o) {
    const std::string time_unit = f.time_unit_si == 1.0 ? " s" : " x " + number(f.time_unit_si) + " s";
    std::string out = "frame " + std::to_string(index) + ": step " + std::to_string(f.step) + ", time " + number(f.time) + time_unit +
                      ", dt " + number(f.dt) + time_unit + ", " + std::to_string(f.particle_count()) + " particles\n";
    out += attributes_text(f, previous, o);
    for (const auto& g : f.groups()) {
        out += "  group " + g.name() + ": " + std::to_string(g.count()) + " particles, " + std::to_string(g.columns().size()) +
               " columns\n";
        for (const auto& c : g.columns()) {
            const std::string type = std::string(scalar_name(c.type())) + (c.components() > 1 ? "x" + std::to_string(c.components()) : "");
            char head[256];
            std::snprintf(head, sizeof head, "    %-18s %-7s %-10s", c.name().c_str(), type.c_str(), unit_symbol(c.unit()).c_str());
            if (!o.stats || c.count() == 0) {
                std::string line = head;
                while (!line.empty() && line.back() == ' ') line.pop_back();
                out += line + "\n";
                continue;
            }
            const auto stats = column_stats(c);
            const std::string blank(std::strlen(head), ' ');
            for (std::uint32_t k = 0; k < stats.size(); ++k) {
                const auto& s = stats[k];
                char line[512];
                std::snprintf(line, sizeof line, "%s %-2s  min %-13s  max %-13s  mean %s", k == 0 ? head : blank.c_str(),
                              (c.components() > 1 ? component_names(c.components()).at(k) : std::string()).c_str(), brief(s.min).c_str(), brief(s.max).c_str(),
                              brief(s.mean).c_str());
                std::string l = line;
                if (s.non_finite) l += "  (" + std::to_string(s.non_finite) + " non-finite)";
                out += l + "\n";
            }
        }
    }
    std::fputs(out.c_str(), stdout);
}

void print_json(const Frame& f, std::uint64_t index, const Options& o, bool first) {
    std::string out = first ? "" : ",\n";
    out += "  {\"index\": " + std::to_string(index) + ", \"step\": " + std::to_string(f.step) + ", \"time\": " + json_number(f.time) +
           ", \"dt\": " + json_number(f.dt) + ", \"time_unit_si\": " + json_number(f.time_unit_si) + ",\n   \"attributes\": {";
    bool first_attr = true;
    for (const auto& [key, value] : f.attributes) {
        out += (first_attr ? "" : ", ") + json_quote(key) + ": " + attribute_text(value, true);
        first_attr = false;
    }
    out += "},\n   \"groups\": [";
    for (std::size_t gi = 0; gi < f.groups().size(); ++gi) {
        const auto& g = f.groups()[gi];
        out += std::string(gi ? "," : "") + "\n    {\"name\": " + json_quote(g.name()) + ", \"count\": " + std::to_string(g.count()) +
               ", \"columns\": [";
        for (std::size_t ci = 0; ci < g.columns().size(); ++ci) {
            const auto& c = g.columns()[ci];
            out += std::string(ci ? "," : "") + "\n     {\"name\": " + json_quote(c.name()) + ", \"type\": \"" + std::string(scalar_name(c.type())) +
                   "\", \"components\": " + std::to_string(c.components()) + ", \"unit\": " + json_quote(unit_symbol(c.unit())) +
                   ", \"unit_dimension\": [";
            for (int i = 0; i < 7; ++i) out += (i ? ", " : "") + json_number(c.unit().dimension[i]);
            out += "], \"unit_si\": " + json_number(c.unit().si_factor);
            if (o.stats) {
                out += ", \"stats\": [";
                const auto stats = c.count() ? column_stats(c) : std::vector<ComponentStats>{};
                for (std::size_t k = 0; k < stats.size(); ++k)
                    out += std::string(k ? ", " : "") + "{\"min\": " + json_number(stats[k].min) + ", \"max\": " + json_number(stats[k].max) +
                           ", \"mean\": " + json_number(stats[k].mean) + ", \"non_finite\": " + std::to_string(stats[k].non_finite) + "}";
                out += "]";
            }
            out += "}";
        }
        out += "]}";
    }
    out += "]}";
    std::fputs(out.c_str(), stdout);
}

}  // namespace

int particle_info(std::span<const std::string> args) {
    Tool tool("particle-info", "Describe a particle file or stream: frames, groups, columns, statistics, attributes.\n"
                               "Reads the stream format (also from stdin), openPMD HDF5 and CSV.");
    tool.add_common(kInput | kThreads);
    Options o;
    std::string positional;
    bool no_stats = false;
    tool.add_input("file", positional, "Input file (same as -i; '-': stdin)", fmt::read_files);
    tool.app().add_flag("--json", o.json, "Machine-readable JSON on stdout");
    tool.app().add_flag("--no-stats", no_stats, "Skip per-column min/max/mean (faster)");
    tool.app().add_flag("--all-attributes", o.all_attributes,
                        "Every frame's attributes (default: only changes)");
    tool.app().add_option("--frames", o.frames, "Frames to show: 3, 0:100:10, 5:, ... (0-based)");
    return tool.run(std::vector<std::string>(args.begin(), args.end()), [&](Tool& t) {
        o.stats = !no_stats;
        const std::string input = positional.empty() ? t.options().input : positional;
        if (!positional.empty() && t.options().input != "-")
            throw UsageError("give the input once: as -i FILE or as FILE");
        const auto selection = FrameSelection::parse(o.frames);
        refuse_terminal_stdin(input);
        auto reader = open_reader(input);
        const auto count = reader->frame_count();
        if (o.json) {
            std::printf("{\"file\": %s, \"encoding\": \"%s\", \"frame_count\": %s, \"frames\": [\n", json_quote(reader->name()).c_str(),
                        std::string(encoding_name(reader->encoding())).c_str(), count ? std::to_string(*count).c_str() : "null");
        } else {
            std::printf("%s: %s%s\n", reader->name().c_str(), std::string(encoding_name(reader->encoding())).c_str(),
                        count ? (", " + std::to_string(*count) + (*count == 1 ? " frame" : " frames")).c_str() : "");
        }
        std::uint64_t shown = 0, last = 0;
        Attributes previous;
        for_each_selected(*reader, selection, [&](std::uint64_t index, Frame& frame) {
            if (o.json) {
                print_json(frame, index, o, shown == 0);
            } else {
                print_text(frame, index, shown == 0 ? nullptr : &previous, o);
                previous = frame.attributes;
            }
            ++shown;
            last = index + 1;
        });
        if (o.json) std::printf("\n]}\n");
        else if (!count && selection.all()) std::printf("%llu frame%s read\n", static_cast<unsigned long long>(last), last == 1 ? "" : "s");
        return 0;
    });
}

}  // namespace partikel::tools
