// Stream reader (SPEC.md §2). Every length is checked before it is used to allocate or read;
// one thread reads blocks in order while tasks decode them, straight into column storage
// where no filter needs a scratch buffer.
#include <omp.h>
#include <zstd.h>

#include <algorithm>
#include <exception>
#include <unordered_set>

#include "base/log.hpp"
#include "base/system.hpp"
#include "formats/stream/bytes.hpp"
#include "formats/stream/filters.hpp"
#include "formats/stream/stream.hpp"
#include "formats/stream/xxhash64.hpp"

namespace partikel::fmt {

std::uint64_t stream_frame_byte_limit() { return host_memory_bytes(); }

namespace {

constexpr std::size_t block_header_bytes = 16;
constexpr std::size_t record_overhead = 16;  // tag, length, checksum
constexpr std::size_t end_record_bytes = record_overhead + 16;
constexpr std::size_t parallel_min_bytes = 256u << 10;

struct Record {
    std::string tag;
    std::vector<std::byte> body;
    std::uint64_t offset;
};

// Buffers that are always written before they are read need no zeroing.
using PoolBuffer = std::vector<std::byte, DefaultInitAllocator<std::byte>>;

// A block as read: where it goes in its column, and its stored bytes.
struct BlockRead {
    Column* column;
    std::size_t group_index;
    std::size_t block_index;
    std::uint64_t offset;   // byte offset of the block header in the stream
    std::byte* dest;
    std::size_t raw_bytes;
    std::size_t width;
    std::size_t components;
    std::uint8_t filter;
    std::uint8_t codec;
    std::uint64_t checksum;
    std::span<const std::byte> stored;  // in a pool buffer, or in place in `dest`
    std::string error;
};

class StreamReader final : public FrameReader {
public:
    StreamReader(std::unique_ptr<InputStream> in, std::shared_ptr<ColumnMemory> memory)
        : in_(std::move(in)), memory_(std::move(memory)), threads_(omp_get_max_threads()) {
        read_member_start();
        data_start_ = in_->position();
        load_index();
    }

    // Preamble and header of a stream, or of the next one in a concatenation, whose first
    // `have` bytes were already read into `pre`.
    void read_member_start(const unsigned char* first = nullptr, std::size_t have = 0) {
        member_start_ = in_->position() - have;
        member_frames_ = 0;
        seen_index_ = false;
        member_seen_.clear();
        member_seen_first_ = 0;
        unsigned char pre[16];
        if (have) std::memcpy(pre, first, have);
        read_fully(pre + have, sizeof pre - have, "preamble");
        if (!std::equal(stream_magic.begin(), stream_magic.end(), pre))
            fail_at(member_start_, "not a Partikel stream (bad magic bytes)");
        std::uint16_t major, minor;
        std::uint32_t flags;
        std::memcpy(&major, pre + 8, 2);
        std::memcpy(&minor, pre + 10, 2);
        std::memcpy(&flags, pre + 12, 4);
        if (major != stream_version_major || minor > stream_version_minor)
            fail_at(member_start_ + 8, "unsupported stream version " + std::to_string(major) + "." + std::to_string(minor) +
                           " (this reader knows 1.0)");
        if (flags != 0) fail_at(member_start_ + 12, "reserved flags are " + std::to_string(flags) + ", not 0");
        Record header = read_record("stream header");
        if (header.tag != "PKHD") fail_at(header.offset, "expected the PKHD header record, found \"" + header.tag + "\"");
        parse_body(header, [&](ByteReader& r) { read_attributes(r); });
    }

    std::optional<Frame> next() override {
        if (done_) return std::nullopt;
        for (;;) {
            Record rec = read_record(frame_ == 0 ? "the first record after the header"
                                                 : "the record after frame " + std::to_string(frame_ - 1));
            if (rec.tag == "PKFR") return read_frame(rec);
            if (rec.tag == "PKIX") {
                if (seen_index_) fail_at(rec.offset, "second PKIX index record");
                seen_index_ = true;
                index_offset_seen_ = rec.offset;
                parse_body(rec, [&](ByteReader& r) { check_index(r, rec.offset); });
                continue;
            }
            if (rec.tag == "PKEN") {
                if (finish_member(rec)) continue;
                return std::nullopt;
            }
            fail_at(rec.offset, "unknown record tag \"" + rec.tag + "\"");
        }
    }

