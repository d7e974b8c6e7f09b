// Frames written while the solver steps on (sph-step's output, and bench_sph's output phase).
//
// write() captures the solver's state into a FrameSnapshot (device -> device copies into
// staging buffers, then a copy to pinned host memory on a second stream) and returns; a writer
// thread waits for that copy, builds the frame (make_frame) and compresses and writes it while
// the solver steps on. At most one frame is staged (in the snapshot) and one is being
// compressed: the next write() waits until the writer thread has taken the previous capture out
// of the snapshot, and frames are written in order (each writer task first waits for the one
// before). A writer's failure is rethrown by the next write() or by finish().
//
//   sph::FrameOutput out(solver, *writer, {{"program", std::string("sph-step")}});
//   while (...) { solver.step(); if (output_now) out.write(solver); }
//   out.finish();   // all frames written (the FrameWriter's own finish() stays the caller's)
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <map>
#include <string>

#include "formats/frame.hpp"
#include "formats/reader.hpp"
#include "sph/solver.hpp"

namespace partikel::sph {

class FrameOutput {
public:
    // `writer` must outlive this object. `attributes` are added to every frame, with
    // "sph.removed" (the state's count) and the parameters make_frame writes.
    FrameOutput(const Solver& solver, fmt::FrameWriter& writer,
                std::map<std::string, fmt::AttributeValue, std::less<>> attributes = {});
    ~FrameOutput();  // waits for the frames in flight; errors are dropped here (call finish())
    FrameOutput(const FrameOutput&) = delete;
    FrameOutput& operator=(const FrameOutput&) = delete;

    // Capture the solver's current state as the next frame; returns before it is written.
    void write(Solver& solver);
    // Wait until every frame captured so far is written; rethrows a writer's failure.
    void finish();
    // The step of the last frame captured, -1 before the first.
    std::int64_t last_step() const { return last_step_; }
    // Device memory of the staging buffers (FrameSnapshot::device_bytes()).
    std::size_t device_bytes() const { return snapshot_.device_bytes(); }

private:
    fmt::FrameWriter& writer_;
    const SphParams params_;
    const std::map<std::string, fmt::AttributeValue, std::less<>> attributes_;
    FrameSnapshot snapshot_;
    std::future<void> released_;  // the last capture has been taken out of the snapshot
    std::future<void> writing_;   // the last frame has been written
    std::int64_t last_step_ = -1;
};

}  // namespace partikel::sph
