#include "core/staged_copy.hpp"

#include <string>

#include "base/error.hpp"
#include "core/memory.hpp"

namespace partikel {

struct StagedCopy::Slot {
    Slot(const Backend& backend, std::span<const std::size_t> capacity)
        : staged(backend), copied(backend) {
        for (std::size_t bytes : capacity) {
            if (backend.is_cuda()) staging.emplace_back(backend, bytes);
            host.emplace_back(backend, bytes);
        }
    }
    std::vector<DeviceBuffer<std::byte>> staging;  // empty on the CPU backend
    std::vector<PinnedBuffer<std::byte>> host;
    std::vector<std::size_t> bytes;                // of the current capture
    Event staged;   // on the backend's queue: the staging buffers hold the capture
    Event copied;   // on the copy queue: the host buffers hold it
    std::atomic<bool> busy{false};
};

StagedCopy::StagedCopy(const Backend& backend, std::span<const std::size_t> capacity_bytes, int slots)
    : backend_(backend), copy_queue_(backend.with_own_stream()), capacity_(capacity_bytes.begin(), capacity_bytes.end()) {
    if (slots < 1) throw UsageError("StagedCopy: at least one slot");
    for (int i = 0; i < slots; ++i) slots_.push_back(std::make_unique<Slot>(backend, capacity_));
}

StagedCopy::~StagedCopy() {
    for (auto& slot : slots_) {
        if (!slot->busy.load()) continue;
        try {
            slot->copied.synchronize();
        } catch (...) {
        }
    }
}

int StagedCopy::free_slot() const {
    for (std::size_t i = 0; i < slots_.size(); ++i)
        if (!slots_[i]->busy.load()) return static_cast<int>(i);
    return -1;
}

void StagedCopy::capture(int slot_index, std::span<const DeviceBytes> sources) {
    if (slot_index < 0 || slot_index >= slots()) throw UsageError("StagedCopy: no slot " + std::to_string(slot_index));
    Slot& slot = *slots_[static_cast<std::size_t>(slot_index)];
    if (slot.busy.load()) throw UsageError("StagedCopy: slot " + std::to_string(slot_index) + " is still captured");
    if (sources.size() != capacity_.size())
        throw UsageError("StagedCopy: " + std::to_string(sources.size()) + " sources for " +
                         std::to_string(capacity_.size()) + " buffers");
    for (std::size_t i = 0; i < sources.size(); ++i)
        if (sources[i].bytes > capacity_[i])
            throw UsageError("StagedCopy: buffer " + std::to_string(i) + " of " + std::to_string(sources[i].bytes) +
                             " bytes exceeds its capacity of " + std::to_string(capacity_[i]));
    slot.bytes.resize(sources.size());
    for (std::size_t i = 0; i < sources.size(); ++i) slot.bytes[i] = sources[i].bytes;
    if (backend_.is_cpu()) {
        for (std::size_t i = 0; i < sources.size(); ++i)
            copy_bytes(backend_, slot.host[i].data(), sources[i].data, sources[i].bytes, CopyDirection::device_to_host);
        slot.busy.store(true);
        return;
    }
    // The staging buffers are free once the last device -> host copy from them has finished
    // (release() saw it; this keeps the order on the device as well).
    slot.copied.enqueue_wait(backend_);
    for (std::size_t i = 0; i < sources.size(); ++i)
        copy_bytes(backend_, slot.staging[i].data(), sources[i].data, sources[i].bytes, CopyDirection::device_to_device,
                   true);
    slot.staged.record(backend_);
    slot.staged.enqueue_wait(copy_queue_);
    for (std::size_t i = 0; i < sources.size(); ++i)
        copy_bytes(copy_queue_, slot.host[i].data(), slot.staging[i].data(), sources[i].bytes,
                   CopyDirection::device_to_host, true);
    slot.copied.record(copy_queue_);
    slot.busy.store(true);
}

std::vector<std::span<const std::byte>> StagedCopy::wait(int slot_index) {
    if (slot_index < 0 || slot_index >= slots()) throw UsageError("StagedCopy: no slot " + std::to_string(slot_index));
    Slot& slot = *slots_[static_cast<std::size_t>(slot_index)];
    if (!slot.busy.load()) throw UsageError("StagedCopy: slot " + std::to_string(slot_index) + " holds no capture");
    slot.copied.synchronize();
    std::vector<std::span<const std::byte>> out;
    for (std::size_t i = 0; i < slot.bytes.size(); ++i) out.emplace_back(slot.host[i].data(), slot.bytes[i]);
    return out;
}

void StagedCopy::release(int slot_index) {
    if (slot_index < 0 || slot_index >= slots()) throw UsageError("StagedCopy: no slot " + std::to_string(slot_index));
    slots_[static_cast<std::size_t>(slot_index)]->busy.store(false);
}

std::size_t StagedCopy::device_bytes() const {
    std::size_t bytes = 0;
    for (const auto& slot : slots_)
        for (const auto& b : slot->staging) bytes += b.bytes();
    return bytes;
}

std::size_t StagedCopy::host_bytes() const {
    std::size_t bytes = 0;
    for (const auto& slot : slots_)
        for (const auto& b : slot->host) bytes += b.size();
    return bytes;
}

}  // namespace partikel
