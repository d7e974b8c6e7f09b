// Frames written while a simulation steps on.
//
// write() captures the simulation's current state (Simulation::frame_capture: the buffers a
// frame needs) into a free slot of a StagedCopy (device -> staging -> pinned host memory on a
// second queue) and returns. Two threads do the rest while the steps go on, as a pipeline: a
// builder waits for that copy, builds the frame (Simulation::build_frame, which frees the slot)
// and adds provenance; a writer compresses and writes it through the FrameWriter. So building
// frame n+1 (memory-bound) overlaps compressing frame n (compute-bound), and the writer's limit
// is the slower of the two rather than their sum. Frames are written in order and never
// dropped: with `slots` staging slots (default 2) and one built frame waiting for the writer,
// a write() that finds every slot still held waits and reports how long it waited. Both threads
// run at a lower scheduling priority (nice 10) than the stepping thread, whose kernel launches
// must not wait for a compressor: on the GPU machine that keeps the step loop at full speed
// while the other cores build and compress.
//
// Freed frame memory is reused (glibc's mmap threshold raised once, process-wide): a frame's
// columns are tens to hundreds of MB, and glibc returns such blocks to the kernel on free, so
// each frame would fault in and zero its pages again (on the GPU machine, about half of the
// time a 10M-particle frame took to build).
//
// Several ranks (Simulation::communicator()): every rank captures its own rows the same way; its
// builder thread hands the host copies to rank 0 (on a communicator of its own, so the gather
// overlaps the steps' exchanges), whose builder makes one frame of them
// (Simulation::build_frame over every rank) and whose writer writes it. Only rank 0 writes;
// every rank calls write() and finish() at the same points. When every rank is on one host the
// copies go through shared memory (dist::NodeSharedSegments, allocated here: a window per slot,
// each rank's segment the size of its slot): a rank copies its slot into its segment of the
// frame's window with its threads and goes on; rank 0 builds from the window in place, then
// releases it. A rank waits only to refill a window rank 0 has not released, i.e. when rank 0
// is `slots` frames behind. Elsewhere the copies are sent by messages (Communicator::gatherv),
// which through OpenMPI's shared-memory transport ran at 0.5-1 GB/s (docs/PERFORMANCE.md,
// "Output across ranks").
//
// A writer's failure is rethrown by the next write() or by finish().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>

#include "core/staged_copy.hpp"
#include "dist/communicator.hpp"
#include "dist/node_shared_segments.hpp"
#include "formats/frame.hpp"
#include "formats/reader.hpp"
#include "run/provenance.hpp"
#include "run/simulation.hpp"

namespace partikel::run {

// The compression level of simulation frames: zstd 1 rather than the format's default 3. On the
// 16-core GPU machine a frame every 10 steps of DualSPHysics's dam break then costs 8-17% of the
// step time at 1-10M particles instead of 30-39% (docs/PERFORMANCE.md, "Output"), for frames
// about 3% larger; particle-convert --level recompresses kept frames smaller.
inline constexpr int kFrameZstdLevel = 1;

class FrameOutput {
public:
    // `simulation` and `writer` must outlive this object. With several ranks, collective (every
    // rank constructs one); only rank 0's writer is written to.
    FrameOutput(Simulation& simulation, fmt::FrameWriter& writer, Provenance provenance, int slots = 2);
    ~FrameOutput();  // waits for the frames in flight; errors are dropped here (call finish())
    FrameOutput(const FrameOutput&) = delete;
    FrameOutput& operator=(const FrameOutput&) = delete;

    // Capture the current state as the next frame; returns the seconds it waited for a free slot.
    double write();
    // Wait until every frame captured so far is written; rethrows a writer's failure.
    void finish();
    // True when every slot is held (the next write() would wait).
    bool backlogged() const;

    std::int64_t last_step() const { return last_step_; }  // of the last capture, -1 before the first
    std::uint64_t frames() const { return frames_; }       // captured so far
    std::size_t device_bytes() const { return staged_.device_bytes(); }
    std::size_t host_bytes() const { return staged_.host_bytes(); }
    // How other ranks' rows reach rank 0: "shared memory", "messages", or "none" (one rank).
    std::string_view gather_path() const {
        return ranks_.size() == 1 ? "none" : shared_ ? "shared memory" : "messages";
    }

    // Seconds this rank's threads spent on each stage of the frames so far (read after
    // finish()): waiting for the device copy, gathering the other ranks' rows (rank 0 waits for
    // them, the others copy or send theirs), building the frame, and compressing and writing it
    // (rank 0). Where a frame's time goes when output cannot keep up (bench_dist prints them).
    struct StageSeconds {
        double copy = 0.0, gather = 0.0, build = 0.0, write = 0.0;
    };
    StageSeconds stage_seconds() const;

private:
    struct Job {
        int slot;
        std::uint64_t frame;  // 0 for the first capture: picks the shared window
        FrameCapture capture;
    };
    void builder_loop();
    void writer_loop();
    // Rank 0: the frame of every rank's host copies of `job`; other ranks: their copies sent.
    std::optional<fmt::Frame> gather_frame(const Job& job, std::span<const std::span<const std::byte>> host);
    void fail(std::exception_ptr failure);
    void rethrow_failure();

    Simulation& simulation_;
    fmt::FrameWriter& writer_;
    Provenance provenance_;
    dist::Communicator ranks_;  // the builders' own (Communicator::duplicate)
    // Several ranks on one host: the windows the frames are gathered through, one per slot.
    std::optional<dist::NodeSharedSegments> shared_;
    StagedCopy staged_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Job> jobs_;               // captured, not yet built
    std::deque<fmt::Frame> built_;       // built, not yet written (at most one)
    int busy_ = 0;                       // frames taken by the builder or the writer and not finished
    bool stop_ = false;
    std::exception_ptr failure_;
    std::int64_t last_step_ = -1;
    std::uint64_t frames_ = 0;
    StageSeconds stages_;  // under mutex_
    std::thread builder_;
    std::thread writer_thread_;
};

}  // namespace partikel::run
