#include "run/frame_output.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

namespace partikel::run {

FrameOutput::FrameOutput(Simulation& simulation, fmt::FrameWriter& writer, Provenance provenance, int slots)
    : simulation_(simulation), writer_(writer), provenance_(std::move(provenance)),
      staged_(simulation.backend(), simulation.frame_buffer_capacity(), slots) {
    thread_ = std::thread([this] { writer_loop(); });
}

FrameOutput::~FrameOutput() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void FrameOutput::rethrow_failure() {
    if (failure_) {
        auto failure = failure_;
        std::rethrow_exception(failure);
    }
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
    ++frames_;
    {
        std::lock_guard lock(mutex_);
        jobs_.push_back({slot, std::move(capture)});
    }
    changed_.notify_all();
    return waited;
}

void FrameOutput::finish() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return failure_ || (jobs_.empty() && writing_ == 0); });
    rethrow_failure();
}

void FrameOutput::writer_loop() {
    // Below the stepping thread: the compressor threads this thread starts inherit the value.
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
    for (;;) {
        Job job;
        {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [&] { return stop_ || (!jobs_.empty() && !failure_); });
            if (jobs_.empty() || failure_) return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
            ++writing_;
        }
        std::exception_ptr failure;
        try {
            const auto host = staged_.wait(job.slot);
            fmt::Frame frame = simulation_.build_frame(host, job.capture);
            {
                // The frame holds its own copy now: the slot may be refilled while it is written.
                std::lock_guard lock(mutex_);
                staged_.release(job.slot);
            }
            changed_.notify_all();
            for (const auto& [key, value] : job.capture.attributes) frame.attributes[key] = value;
            add_provenance(provenance_, frame);
            writer_.write(frame);
        } catch (...) {
            failure = std::current_exception();
            std::lock_guard lock(mutex_);
            staged_.release(job.slot);
        }
        {
            std::lock_guard lock(mutex_);
            --writing_;
            if (failure && !failure_) failure_ = failure;
        }
        changed_.notify_all();
    }
}

}  // namespace partikel::run
