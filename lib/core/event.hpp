// Ordering work between two queues of one device, and asking whether queued work is done,
// without waiting for everything on a stream (Backend::synchronize()).
//
// A Backend queues its work on one CUDA stream; Backend::with_own_stream() gives a second queue
// on the same device. An Event marks the work queued on a queue so far (record); another queue
// can be made to wait for the mark (enqueue_wait) without the host waiting, and the host can
// test (done) or wait for it (synchronize), from any thread. Typical use: kernels on the main
// queue, then a device -> host copy on a second queue that waits for them and overlaps the
// next kernels (sph::FrameSnapshot).
//
// On the CPU backend every queued operation has finished when its call returns: an event is
// always done, and enqueue_wait and synchronize return at once. The same code runs on both.
#pragma once

#include "core/backend.hpp"

namespace partikel {

class Event {
public:
    // Creates the CUDA event (without timing) once; cheap to record again and again.
    explicit Event(const Backend& backend);
    ~Event();
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& other) noexcept;
    Event& operator=(Event&& other) noexcept;

    // Mark the work queued on `queue` so far (a backend on this event's device). Replaces an
    // earlier mark.
    void record(const Backend& queue);
    // Work queued on `queue` after this call starts only once the marked work has finished.
    // Returns at once; nothing recorded yet: no wait.
    void enqueue_wait(const Backend& queue) const;
    // The marked work has finished (true when nothing was recorded).
    bool done() const;
    // The host waits for the marked work.
    void synchronize() const;

private:
    Backend backend_;
    void* event_ = nullptr;  // cudaEvent_t; nullptr on the CPU
};

}  // namespace partikel
