#include "run/start_frame.hpp"

#include <deque>
#include <optional>

#include "base/error.hpp"
#include "formats/reader.hpp"

namespace partikel::run {

fmt::Frame read_start_frame(const std::string& path, std::int64_t index) {
    auto reader = fmt::open_reader(path);
    const auto count = reader->frame_count();
    // A stream is read whole, every frame decoded and checked against its checksums, so that a
    // damaged file is refused here as particle-info refuses it, not run from because its index
    // and last frame happen to be intact. HDF5 files jump to the frame: those we write carry
    // checksums on everything a frame is read from (formats/SPEC.md §3.4).
    if (count && reader->encoding() != fmt::Encoding::stream) {
        const auto n = static_cast<std::int64_t>(*count);
        const std::int64_t wanted = index < 0 ? n + index : index;
        if (wanted < 0 || wanted >= n)
            throw UsageError(reader->name() + ": no frame " + std::to_string(index) + " (the file holds " +
                             std::to_string(n) + ")");
        if (reader->seek_frame(static_cast<std::uint64_t>(wanted))) {
            auto frame = reader->next();
            if (!frame) throw FormatError(reader->name() + ": frame " + std::to_string(wanted) + " could not be read");
            return std::move(*frame);
        }
    }
    // Frame by frame to the end, keeping frame `index`, or the last |index| frames.
    std::deque<fmt::Frame> tail;
    std::optional<fmt::Frame> wanted;
    std::int64_t seen = 0;
    while (auto frame = reader->next()) {
        if (index >= 0 && seen == index) wanted = std::move(*frame);
        ++seen;
        if (index < 0) {
            tail.push_back(std::move(*frame));
            if (static_cast<std::int64_t>(tail.size()) > -index) tail.pop_front();
        }
    }
    if (wanted) return std::move(*wanted);
    if (seen == 0) throw FormatError(reader->name() + ": no frames");
    if (index < 0 && static_cast<std::int64_t>(tail.size()) == -index) return std::move(tail.front());
    throw UsageError(reader->name() + ": no frame " + std::to_string(index) + " (the input holds " + std::to_string(seen) +
                     ")");
}

}  // namespace partikel::run
