// Typed RAII owners of backend memory. Move-only; every transfer is an explicit call.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "core/memory.hpp"

namespace partikel {

// `count` values of T in memory the backend's kernels read and write.
template <class T> class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const Backend& backend, std::size_t count)
        : backend_(backend), data_(static_cast<T*>(device_allocate(backend, count * sizeof(T)))), size_(count) {}
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) { release(); swap(other); }
        return *this;
    }

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }
    std::size_t bytes() const { return size_ * sizeof(T); }
    bool empty() const { return size_ == 0; }
    const Backend& backend() const { return *backend_; }

    // Synchronous host <-> device copies of `src.size()` values at `offset`.
    void copy_from_host(std::span<const T> src, std::size_t offset = 0) {
        check_range(offset, src.size());
        copy_bytes(*backend_, data_ + offset, src.data(), src.size_bytes(), CopyDirection::host_to_device);
    }
    void copy_to_host(std::span<T> dst, std::size_t offset = 0) const {
        check_range(offset, dst.size());
        copy_bytes(*backend_, dst.data(), data_ + offset, dst.size_bytes(), CopyDirection::device_to_host);
    }
    // Asynchronous on the backend's stream; `dst` should be pinned (PinnedBuffer) to overlap.
    void copy_to_host_async(std::span<T> dst, std::size_t offset = 0) const {
        check_range(offset, dst.size());
        copy_bytes(*backend_, dst.data(), data_ + offset, dst.size_bytes(), CopyDirection::device_to_host, true);
    }
    void copy_from_host_async(std::span<const T> src, std::size_t offset = 0) {
        check_range(offset, src.size());
        copy_bytes(*backend_, data_ + offset, src.data(), src.size_bytes(), CopyDirection::host_to_device, true);
    }
    // Device-to-device copy of the first `count` values of `src`.
    void copy_from(const DeviceBuffer& src, std::size_t count) {
        check_range(0, count);
        if (count > src.size()) throw UsageError("DeviceBuffer::copy_from: source too small");
        copy_bytes(*backend_, data_, src.data(), count * sizeof(T), CopyDirection::device_to_device);
    }
    std::vector<T> to_vector() const {
        std::vector<T> out(size_);
        copy_to_host(out);
        return out;
    }
    void fill_zero() { fill_bytes(*backend_, data_, 0, bytes()); }

private:
    void check_range(std::size_t offset, std::size_t count) const {
        if (offset > size_ || count > size_ - offset)
            throw UsageError("DeviceBuffer: copy of " + std::to_string(count) + " values at " +
                             std::to_string(offset) + " exceeds size " + std::to_string(size_));
    }
    void release() noexcept {
        if (data_) device_free(*backend_, data_);
        data_ = nullptr;
        size_ = 0;
    }
    void swap(DeviceBuffer& other) noexcept {
        std::swap(backend_, other.backend_);
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
    }

    std::optional<Backend> backend_;
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

// `count` values of T in page-locked host memory (for overlapped device -> host copies).
template <class T> class PinnedBuffer {
public:
    PinnedBuffer() = default;
    PinnedBuffer(const Backend& backend, std::size_t count)
        : backend_(backend), data_(static_cast<T*>(pinned_allocate(backend, count * sizeof(T)))), size_(count) {}
    ~PinnedBuffer() { if (data_) pinned_free(*backend_, data_); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& o) noexcept
        : backend_(std::move(o.backend_)), data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
        if (this != &o) {
            if (data_) pinned_free(*backend_, data_);
            backend_ = std::move(o.backend_);
            data_ = std::exchange(o.data_, nullptr);
            size_ = std::exchange(o.size_, 0);
        }
        return *this;
    }
    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }
    std::span<T> span() { return {data_, size_}; }
    std::span<const T> span() const { return {data_, size_}; }

private:
    std::optional<Backend> backend_;
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace partikel