    std::optional<std::uint64_t> frame_count() const override {
        if (has_index_) return index_entries_.size();
        return std::nullopt;
    }

    bool seek_frame(std::uint64_t index) override {
        if (!has_index_ || index > index_entries_.size()) return false;
        const std::uint64_t offset = index == index_entries_.size() ? index_record_offset_ : index_entries_[index].offset;
        in_->seek(offset);
        frame_ = index;
        member_frames_ = index;
        done_ = false;
        seen_index_ = false;
        // The frames read from here on are checked against the index's entries (check_index).
        member_seen_.clear();
        member_seen_first_ = index;
        return true;
    }

    Encoding encoding() const override { return Encoding::stream; }
    const std::string& name() const override { return in_->name(); }

private:
    std::string context() const { return in_frame_ ? "frame " + std::to_string(frame_) + ": " : std::string(); }

    [[noreturn]] void fail_at(std::uint64_t offset, const std::string& what) const {
        throw FormatError(in_->name() + ": " + context() + what + " (at byte " + std::to_string(offset) + ")");
    }

    void read_fully(void* data, std::size_t bytes, const char* what) {
        const std::uint64_t start = in_->position();
        auto* p = static_cast<unsigned char*>(data);
        std::size_t got = 0;
        while (got < bytes) {
            const std::size_t n = in_->read_some(p + got, bytes - got);
            if (n == 0)
                throw FormatError(in_->name() + ": " + context() + "truncated in " + what + " (at byte " +
                                  std::to_string(start + got) + ", " + std::to_string(bytes - got) + " more bytes expected)");
            got += n;
        }
    }

    // In a regular file, a length that runs past the end is truncation; found before allocating.
    void check_available(std::uint64_t bytes, const char* what) const {
        if (!in_->is_regular_file()) return;
        const std::uint64_t left = in_->size() - std::min(in_->size(), in_->position());
        if (bytes > left)
            throw FormatError(in_->name() + ": " + context() + "truncated in " + what + " (at byte " +
                              std::to_string(in_->size()) + ", " + std::to_string(bytes - left) + " more bytes expected)");
    }

    Record read_record(const std::string& what_text) {
        const char* what = what_text.c_str();
        Record rec;
        rec.offset = in_->position();
        unsigned char head[8];
        read_fully(head, sizeof head, what);
        rec.tag.assign(reinterpret_cast<const char*>(head), 4);
        for (char c : rec.tag)
            if (c < 0x20 || c > 0x7E) rec.tag = "\\x??";
        std::uint32_t length;
        std::memcpy(&length, head + 4, 4);
        if (length > max_record_body)
            fail_at(rec.offset, "record \"" + rec.tag + "\" claims " + std::to_string(length) +
                                    " bytes, above the 64 MiB limit");
        // Body and checksum in one read, so that a truncation counts every byte the record
        // still needs (not only those of the part it was cut in).
        std::uint64_t sum;
        check_available(std::uint64_t{length} + sizeof sum, what);
        rec.body.resize(std::size_t{length} + sizeof sum);
        read_fully(rec.body.data(), rec.body.size(), what);
        std::memcpy(&sum, rec.body.data() + length, sizeof sum);
        rec.body.resize(length);
        if (sum != xxh64(rec.body.data(), rec.body.size()))
            fail_at(rec.offset, "checksum mismatch in record \"" + rec.tag + "\"");
        return rec;
    }

    template <class F> void parse_body(const Record& rec, F&& parse) {
        ByteReader r(rec.body);
        try {
            parse(r);
        } catch (const ShortBody& e) {
            fail_at(rec.offset, "record \"" + rec.tag + "\" ends inside " + e.field);
        } catch (const FormatErrorDetail& e) {
            fail_at(rec.offset, e.what);
        }
        if (r.remaining() != 0)
            fail_at(rec.offset, "record \"" + rec.tag + "\" has " + std::to_string(r.remaining()) + " unexpected trailing bytes");
    }

