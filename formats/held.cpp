#include "formats/held.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace partikel::fmt {

namespace {

constexpr std::string_view kPrefix = "held.";

// The held groups a frame names, with the index of the frame that stores each.
std::vector<std::pair<std::string, std::int64_t>> held_groups(const Frame& frame, const std::string& input) {
    std::vector<std::pair<std::string, std::int64_t>> held;
    for (auto it = frame.attributes.lower_bound(kPrefix); it != frame.attributes.end(); ++it) {
        if (it->first.compare(0, kPrefix.size(), kPrefix) != 0) break;
        const auto* index = std::get_if<std::int64_t>(&it->second);
        if (!index || *index < 0)
            throw FormatError(input + ": attribute " + it->first + " is not a frame index");
        held.emplace_back(it->first.substr(kPrefix.size()), *index);
    }
    return held;
}

bool same_group(const Group& a, const Group& b) {
    if (a.count() != b.count() || a.columns().size() != b.columns().size()) return false;
    for (std::size_t c = 0; c < a.columns().size(); ++c) {
        const Column &x = a.columns()[c], &y = b.columns()[c];
        if (x.name() != y.name() || x.type() != y.type() || x.components() != y.components() || !(x.unit() == y.unit()) ||
            x.bytes() != y.bytes() || std::memcmp(x.raw().data(), y.raw().data(), x.bytes()) != 0)
            return false;
    }
    return true;
}

class HeldGroupReader final : public FrameReader {
public:
    explicit HeldGroupReader(std::unique_ptr<FrameReader> inner) : inner_(std::move(inner)) {}

    std::optional<Frame> next() override {
        if (at_end_) return std::nullopt;
        std::optional<Frame> frame = inner_->next();
        if (!frame) return frame;
        const std::int64_t index = next_index_++;
        for (const auto& [name, stored_in] : held_groups(*frame, inner_->name())) {
            if (const Group* g = frame->find_group(name)) {
                cache_[name] = *g;
                continue;
            }
            // Read in order, the last frame that stored the group is the one named (the index
            // counts in its own stream when streams are concatenated); after a seek, fetch it.
            if (!cache_.count(name)) fetch(name, stored_in, index);
            frame->groups().push_back(cache_.at(name));
        }
        return frame;
    }
    std::optional<std::uint64_t> frame_count() const override { return inner_->frame_count(); }
    bool seek_frame(std::uint64_t index) override {
        if (!inner_->seek_frame(index)) return false;
        next_index_ = std::int64_t(index);
        at_end_ = false;
        cache_.clear();
        return true;
    }
    Encoding encoding() const override { return inner_->encoding(); }
    const std::string& name() const override { return inner_->name(); }

private:
    // Reads group `name` from frame `stored_in`, then returns to the frame after `current`.
    void fetch(const std::string& name, std::int64_t stored_in, std::int64_t current) {
        const std::string where = inner_->name() + ": frame " + std::to_string(current) + ": held group \"" + name +
                                  "\" is stored in frame " + std::to_string(stored_in);
        if (stored_in >= current || !inner_->seek_frame(std::uint64_t(stored_in)))
            throw FormatError(where + ", which this input cannot go back to");
        std::optional<Frame> holder = inner_->next();
        const Group* g = holder ? holder->find_group(name) : nullptr;
        if (!g) throw FormatError(where + ", which does not hold it");
        cache_[name] = *g;
        const auto count = inner_->frame_count();
        if (count && std::uint64_t(current + 1) >= *count)
            at_end_ = true;
        else if (!inner_->seek_frame(std::uint64_t(current + 1)))
            throw FormatError(where + "; cannot return to frame " + std::to_string(current + 1));
    }

    std::unique_ptr<FrameReader> inner_;
    std::map<std::string, Group> cache_;  // the held groups of the frames read since the last seek
    std::int64_t next_index_ = 0;
    bool at_end_ = false;
};

class HeldGroupWriter final : public FrameWriter {
public:
    explicit HeldGroupWriter(std::unique_ptr<FrameWriter> inner) : inner_(std::move(inner)) {}

    void write(const Frame& frame) override { store(frame, nullptr); }
    void write(Frame&& frame) override { store(frame, &frame); }
    void finish() override { inner_->finish(); }
    const std::string& name() const override { return inner_->name(); }

private:
    // `owned`: the same frame when the caller gives it up, so that its groups move.
    void store(const Frame& frame, Frame* owned) {
        const std::int64_t index = written_++;
        const auto held = held_groups(frame, name());
        if (held.empty()) {
            if (owned) return inner_->write(std::move(*owned));
            return inner_->write(frame);
        }
        // The frame as stored: attributes with this file's indices, held groups only where new.
        Frame stored;
        stored.step = frame.step;
        stored.time = frame.time;
        stored.dt = frame.dt;
        stored.time_unit_si = frame.time_unit_si;
        stored.attributes = frame.attributes;
        std::vector<std::string> omit;
        for (const auto& [group_name, ignored] : held) {
            const Group* g = frame.find_group(group_name);
            if (!g) throw UsageError(name() + ": frame " + std::to_string(index) + " marks group \"" + group_name +
                                     "\" as held but does not have it");
            auto last = stored_.find(group_name);
            if (last != stored_.end() && same_group(last->second.second, *g)) {
                omit.push_back(group_name);
            } else {
                stored_[group_name] = {index, *g};
            }
            stored.attributes[std::string(kPrefix) + group_name] = stored_.at(group_name).first;
        }
        const auto kept = [&](const Group& g) { return std::find(omit.begin(), omit.end(), g.name()) == omit.end(); };
        if (owned) {
            for (Group& g : owned->groups())
                if (kept(g)) stored.groups().push_back(std::move(g));
        } else {
            for (const Group& g : frame.groups())
                if (kept(g)) stored.groups().push_back(g);
        }
        inner_->write(std::move(stored));
    }

    std::unique_ptr<FrameWriter> inner_;
    std::map<std::string, std::pair<std::int64_t, Group>> stored_;  // name -> (frame index, group)
    std::int64_t written_ = 0;
};

}  // namespace

void mark_held(Frame& frame, std::string_view group) { frame.attributes[std::string(kPrefix) + std::string(group)] = std::int64_t(0); }

std::unique_ptr<FrameReader> restore_held_groups(std::unique_ptr<FrameReader> reader) {
    return std::make_unique<HeldGroupReader>(std::move(reader));
}

std::unique_ptr<FrameWriter> store_held_groups_once(std::unique_ptr<FrameWriter> writer) {
    return std::make_unique<HeldGroupWriter>(std::move(writer));
}

}  // namespace partikel::fmt
