// Stream writer (SPEC.md §2). Blocks are filtered and compressed in parallel and written in
// order, so memory beyond the caller's frame is one ring of compressed blocks.
#include <omp.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "base/system.hpp"
#include "formats/stream/bytes.hpp"
#include "formats/stream/filters.hpp"
#include "formats/stream/stream.hpp"
#include "formats/stream/xxhash64.hpp"
#include "partikel_config.hpp"

namespace partikel::fmt {
namespace {

void append_attributes(ByteWriter& w, const std::map<std::string, AttributeValue, std::less<>>& attributes) {
    w.u32(static_cast<std::uint32_t>(attributes.size()));
    for (const auto& [key, value] : attributes) {
        w.string(key);
        w.u8(static_cast<std::uint8_t>(value.index() + 1));
        std::visit([&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::int64_t>) w.i64(v);
            else if constexpr (std::is_same_v<T, double>) w.f64(v);
            else if constexpr (std::is_same_v<T, std::string>) w.string(v);
            else {
                w.u32(static_cast<std::uint32_t>(v.size()));
                for (double x : v) w.f64(x);
            }
        }, value);
    }
}

std::uint8_t default_filter(ScalarType type, bool filters) {
    if (!filters || type == ScalarType::u8) return 0;
    return is_float(type) ? filter_shuffle : filter_delta | filter_shuffle;
}

// One block to encode: rows [row0, row0 + rows) of a column.
struct BlockJob {
    const std::byte* raw;
    std::size_t raw_bytes;
    std::size_t width;
    std::size_t components;
    std::uint8_t filter;
};

struct EncodedBlock {
    std::vector<std::byte> bytes;  // capacity kept across batches
    std::size_t size = 0;
    std::uint8_t codec = 0;
    std::uint64_t checksum = 0;
    std::string error;
};

class StreamWriter final : public FrameWriter {
public:
    StreamWriter(std::unique_ptr<OutputStream> out, const WriterOptions& options)
        : out_(std::move(out)), options_(options),
          threads_(options.threads > 0 ? options.threads : omp_get_max_threads()) {
        if (options_.compress) {
            const auto [lo, hi] = std::pair{ZSTD_minCLevel(), ZSTD_maxCLevel()};
            if (options_.zstd_level < lo || options_.zstd_level > hi)
                throw UsageError("zstd level " + std::to_string(options_.zstd_level) + " is outside " +
                                 std::to_string(lo) + ".." + std::to_string(hi));
        }
        for (int t = 0; t < threads_; ++t) {
            contexts_.push_back(ZSTD_createCCtx());
            if (!contexts_.back()) throw std::bad_alloc();
            ZSTD_CCtx_setParameter(contexts_.back(), ZSTD_c_compressionLevel, options_.zstd_level);
        }
        scratch_.resize(threads_);
        batch_.resize(static_cast<std::size_t>(threads_) * 2);
    }

    ~StreamWriter() override {
        for (auto* c : contexts_) ZSTD_freeCCtx(c);
    }

    void write(const Frame& frame) override {
        if (finished_) throw UsageError(out_->name() + ": write after finish");
        start();
        index_.push_back({out_->position(), frame.step, frame.time});

        ByteWriter dir;
        dir.i64(frame.step);
        dir.f64(frame.time);
        dir.f64(frame.dt);
        dir.f64(frame.time_unit_si);
        append_attributes(dir, frame.attributes);
        dir.u32(static_cast<std::uint32_t>(frame.groups().size()));
        std::vector<BlockJob> jobs;
        std::uint64_t frame_raw = 0;
        for (const auto& group : frame.groups())
            for (const auto& column : group.columns()) frame_raw += column.raw().size();
        const std::uint64_t block_raw = std::clamp(frame_raw / blocks_per_frame_target, min_target_block_raw,
                                                   max_target_block_raw);
        for (const auto& group : frame.groups()) {
            dir.string(group.name());
            dir.u64(group.count());
            dir.u32(static_cast<std::uint32_t>(group.columns().size()));
            for (const auto& column : group.columns()) {
                if (column.components() > max_components)
                    throw UsageError("column \"" + column.name() + "\" has more than 65536 components");
                const std::size_t width = scalar_size(column.type());
                const std::size_t row_bytes = width * column.components();
                const std::uint64_t rows_per_block = std::max<std::uint64_t>(1, block_raw / row_bytes);
                const std::uint8_t filter = default_filter(column.type(), options_.filters);
                dir.string(column.name());
                dir.u8(static_cast<std::uint8_t>(column.type()));
                dir.u8(filter);
                dir.u16(0);
                dir.u32(column.components());
                for (double p : column.unit().dimension) dir.f64(p);
                dir.f64(column.unit().si_factor);
                dir.u64(rows_per_block);
                for (std::uint64_t row = 0; row < column.count(); row += rows_per_block) {
                    const std::uint64_t rows = std::min(rows_per_block, column.count() - row);
                    jobs.push_back({column.raw().data() + row * row_bytes, static_cast<std::size_t>(rows * row_bytes),
                                    width, column.components(), filter});
                }
            }
        }
        write_record("PKFR", dir.bytes());
        write_blocks(jobs);
        // Each complete frame reaches the file at once: after a crash (SIGKILL, power loss) the
        // temporary holds every frame written so far, which particle-info and particle-convert
        // recover (SPEC.md §2.10).
        out_->flush();
    }

