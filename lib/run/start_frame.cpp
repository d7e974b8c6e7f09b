#include "run/start_frame.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>

#include "base/error.hpp"
#include "base/io.hpp"
#include "formats/reader.hpp"
#include "formats/stream/stream.hpp"

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

namespace {

class MemoryOutput final : public OutputStream {
public:
    explicit MemoryOutput(std::vector<std::byte>& bytes) : bytes_(bytes) {}
    void write(const void* data, std::size_t bytes) override {
        const auto* p = static_cast<const std::byte*>(data);
        bytes_.insert(bytes_.end(), p, p + bytes);
    }
    void flush() override {}
    void commit() override {}
    std::uint64_t position() const override { return bytes_.size(); }
    const std::string& name() const override { return name_; }

private:
    std::vector<std::byte>& bytes_;
    std::string name_ = "<frame bytes>";
};

class MemoryInput final : public InputStream {
public:
    explicit MemoryInput(std::span<const std::byte> bytes) : bytes_(bytes) {}
    std::size_t read_some(void* data, std::size_t bytes) override {
        const std::size_t n = std::min(bytes, bytes_.size() - at_);
        std::memcpy(data, bytes_.data() + at_, n);
        at_ += n;
        return n;
    }
    std::size_t peek(void* data, std::size_t bytes) override {
        const std::size_t n = std::min(bytes, bytes_.size() - at_);
        std::memcpy(data, bytes_.data() + at_, n);
        return n;
    }
    std::uint64_t position() const override { return at_; }
    const std::string& name() const override { return name_; }
    bool is_regular_file() const override { return false; }
    void seek(std::uint64_t) override { throw UsageError("frame bytes: no seeking"); }
    std::uint64_t size() const override { return bytes_.size(); }

private:
    std::span<const std::byte> bytes_;
    std::size_t at_ = 0;
    std::string name_ = "<frame bytes>";
};

}  // namespace

std::vector<std::byte> encode_frame(const fmt::Frame& frame) {
    std::vector<std::byte> bytes;
    fmt::WriterOptions options;
    options.compress = false;
    options.write_index = false;
    auto writer = fmt::make_stream_writer(std::make_unique<MemoryOutput>(bytes), options);
    writer->write(frame);
    writer->finish();
    return bytes;
}

fmt::Frame decode_frame(std::span<const std::byte> bytes) {
    auto reader = fmt::make_stream_reader(std::make_unique<MemoryInput>(bytes));
    auto frame = reader->next();
    if (!frame) throw FormatError("frame bytes: no frame");
    return std::move(*frame);
}

fmt::Frame scatter_frames(const dist::Communicator& ranks, const std::function<std::vector<fmt::Frame>()>& on_root) {
    const int size = ranks.size();
    std::vector<std::vector<std::byte>> encoded;
    std::optional<fmt::Frame> own;
    ranks.collectively([&] {
        if (!ranks.root()) return;
        std::vector<fmt::Frame> frames = on_root();
        if (int(frames.size()) != size)
            throw UsageError("scatter: " + std::to_string(frames.size()) + " frames for " + std::to_string(size) + " ranks");
        own = std::move(frames[0]);
        for (int r = 1; r < size; ++r) encoded.push_back(encode_frame(frames[std::size_t(r)]));
    });
    if (size == 1) return std::move(*own);
    // Sizes first, then the bytes.
    std::vector<std::uint64_t> sizes(std::size_t(size), 0);
    std::vector<dist::SendBytes> sends;
    std::vector<dist::ReceiveBytes> receives;
    if (ranks.root()) {
        for (int r = 1; r < size; ++r) {
            sizes[std::size_t(r)] = encoded[std::size_t(r) - 1].size();
            sends.push_back({r, &sizes[std::size_t(r)], sizeof(std::uint64_t)});
        }
    } else {
        receives.push_back({0, &sizes[0], sizeof(std::uint64_t)});
    }
    ranks.exchange_host(sends, receives);
    sends.clear();
    receives.clear();
    std::vector<std::byte> mine;
    if (ranks.root()) {
        for (int r = 1; r < size; ++r)
            sends.push_back({r, encoded[std::size_t(r) - 1].data(), encoded[std::size_t(r) - 1].size()});
    } else {
        mine.resize(sizes[0]);
        receives.push_back({0, mine.data(), mine.size()});
    }
    ranks.exchange_host(sends, receives);
    if (ranks.root()) return std::move(*own);
    return decode_frame(mine);
}

}  // namespace partikel::run