    std::map<std::string, AttributeValue, std::less<>> read_attributes(ByteReader& r) {
        std::map<std::string, AttributeValue, std::less<>> out;
        const std::uint32_t count = r.u32("attribute count");
        std::string previous;
        for (std::uint32_t i = 0; i < count; ++i) {
            std::string key = r.string("attribute key");
            if (i > 0 && !(previous < key)) throw FormatErrorDetail("attribute keys not unique and sorted at \"" + key + "\"");
            const std::uint8_t kind = r.u8("attribute kind");
            AttributeValue value;
            switch (kind) {
            case 1: value = r.i64("attribute value"); break;
            case 2: value = r.f64("attribute value"); break;
            case 3: value = r.string("attribute value"); break;
            case 4: {
                const std::uint32_t n = r.u32("attribute vector length");
                if (n > r.remaining() / 8) throw ShortBody{"attribute vector"};
                std::vector<double> v(n);
                for (auto& x : v) x = r.f64("attribute vector");
                value = std::move(v);
                break;
            }
            default: throw FormatErrorDetail("attribute \"" + key + "\" has unknown kind " + std::to_string(kind));
            }
            previous = key;
            out.emplace(std::move(key), std::move(value));
        }
        return out;
    }

    // A semantic error inside a record body, reported with the record's position.
    struct FormatErrorDetail {
        std::string what;
    };

