// Copies of device buffers to the host that overlap the work queued after them: what a frame
// writer needs while a simulation steps on.
//
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
#include <vector>

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

}  // namespace partikel