    void finish() override {
        if (finished_) return;
        start();
        std::uint64_t index_offset = 0;
        if (options_.write_index) {
            index_offset = out_->position();
            ByteWriter w;
            w.u64(index_.size());
            for (const auto& e : index_) {
                w.u64(e.offset);
                w.i64(e.step);
                w.f64(e.time);
            }
            write_record("PKIX", w.bytes());
        }
        ByteWriter end;
        end.u64(index_.size());
        end.u64(index_offset);
        write_record("PKEN", end.bytes());
        out_->commit();
        finished_ = true;
    }

    const std::string& name() const override { return out_->name(); }

private:
    struct IndexEntry {
        std::uint64_t offset;
        std::int64_t step;
        double time;
    };

    void start() {
        if (started_) return;
        started_ = true;
        ByteWriter pre;
        pre.put(stream_magic.data(), stream_magic.size());
        pre.u16(stream_version_major);
        pre.u16(stream_version_minor);
        pre.u32(0);
        out_->write(pre.bytes());
        ByteWriter header;
        std::map<std::string, AttributeValue, std::less<>> info{
            {"created", output_time_utc("%Y-%m-%dT%H:%M:%SZ")}, {"writer", std::string("partikel ") + PARTIKEL_VERSION}};
        append_attributes(header, info);
        write_record("PKHD", header.bytes());
    }

    void write_record(const char (&tag)[5], const std::vector<std::byte>& body) {
        if (body.size() > max_record_body)
            throw UsageError(out_->name() + ": " + tag + " record of " + std::to_string(body.size()) +
                             " bytes exceeds the 64 MiB limit (too many attributes or columns)");
        ByteWriter w;
        w.put(tag, 4);
        w.u32(static_cast<std::uint32_t>(body.size()));
        out_->write(w.bytes());
        out_->write(body);
        const std::uint64_t sum = xxh64(body.data(), body.size());
        out_->write(&sum, sizeof sum);
    }

    void encode(const BlockJob& job, EncodedBlock& out, int thread) {
        const std::size_t values = job.raw_bytes / job.width;
        const std::byte* src = job.raw;
        if (job.filter != 0) {
            auto& scratch = scratch_[thread];
            // Delta works in place, so it needs its own copy when shuffle follows.
            if (scratch.size() < 2 * job.raw_bytes) scratch.resize(2 * job.raw_bytes);
            std::byte* a = scratch.data();
            std::byte* b = scratch.data() + job.raw_bytes;
            if (job.filter & filter_delta) {
                std::memcpy(a, src, job.raw_bytes);
                delta_encode(a, values, job.width, job.components);
                src = a;
            }
            if (job.filter & filter_shuffle) {
                std::byte* dst = src == a ? b : a;
                shuffle_bytes(src, dst, values / job.components, job.width * job.components);
                src = dst;
            }
        }
        if (options_.compress) {
            const std::size_t bound = ZSTD_compressBound(job.raw_bytes);
            if (out.bytes.size() < bound) out.bytes.resize(bound);
            const std::size_t n = ZSTD_compress2(contexts_[thread], out.bytes.data(), bound, src, job.raw_bytes);
            if (ZSTD_isError(n)) {
                out.error = std::string("zstd: ") + ZSTD_getErrorName(n);
                return;
            }
            if (n < job.raw_bytes) {
                out.size = n;
                out.codec = 1;
                return;
            }
        }
        if (out.bytes.size() < job.raw_bytes) out.bytes.resize(job.raw_bytes);
        std::memcpy(out.bytes.data(), src, job.raw_bytes);
        out.size = job.raw_bytes;
        out.codec = 0;
    }