    std::optional<Frame> read_frame(const Record& rec) {
        in_frame_ = true;
        Frame frame;
        std::vector<PendingGroup> groups;
        std::uint64_t total_bytes = 0, total_blocks = 0;
        parse_body(rec, [&](ByteReader& r) {
                frame.step = r.i64("step");
                frame.time = r.f64("time");
                frame.dt = r.f64("dt");
                frame.time_unit_si = r.f64("time_unit_si");
                frame.attributes = read_attributes(r);
                const std::uint32_t group_count = r.u32("group count");
                for (std::uint32_t g = 0; g < group_count; ++g) {
                    std::string name = r.string("group name");
                    const std::uint64_t count = r.u64("particle count");
                    const std::uint32_t columns = r.u32("column count");
                    if (!valid_name(name)) throw FormatErrorDetail("invalid group name \"" + name + "\"");
                    if (frame.find_group(name)) throw FormatErrorDetail("duplicate group \"" + name + "\"");
                    frame.add_group(name, 0);
                    std::vector<PendingColumn> pending;
                    std::unordered_set<std::string> column_names;
                    for (std::uint32_t c = 0; c < columns; ++c) {
                        PendingColumn col;
                        col.name = r.string("column name");
                        const std::uint8_t type = r.u8("scalar type");
                        col.filter = r.u8("filter");
                        const std::uint16_t reserved = r.u16("reserved");
                        col.components = r.u32("components");
                        for (auto& p : col.unit.dimension) p = r.f64("unitDimension");
                        col.unit.si_factor = r.f64("unitSI");
                        col.rows_per_block = r.u64("rows per block");
                        const std::string where = "group \"" + name + "\", column \"" + col.name + "\": ";
                        if (!valid_name(col.name)) throw FormatErrorDetail("group \"" + name + "\": invalid column name \"" + col.name + "\"");
                        if (!column_names.insert(col.name).second) throw FormatErrorDetail(where + "duplicate column");
                        if (type < 1 || type > 7) throw FormatErrorDetail(where + "unknown scalar type code " + std::to_string(type));
                        col.type = static_cast<ScalarType>(type);
                        if (col.filter & ~(filter_delta | filter_shuffle))
                            throw FormatErrorDetail(where + "unknown filter bits " + std::to_string(col.filter));
                        if ((col.filter & filter_delta) && is_float(col.type))
                            throw FormatErrorDetail(where + "delta filter on a floating-point column");
                        if (reserved != 0) throw FormatErrorDetail(where + "reserved field is not 0");
                        if (col.components < 1 || col.components > max_components)
                            throw FormatErrorDetail(where + std::to_string(col.components) + " components (1..65536 allowed)");
                        const std::uint64_t row_bytes = std::uint64_t(col.components) * scalar_size(col.type);
                        if (col.rows_per_block < 1 || col.rows_per_block > max_block_raw / row_bytes)
                            throw FormatErrorDetail(where + "rows per block " + std::to_string(col.rows_per_block) +
                                                    " make blocks larger than 16 MiB");
                        if (count > (limit_ - total_bytes) / row_bytes)
                            throw FormatErrorDetail(where + std::to_string(count) + " particles would need more than " +
                                                    std::to_string(limit_ >> 20) + " MiB (this machine's memory) for the frame");
                        total_bytes += count * row_bytes;
                        total_blocks += (count + col.rows_per_block - 1) / col.rows_per_block;
                        pending.push_back(std::move(col));
                    }
                    groups.push_back({count, std::move(pending)});
                }
            });
        // Where this frame is and what it says it is: the index must say the same (check_index),
        // so that a seek through a damaged index never delivers another frame than asked for.
        member_seen_.push_back({rec.offset - member_start_, frame.step, frame.time});
        if (has_index_ && member_start_ == 0 && frame_ < index_entries_.size() &&
            !same_entry(index_entries_[frame_], member_seen_.back()))
            fail_at(rec.offset, index_mismatch(frame_, index_entries_[frame_], member_seen_.back()));
        if (in_->is_regular_file()) {
            const std::uint64_t left = in_->size() - std::min(in_->size(), in_->position());
            if (total_blocks > left / block_header_bytes)
                fail_at(rec.offset, "directory declares " + std::to_string(total_blocks) +
                                           " blocks but only " + std::to_string(left) + " bytes remain in the file");
        }
        // Only now, with every size checked, allocate the columns.
        std::vector<BlockRead> blocks;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            Group& group = frame.groups()[g];
            group.resize(groups[g].count);
            // Every byte is overwritten by the blocks, or the read fails and the frame is dropped.
            for (auto& col : groups[g].columns)
                group.add_column(Column::uninitialized(col.name, col.type, col.components, groups[g].count, col.unit,
                                                       memory_for(memory_, group.name(), col.name)));
        }
        // Columns no longer move: take pointers into them.
        for (std::size_t g = 0; g < groups.size(); ++g) {
            Group& group = frame.groups()[g];
            for (std::size_t c = 0; c < groups[g].columns.size(); ++c) {
                const auto& col = groups[g].columns[c];
                Column& column = group.columns()[c];
                const std::size_t width = scalar_size(col.type);
                const std::size_t row_bytes = width * col.components;
                std::uint64_t b = 0;
                for (std::uint64_t row = 0; row < column.count(); row += col.rows_per_block, ++b) {
                    const std::uint64_t rows = std::min(col.rows_per_block, column.count() - row);
                    BlockRead block{};
                    block.column = &column;
                    block.group_index = g;
                    block.block_index = b;
                    block.dest = column.raw().data() + row * row_bytes;
                    block.raw_bytes = static_cast<std::size_t>(rows * row_bytes);
                    block.width = width;
                    block.components = col.components;
                    block.filter = col.filter;
                    blocks.push_back(std::move(block));
                }
            }
        }
        read_blocks(frame, blocks);
        in_frame_ = false;
        ++frame_;
        ++member_frames_;
        return frame;
    }

