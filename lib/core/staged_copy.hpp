// Staged copies between pageable host memory and the device, through pinned memory allocated
// once. StagedCopy (device -> host) overlaps the work queued after it: what a frame writer needs
// while a simulation steps on. StagedUpload (host -> device, below) is what a renderer needs to
// upload a large frame at PCIe speed.
//
// StagedCopy:
// capture(slot, sources) queues, on the backend's queue, device -> device copies of `sources`
// into the slot's staging buffers and records an event; a second queue of the same device
// (Backend::with_own_stream()) waits for that event and copies the staging buffers into the
// slot's pinned host memory. capture() returns at once: the next kernels on the backend's queue
// may overwrite the sources as soon as the device -> device copies ran (at device-memory speed,
// not PCIe speed). wait(slot), from any thread, blocks until the host copy is complete and
// returns the slot's host bytes; release(slot) frees the slot for the next capture.
//
// With `slots` > 1 several captures are in flight: one being copied while the host still
// works on an earlier one. Everything is allocated in the constructor (device staging and
// pinned host memory: slots x the sum of the buffer capacities each); capture() allocates
// nothing. On the CPU backend the copies run synchronously inside capture(), into the slot's
// host buffers (there is no separate device memory to stage).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/event.hpp"

namespace partikel {

// A range of backend memory to copy.
struct DeviceBytes {
    const void* data = nullptr;
    std::size_t bytes = 0;
};

class StagedCopy {
public:
    // capacity_bytes[i]: the most bytes buffer i of a capture ever holds.
    StagedCopy(const Backend& backend, std::span<const std::size_t> capacity_bytes, int slots = 2);
    ~StagedCopy();  // waits for copies in flight (they write into memory this object frees)
    StagedCopy(const StagedCopy&) = delete;
    StagedCopy& operator=(const StagedCopy&) = delete;

    int slots() const { return static_cast<int>(slots_.size()); }
    // A slot no capture holds, or -1 when every slot is captured and not yet released.
    int free_slot() const;
    // Queue the copies of `sources` (one per buffer, each within its capacity) into `slot`, which
    // must be free. UsageError on a busy slot or an oversized source.
    void capture(int slot, std::span<const DeviceBytes> sources);
    // Blocks until the slot's host copy is complete; its buffers in capture order.
    std::vector<std::span<const std::byte>> wait(int slot);
    // The slot may be captured again.
    void release(int slot);

    std::size_t device_bytes() const;  // staging memory
    std::size_t host_bytes() const;    // pinned memory

private:
    struct Slot;
    Backend backend_;
    Backend copy_queue_;
    std::vector<std::size_t> capacity_;
    std::vector<std::unique_ptr<Slot>> slots_;
};

// Host -> device copies from pageable memory through two pinned chunks: the host's threads fill
// one chunk while the previous one travels. A copy from pageable memory goes through the
// driver's own staging, one piece at a time, at a few GB/s, and slower when several ranks of a
// host upload at once (docs/PERFORMANCE.md, "Rendering across GPUs"); this one runs at about the
// slower of the host's copy and the link. copy() returns when the source may be reused; the data
// reach `dst` before any work queued after it on the backend's queue. The chunks are allocated
// in the constructor; on the CPU backend copy() is a plain copy and nothing is allocated.
class StagedUpload {
public:
    explicit StagedUpload(const Backend& backend, std::size_t chunk_bytes = std::size_t{16} << 20);
    ~StagedUpload();  // waits for the chunks in flight
    StagedUpload(const StagedUpload&) = delete;
    StagedUpload& operator=(const StagedUpload&) = delete;

    // `dst`: backend memory of at least `bytes`; `src`: any host memory.
    void copy(void* dst, const void* src, std::size_t bytes);
    template <class T> void copy(DeviceBuffer<T>& dst, std::span<const T> src) {
        if (src.size() > dst.size())
            throw UsageError("StagedUpload: " + std::to_string(src.size()) + " values into a buffer of " +
                             std::to_string(dst.size()));
        copy(dst.data(), src.data(), src.size_bytes());
    }

private:
    Backend backend_;
    std::size_t chunk_bytes_;
    std::vector<PinnedBuffer<std::byte>> chunks_;  // two on CUDA, none on the CPU
    std::vector<Event> sent_;                      // per chunk: its last copy to the device
    std::vector<bool> in_flight_;
};

}  // namespace partikel
