#include "formats/selection.hpp"

#include <charconv>
#include <limits>

#include "base/error.hpp"

namespace partikel::fmt {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const auto at = text.find(sep, start);
        out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return out;
        start = at + 1;
    }
}

std::uint64_t parse_index(const std::string& text, const std::string& whole) {
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        throw UsageError("--frames must be frame indices (0, 1, ...) and slices start:stop:step (got \"" + whole +
                         "\": \"" + text + "\" is no index)");
    return v;
}

}  // namespace

FrameSelection FrameSelection::parse(const std::string& text) {
    FrameSelection s;
    if (text.empty()) return s;
    constexpr auto open = std::numeric_limits<std::uint64_t>::max();
    for (const auto& item : split(text, ',')) {
        const auto parts = split(item, ':');
        if (parts.size() == 1) {
            const auto i = parse_index(parts[0], text);
            s.items_.push_back({i, i + 1, 1});
            continue;
        }
        if (parts.size() > 3) throw UsageError("--frames must be indices and slices start:stop:step (got \"" + text + "\")");
        Slice slice{0, open, 1};
        if (!parts[0].empty()) slice.start = parse_index(parts[0], text);
        if (!parts[1].empty()) slice.stop = parse_index(parts[1], text);
        if (parts.size() == 3 && !parts[2].empty()) slice.step = parse_index(parts[2], text);
        if (slice.step == 0) throw UsageError("--frames must have slice steps of at least 1 (got \"" + text + "\")");
        s.items_.push_back(slice);
    }
    return s;
}

bool FrameSelection::contains(std::uint64_t index) const {
    if (items_.empty()) return true;
    for (const auto& s : items_)
        if (index >= s.start && index < s.stop && (index - s.start) % s.step == 0) return true;
    return false;
}

std::optional<std::uint64_t> FrameSelection::end() const {
    if (items_.empty()) return std::nullopt;
    std::uint64_t e = 0;
    for (const auto& s : items_) {
        if (s.stop == std::numeric_limits<std::uint64_t>::max()) return std::nullopt;
        e = std::max(e, s.stop);
    }
    return e;
}

void for_each_selected(FrameReader& reader, const FrameSelection& selection,
                       const std::function<void(std::uint64_t, Frame&)>& visit) {
    const auto count = reader.frame_count();
    if (count && !selection.all()) {
        std::uint64_t next = 0;  // the frame reader.next() returns
        for (std::uint64_t i = 0; i < *count; ++i) {
            if (!selection.contains(i)) continue;
            if (i != next && !reader.seek_frame(i)) throw FormatError(reader.name() + ": cannot seek to frame " + std::to_string(i));
            auto frame = reader.next();
            if (!frame) throw FormatError(reader.name() + ": frame " + std::to_string(i) + " is listed in the index but missing");
            visit(i, *frame);
            next = i + 1;
        }
        return;
    }
    const auto end = selection.end();
    for (std::uint64_t i = 0; !end || i < *end; ++i) {
        auto frame = reader.next();
        if (!frame) return;
        if (selection.contains(i)) visit(i, *frame);
    }
}

NameSelection NameSelection::parse(const std::string& text, const std::string& flag) {
    NameSelection s;
    if (text.empty()) return s;
    for (const auto& item : split(text, ',')) {
        const auto parts = split(item, ':');
        if (parts.size() > 2 || parts[0].empty() || (parts.size() == 2 && parts[1].empty()))
            throw UsageError(flag + " must be names or name:new_name, comma-separated (got " + quoted_excerpt(text) + ")");
        const std::string& to = parts.size() == 2 ? parts[1] : parts[0];
        if (to.size() > 255 || to == "." || to == ".." || to.find('/') != std::string::npos)
            throw UsageError(flag + " must give names of 1-255 bytes, no '/', not . or .. (got " + quoted_excerpt(to) + ")");
        for (const auto& [from, _] : s.names)
            if (from == parts[0])
                throw UsageError(flag + " must list each name once (got \"" + from + "\" twice)");
        s.names.emplace_back(parts[0], to);
    }
    return s;
}

void apply_selection(Frame& frame, const NameSelection& groups, const NameSelection& columns) {
    if (!groups.all()) {
        std::vector<Group> kept;
        for (const auto& [from, to] : groups.names) {
            Group* g = frame.find_group(from);
            if (!g) throw UsageError("--groups " + from + ": frame (step " + std::to_string(frame.step) + ") has no group \"" + from + "\"");
            kept.push_back(std::move(*g));
            kept.back().rename(to);
            frame.remove_group(from);
        }
        while (!frame.groups().empty()) frame.remove_group(frame.groups().front().name());
        for (auto& g : kept) {
            Group& added = frame.add_group(g.name(), g.count());
            for (auto& c : g.columns()) added.add_column(std::move(c));
        }
    }
    if (columns.all()) return;
    for (const auto& [from, to] : columns.names) {
        bool found = false;
        for (const auto& g : frame.groups()) found = found || g.find(from);
        if (!found) throw UsageError("--columns " + from + ": frame (step " + std::to_string(frame.step) + ") has no column \"" + from + "\"");
    }
    for (auto& g : frame.groups()) {
        std::vector<Column> kept;
        for (const auto& [from, to] : columns.names)
            if (Column* c = g.find(from)) {
                kept.push_back(std::move(*c));
                kept.back().rename(to);
            }
        g.columns() = std::move(kept);
        std::vector<std::string> seen;
        for (const auto& c : g.columns()) {
            for (const auto& s : seen)
                if (s == c.name())
                    throw UsageError("--columns: group \"" + g.name() + "\" would have two columns named \"" + s + "\"");
            seen.push_back(c.name());
        }
    }
}

}  // namespace partikel::fmt