    void read_blocks(const Frame& frame, std::vector<BlockRead>& blocks) {
        std::size_t raw_total = 0;
        for (const auto& b : blocks) raw_total += b.raw_bytes;
        const std::size_t slots = std::size_t(threads_) * 2;
        if (pool_.size() < slots + 1) pool_.resize(slots + 1);
        // Small frames are not worth waking a thread team (it costs more than decoding).
        if (threads_ == 1 || blocks.size() < 2 || raw_total < parallel_min_bytes) {
            for (auto& b : blocks) {
                read_block(frame, b, pool_[slots]);
                decode(b, 0);
                if (!b.error.empty()) fail_block(frame, b, b.error);
            }
            return;
        }
        // One thread reads the blocks in order (the stream is sequential) and hands each to a
        // decoding task in a free pool buffer, so reading overlaps decoding; with every buffer
        // in flight it decodes the block itself. Memory: at most slots + 1 stored blocks.
        std::vector<std::size_t> free_slots;
        for (std::size_t i = 0; i < slots; ++i) free_slots.push_back(i);
        std::exception_ptr failure;
#pragma omp parallel num_threads(threads_)
#pragma omp single
        for (auto& block : blocks) {
            std::size_t slot = slots;  // the reader's own buffer
#pragma omp critical(partikel_stream_slots)
            if (!free_slots.empty()) {
                slot = free_slots.back();
                free_slots.pop_back();
            }
            try {
                read_block(frame, block, pool_[slot]);
            } catch (...) {
                failure = std::current_exception();
                break;
            }
            if (slot == slots) {
                decode(block, omp_get_thread_num());
                continue;
            }
            BlockRead* b = &block;
#pragma omp task firstprivate(b, slot) shared(free_slots)
            {
                decode(*b, omp_get_thread_num());
#pragma omp critical(partikel_stream_slots)
                free_slots.push_back(slot);
            }
        }
        // The end of the parallel region waited for every task.
        if (failure) std::rethrow_exception(failure);
        for (const auto& b : blocks)
            if (!b.error.empty()) fail_block(frame, b, b.error);
    }

    [[noreturn]] void fail_block(const Frame& frame, const BlockRead& b, const std::string& what) const {
        fail_at(b.offset, "group \"" + frame.groups()[b.group_index].name() + "\", column \"" + b.column->name() +
                                 "\", block " + std::to_string(b.block_index) + ": " + what);
    }

    // Reads a block's stored bytes: straight into the column when they need no decoding
    // there (raw, no shuffle), else into `buffer`.
    std::size_t read_block(const Frame& frame, BlockRead& b, PoolBuffer& buffer) {
        b.offset = in_->position();
        unsigned char head[block_header_bytes];
        read_fully(head, sizeof head, "column block header");
        std::uint32_t stored;
        std::memcpy(&stored, head, 4);
        b.codec = head[4];
        std::memcpy(&b.checksum, head + 8, 8);
        if (head[5] || head[6] || head[7]) fail_block(frame, b, "reserved bytes are not 0");
        if (b.codec == 0 && stored != b.raw_bytes)
            fail_block(frame, b, "stored size " + std::to_string(stored) + " differs from raw size " + std::to_string(b.raw_bytes));
        if (b.codec == 1 && stored > ZSTD_compressBound(b.raw_bytes))
            fail_block(frame, b, "stored size " + std::to_string(stored) + " exceeds the zstd bound for " +
                                     std::to_string(b.raw_bytes) + " bytes");
        if (b.codec > 1) fail_block(frame, b, "unknown codec " + std::to_string(b.codec));
        check_available(stored, "column block");
        std::byte* target;
        if (b.codec == 0 && !(b.filter & filter_shuffle)) {
            target = b.dest;
        } else {
            if (buffer.size() < stored) buffer.resize(stored);
            target = buffer.data();
        }
        read_fully(target, stored, "column block");
        b.stored = {target, stored};
        return stored;
    }