    void encode_block(const BlockJob& job, EncodedBlock& block, int thread) {
        block.error.clear();
        encode(job, block, thread);
        block.checksum = xxh64(block.bytes.data(), block.size);
    }

    void write_block(const EncodedBlock& block) {
        if (!block.error.empty()) throw Error(out_->name() + ": " + block.error);
        unsigned char header[16] = {};
        const auto size = static_cast<std::uint32_t>(block.size);
        std::memcpy(header, &size, 4);
        header[4] = block.codec;
        std::memcpy(header + 8, &block.checksum, 8);
        out_->write(header, sizeof header);
        out_->write(block.bytes.data(), block.size);
    }

    void write_blocks(const std::vector<BlockJob>& jobs) {
        std::size_t raw_total = 0;
        for (const auto& job : jobs) raw_total += job.raw_bytes;
        // Small frames are not worth waking a thread team (it costs more than compressing).
        if (threads_ == 1 || jobs.size() < 2 || raw_total < (256u << 10)) {
            for (const auto& job : jobs) {
                encode_block(job, batch_[0], 0);
                write_block(batch_[0]);
            }
            return;
        }
        // With few threads, compress a batch with all of them, then write it.
        if (threads_ <= 2) {
            for (std::size_t first = 0; first < jobs.size(); first += batch_.size()) {
                const int n = static_cast<int>(std::min(batch_.size(), jobs.size() - first));
#pragma omp parallel for schedule(dynamic) num_threads(threads_)
                for (int i = 0; i < n; ++i) encode_block(jobs[first + i], batch_[i], omp_get_thread_num());
                for (int i = 0; i < n; ++i) write_block(batch_[i]);
            }
            return;
        }
        // With more, one thread hands blocks to compression tasks in a ring of buffers and
        // writes finished blocks in order while the others compress: writing overlaps
        // compressing, and memory stays at one ring of compressed blocks.
        const std::size_t ring = batch_.size();
        std::vector<std::atomic<bool>> done(ring);
        std::exception_ptr failure;
#pragma omp parallel num_threads(threads_)
#pragma omp single
        {
            std::size_t next_write = 0;
            auto write_next = [&] {
                auto& finished = done[next_write % ring];
                while (!finished.load(std::memory_order_acquire)) std::this_thread::yield();
                finished.store(false, std::memory_order_relaxed);
                write_block(batch_[next_write % ring]);
                ++next_write;
            };
            try {
                for (std::size_t i = 0; i < jobs.size(); ++i) {
                    while (i - next_write >= ring) write_next();
                    while (next_write < i && done[next_write % ring].load(std::memory_order_acquire)) write_next();
                    const BlockJob* job = &jobs[i];
                    EncodedBlock* block = &batch_[i % ring];
                    std::atomic<bool>* finished = &done[i % ring];
#pragma omp task firstprivate(job, block, finished)
                    {
                        encode_block(*job, *block, omp_get_thread_num());
                        finished->store(true, std::memory_order_release);
                    }
                }
                while (next_write < jobs.size()) write_next();
            } catch (...) {
                failure = std::current_exception();
            }
        }
        // The end of the parallel region waited for every task.
        if (failure) std::rethrow_exception(failure);
    }

    std::unique_ptr<OutputStream> out_;
    WriterOptions options_;
    int threads_;
    std::vector<ZSTD_CCtx*> contexts_;
    std::vector<std::vector<std::byte>> scratch_;
    std::vector<EncodedBlock> batch_;
    std::vector<IndexEntry> index_;
    bool started_ = false;
    bool finished_ = false;
};

}  // namespace

std::unique_ptr<FrameWriter> make_stream_writer(std::unique_ptr<OutputStream> out, const WriterOptions& options) {
    return std::make_unique<StreamWriter>(std::move(out), options);
}

}  // namespace partikel::fmt
