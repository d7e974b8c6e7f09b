#include "run/frame_output.hpp"

#include <omp.h>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace partikel::run {
namespace {

// See the header: keep freed frame memory in the heap instead of unmapping it.
void reuse_freed_frame_memory() {
#if defined(__GLIBC__)
    static std::once_flag once;
    std::call_once(once, [] {
        // Both settings also turn off glibc's dynamic threshold, which would otherwise settle at
        // 32 MiB; blocks below 1 GiB then come from the heap and stay there once freed.
        mallopt(M_MMAP_THRESHOLD, 1 << 30);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
    });
#endif
}

void lower_priority() {
    // Below the stepping thread: the OpenMP threads this thread starts inherit the value.
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

FrameOutput::FrameOutput(Simulation& simulation, fmt::FrameWriter& writer, Provenance provenance, int slots)
    : simulation_(simulation), writer_(writer), provenance_(std::move(provenance)),
      ranks_(simulation.communicator().duplicate()),
      staged_(simulation.backend(), simulation.frame_buffer_capacity(), slots) {
    reuse_freed_frame_memory();
    if (ranks_.size() > 1) {
        // A window per slot; each rank's segment holds what its staging slot holds, after its
        // particle count (the first part of every gather).
        std::vector<std::size_t> parts{sizeof(std::uint64_t)};
        for (const std::size_t bytes : simulation.frame_buffer_capacity()) parts.push_back(bytes);
        shared_ = dist::NodeSharedSegments::allocate(ranks_, parts, slots);
    }
    // New threads start from OpenMP's process-wide default, not from this thread's setting
    // (--threads, a rank's share of the host): they take this thread's.
    const int host_threads = omp_get_max_threads();
    builder_ = std::thread([this, host_threads] {
        omp_set_num_threads(host_threads);
        builder_loop();
    });
    if (ranks_.root())
        writer_thread_ = std::thread([this, host_threads] {
            omp_set_num_threads(host_threads);
            writer_loop();
        });
}

FrameOutput::~FrameOutput() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    if (builder_.joinable()) builder_.join();
    if (writer_thread_.joinable()) writer_thread_.join();
}

void FrameOutput::rethrow_failure() {
    if (failure_) {
        auto failure = failure_;
        std::rethrow_exception(failure);
    }
}

void FrameOutput::fail(std::exception_ptr failure) {
    {
        std::lock_guard lock(mutex_);
        if (!failure_) failure_ = failure;
    }
    changed_.notify_all();
}

bool FrameOutput::backlogged() const {
    std::lock_guard lock(mutex_);
    return staged_.free_slot() < 0;
}

double FrameOutput::write() {
    double waited = 0.0;
    int slot = -1;
    {
        std::unique_lock lock(mutex_);
        rethrow_failure();
        slot = staged_.free_slot();
        if (slot < 0) {
            const auto start = std::chrono::steady_clock::now();
            changed_.wait(lock, [&] { return failure_ || staged_.free_slot() >= 0; });
            waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            rethrow_failure();
            slot = staged_.free_slot();
        }
    }
    FrameCapture capture = simulation_.frame_capture();
    staged_.capture(slot, capture.buffers);
    last_step_ = capture.step;
    {
        std::lock_guard lock(mutex_);
        jobs_.push_back({slot, frames_++, std::move(capture)});
    }
    changed_.notify_all();
    return waited;
}

void FrameOutput::finish() {
    std::unique_lock lock(mutex_);
    // After a failure, still until no thread holds a frame: the caller may close the writer next.
    changed_.wait(lock, [&] { return busy_ == 0 && (failure_ || (jobs_.empty() && built_.empty())); });
    rethrow_failure();
}

FrameOutput::StageSeconds FrameOutput::stage_seconds() const {
    std::lock_guard lock(mutex_);
    return stages_;
}

std::optional<fmt::Frame> FrameOutput::gather_frame(const Job& job, std::span<const std::span<const std::byte>> host) {
    auto start = std::chrono::steady_clock::now();
    const auto add = [&](double StageSeconds::*stage) {
        std::lock_guard lock(mutex_);
        stages_.*stage += seconds_since(start);
        start = std::chrono::steady_clock::now();
    };
    if (ranks_.size() == 1) {
        auto frame = simulation_.build_frame(host, job.capture);
        add(&StageSeconds::build);
        return frame;
    }
    const std::uint64_t count = job.capture.count;
    std::vector<RankFrame> frames(std::size_t(ranks_.size()));
    if (shared_) {
        // Every rank: its count and buffers into its segment of the frame's window; rank 0 builds
        // from the window itself and then lets the ranks refill it.
        const int window = int(job.frame % std::uint64_t(shared_->windows()));
        std::vector<std::span<const std::byte>> parts{std::as_bytes(std::span<const std::uint64_t>(&count, 1))};
        parts.insert(parts.end(), host.begin(), host.end());
        const auto all = shared_->gather(window, parts);  // [rank][part]
        add(&StageSeconds::gather);
        if (!ranks_.root()) {
            shared_->release(window);
            return std::nullopt;
        }
        for (std::size_t r = 0; r < frames.size(); ++r) {
            std::memcpy(&frames[r].count, all[r][0].data(), sizeof(std::uint64_t));
            frames[r].buffers.assign(all[r].begin() + 1, all[r].end());
        }
        auto frame = simulation_.build_frame(frames, job.capture);
        shared_->release(window);
        add(&StageSeconds::build);
        return frame;
    }
    // Other hosts: every rank's count, then each buffer from every rank, in capture order.
    auto counts = ranks_.gatherv(std::as_bytes(std::span<const std::uint64_t>(&count, 1)));
    std::vector<std::vector<dist::ReceivedBytes>> parts;  // [buffer][rank]
    for (const auto& buffer : host) parts.push_back(ranks_.gatherv(buffer));
    add(&StageSeconds::gather);
    if (!ranks_.root()) return std::nullopt;
    for (std::size_t r = 0; r < frames.size(); ++r) {
        std::memcpy(&frames[r].count, counts[r].data(), sizeof(std::uint64_t));
        for (const auto& buffer : parts) frames[r].buffers.emplace_back(buffer[r]);
    }
    auto frame = simulation_.build_frame(frames, job.capture);
    add(&StageSeconds::build);
    return frame;
}

void FrameOutput::builder_loop() {
    lower_priority();
    for (;;) {
        Job job;
        {
            std::unique_lock lock(mutex_);
            // One built frame may wait for the writer; a second would only hold memory.
            changed_.wait(lock, [&] { return failure_ || (!jobs_.empty() && built_.empty()) || (stop_ && jobs_.empty()); });
            if (failure_ || jobs_.empty()) return;  // a failure, or stopped with nothing left
            job = std::move(jobs_.front());
            jobs_.pop_front();
            ++busy_;
        }
        try {
            const auto copy_start = std::chrono::steady_clock::now();
            const auto host = staged_.wait(job.slot);
            {
                std::lock_guard lock(mutex_);
                stages_.copy += seconds_since(copy_start);
            }
            std::optional<fmt::Frame> frame = gather_frame(job, host);
            if (frame) {
                for (const auto& [key, value] : job.capture.attributes) frame->attributes[key] = value;
                add_provenance(provenance_, *frame);
            }
            std::lock_guard lock(mutex_);
            // The frame holds its own copy now (other ranks: rank 0 has it): the slot may be
            // refilled while it is written.
            staged_.release(job.slot);
            if (frame) built_.push_back(std::move(*frame));
            --busy_;
        } catch (...) {
            {
                std::lock_guard lock(mutex_);
                staged_.release(job.slot);
                --busy_;
            }
            fail(std::current_exception());
        }
        changed_.notify_all();
    }
}

void FrameOutput::writer_loop() {
    lower_priority();
    for (;;) {
        fmt::Frame frame;
        {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [&] {
                return failure_ || !built_.empty() || (stop_ && jobs_.empty() && busy_ == 0);
            });
            if (failure_ || built_.empty()) return;
            frame = std::move(built_.front());
            built_.pop_front();
            ++busy_;
        }
        changed_.notify_all();  // the builder may start the next frame
        try {
            const auto write_start = std::chrono::steady_clock::now();
            writer_.write(std::move(frame));
            std::lock_guard lock(mutex_);
            stages_.write += seconds_since(write_start);
            --busy_;
        } catch (...) {
            {
                std::lock_guard lock(mutex_);
                --busy_;
            }
            fail(std::current_exception());
        }
        changed_.notify_all();
    }
}

}  // namespace partikel::run