    void decode(BlockRead& b, int thread) {
        if (xxh64(b.stored.data(), b.stored.size()) != b.checksum) {
            b.error = "checksum mismatch";
            return;
        }
        const bool shuffled = b.filter & filter_shuffle;
        std::byte* target = b.dest;
        if (shuffled) {
            auto& scratch = scratch_[thread];
            if (scratch.size() < b.raw_bytes) scratch.resize(b.raw_bytes);
            target = scratch.data();
        }
        if (b.codec == 1) {
            auto*& dctx = dctx_[thread];
            if (!dctx) dctx = ZSTD_createDCtx();
            const std::size_t n = ZSTD_decompressDCtx(dctx, target, b.raw_bytes, b.stored.data(), b.stored.size());
            if (ZSTD_isError(n)) {
                b.error = std::string("zstd: ") + ZSTD_getErrorName(n);
                return;
            }
            if (n != b.raw_bytes) {
                b.error = "decompressed to " + std::to_string(n) + " bytes, expected " + std::to_string(b.raw_bytes);
                return;
            }
        } else if (b.stored.data() != target) {
            std::memcpy(target, b.stored.data(), b.raw_bytes);
        }
        const std::size_t values = b.raw_bytes / b.width;
        if (shuffled) unshuffle_bytes(target, b.dest, values / b.components, b.width * b.components);
        if (b.filter & filter_delta) delta_decode(b.dest, values, b.width, b.components);
    }

    void check_index(ByteReader& r, std::uint64_t offset) {
        const std::uint64_t count = r.u64("index frame count");
        if (count != member_frames_)
            fail_at(offset, "index lists " + std::to_string(count) + " frames, stream has " + std::to_string(member_frames_));
        if (count > r.remaining() / 24) throw ShortBody{"index entries"};
        for (std::uint64_t i = 0; i < count; ++i) {
            IndexEntry entry;
            entry.offset = r.u64("index offset");
            entry.step = r.i64("index step");
            entry.time = r.f64("index time");
            // Every frame read in this stream (all of them unless a seek skipped some) is where
            // the index says, with its step and time.
            if (i >= member_seen_first_ && i - member_seen_first_ < member_seen_.size() &&
                !same_entry(entry, member_seen_[i - member_seen_first_]))
                throw FormatErrorDetail(index_mismatch(i, entry, member_seen_[i - member_seen_first_]));
        }
    }

    struct IndexEntry {
        std::uint64_t offset = 0;  // of the frame's PKFR record, from its stream's preamble
        std::int64_t step = 0;
        double time = 0.0;
    };
    static bool same_entry(const IndexEntry& a, const IndexEntry& b) {
        return a.offset == b.offset && a.step == b.step && std::memcmp(&a.time, &b.time, sizeof a.time) == 0;
    }
    static std::string index_mismatch(std::uint64_t frame, const IndexEntry& listed, const IndexEntry& found) {
        const auto describe = [](const IndexEntry& e) {
            return "byte " + std::to_string(e.offset) + ", step " + std::to_string(e.step) + ", t = " + format_g(e.time);
        };
        return "the index's entry for frame " + std::to_string(frame) + " (" + describe(listed) +
               ") does not match the frame read (" + describe(found) + "): a damaged index";
    }

    // Checks the end record; true when another stream follows (a concatenation).
    bool finish_member(const Record& rec) {
        std::uint64_t frames = 0, index_offset = 0;
        parse_body(rec, [&](ByteReader& r) {
            frames = r.u64("frame count");
            index_offset = r.u64("index offset");
        });
        if (frames != member_frames_)
            fail_at(rec.offset, "end record says " + std::to_string(frames) + " frames, stream has " + std::to_string(member_frames_));
        if (index_offset != (seen_index_ ? index_offset_seen_ - member_start_ : 0))
            fail_at(rec.offset, "end record points to an index at byte " + std::to_string(index_offset) +
                                    " that is not where the index is");
        unsigned char next[8];
        std::size_t n = 0;
        while (n < sizeof next) {
            const std::size_t got = in_->read_some(next + n, sizeof next - n);
            if (got == 0) break;
            n += got;
        }
        if (n == 0) {
            done_ = true;
            return false;
        }
        if (n < sizeof next || !std::equal(stream_magic.begin(), stream_magic.end(), next))
            fail_at(in_->position() - n, "data after the end record (not another stream)");
        read_member_start(next, n);
        return true;
    }

    // Reads the trailing index of a regular file, if it has a valid one, and returns to the
    // first frame; a damaged tail is left for the sequential read to report.
    void load_index() {
        if (!in_->is_regular_file()) return;
        const std::uint64_t size = in_->size();
        if (size < data_start_ + end_record_bytes) return;
        try {
            in_->seek(size - end_record_bytes);
            unsigned char end[end_record_bytes];
            read_fully(end, sizeof end, "end record");
            const unsigned char expected_head[8] = {'P', 'K', 'E', 'N', 16, 0, 0, 0};
            std::uint64_t frames, offset, sum;
            std::memcpy(&frames, end + 8, 8);
            std::memcpy(&offset, end + 16, 8);
            std::memcpy(&sum, end + 24, 8);
            if (std::memcmp(end, expected_head, 8) != 0 || sum != xxh64(end + 8, 16)) throw FormatError("");
            if (offset < data_start_ || offset >= size - end_record_bytes) throw FormatError("");
            if (frames > size / 24 || offset + record_overhead + 8 + frames * 24 != size - end_record_bytes) throw FormatError("");
            in_->seek(offset);
            Record index = read_record("index");
            if (index.tag != "PKIX" || index.body.size() != 8 + frames * 24) throw FormatError("");
            std::vector<IndexEntry> entries(frames);
            for (std::uint64_t i = 0; i < frames; ++i) {
                const std::byte* entry = index.body.data() + 8 + i * 24;
                std::memcpy(&entries[i].offset, entry, 8);
                std::memcpy(&entries[i].step, entry + 8, 8);
                std::memcpy(&entries[i].time, entry + 16, 8);
                // Frames follow each other: offsets that do not increase cannot be this stream's.
                const std::uint64_t after = i == 0 ? data_start_ : entries[i - 1].offset + 1;
                if (entries[i].offset < after || entries[i].offset >= offset) throw FormatError("");
            }
            index_entries_ = std::move(entries);
            index_record_offset_ = offset;
            has_index_ = true;
        } catch (const FormatError&) {
            index_entries_.clear();
            has_index_ = false;
        }
        in_->seek(data_start_);
    }

    static bool valid_name(const std::string& name) {
        return !name.empty() && name.size() <= 255 && name != "." && name != ".." &&
               name.find('/') == std::string::npos && name.find('\0') == std::string::npos;
    }

    struct PendingColumn {
        std::string name;
        ScalarType type{};
        std::uint8_t filter = 0;
        std::uint32_t components = 1;
        Unit unit;
        std::uint64_t rows_per_block = 1;
    };
    struct PendingGroup {
        std::uint64_t count;
        std::vector<PendingColumn> columns;
    };

    std::unique_ptr<InputStream> in_;
    std::shared_ptr<ColumnMemory> memory_;  // where wanted columns are decoded (reader.hpp)
    int threads_;
    std::uint64_t limit_ = stream_frame_byte_limit();
    std::uint64_t frame_ = 0;           // frames read, over all concatenated streams
    std::uint64_t member_start_ = 0;    // byte offset of the current stream's preamble
    std::uint64_t member_frames_ = 0;   // frames read in the current stream
    std::uint64_t data_start_ = 0;
    bool in_frame_ = false;
    bool done_ = false;
    bool seen_index_ = false;
    std::uint64_t index_offset_seen_ = 0;
    bool has_index_ = false;
    std::vector<IndexEntry> index_entries_;
    std::vector<IndexEntry> member_seen_;       // the frames read in the current stream, in order
    std::uint64_t member_seen_first_ = 0;       // the stream frame number of member_seen_[0]
    std::uint64_t index_record_offset_ = 0;
    std::vector<PoolBuffer> pool_;     // stored bytes of one batch, reused
    std::vector<PoolBuffer> scratch_ = std::vector<PoolBuffer>(threads_);
    std::vector<ZSTD_DCtx*> dctx_ = std::vector<ZSTD_DCtx*>(threads_, nullptr);

public:
    ~StreamReader() override {
        for (auto* d : dctx_) ZSTD_freeDCtx(d);
    }
};

}  // namespace

std::unique_ptr<FrameReader> make_stream_reader(std::unique_ptr<InputStream> in, std::shared_ptr<ColumnMemory> memory) {
    return std::make_unique<StreamReader>(std::move(in), std::move(memory));
}

}  // namespace partikel::fmt
