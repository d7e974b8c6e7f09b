// A second queue and events: a device -> host copy on Backend::with_own_stream(), ordered after
// a device -> device copy on the main queue by an Event, returns what the main queue held at
// the mark even though the main queue overwrites the source right after (on CUDA the two
// queues really run concurrently; on the CPU every call is synchronous).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/buffer.hpp"
#include "base/error.hpp"
#include "core/event.hpp"
#include "core/memory.hpp"
#include "support/backends.hpp"

using namespace partikel;

namespace {

void copy_overlaps_the_next_work(const Backend& backend) {
    const Backend copy_queue = backend.with_own_stream();
    CHECK(copy_queue.kind() == backend.kind());
    CHECK(copy_queue.device_index() == backend.device_index());
    CHECK(copy_queue.threads() == backend.threads());
    if (backend.is_cuda()) CHECK(copy_queue.stream() != backend.stream());

    // 16 MiB: large enough that a CUDA copy takes a while, and above the CPU backend's
    // threshold for parallel copies.
    const std::size_t n = std::size_t{1} << 22;
    const std::size_t bytes = n * sizeof(std::uint32_t);
    DeviceBuffer<std::uint32_t> live(backend, n), staging(backend, n);
    PinnedBuffer<std::uint32_t> host(backend, n);
    Event staged(backend), copied(backend);
    CHECK(staged.done());  // nothing recorded yet
    staged.enqueue_wait(copy_queue);  // and waiting for it does not block

    std::vector<std::uint32_t> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = std::uint32_t(i * 2654435761u);
    live.copy_from_host(values);
    const auto allocations = device_allocation_count();
    for (int round = 0; round < 3; ++round) {
        CAPTURE(round);
        copied.enqueue_wait(backend);  // the previous copy has read the staging buffer
        copy_bytes(backend, staging.data(), live.data(), bytes, CopyDirection::device_to_device, true);
        staged.record(backend);
        staged.enqueue_wait(copy_queue);
        copy_bytes(copy_queue, host.data(), staging.data(), bytes, CopyDirection::device_to_host, true);
        copied.record(copy_queue);
        // The main queue moves on and overwrites the live array while the copy runs.
        fill_bytes(backend, live.data(), round + 1, bytes);
        copied.synchronize();
        CHECK(copied.done());
        std::uint32_t expected_fill = 0;
        std::memset(&expected_fill, round, sizeof expected_fill);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i) wrong += host.data()[i] != (round == 0 ? values[i] : expected_fill);
        CHECK(wrong == 0);
        backend.synchronize();
    }
    CHECK(device_allocation_count() == allocations);
}

}  // namespace

PK_BACKEND_TEST("core.event orders a copy on a second queue after the main queue's work", copy_overlaps_the_next_work)

TEST_CASE("core.event refuses a queue of another backend kind") {
    Event event(Backend::cpu(1));
    CHECK(event.done());
    CHECK_NOTHROW(event.record(Backend::cpu(2)));
    CHECK_NOTHROW(event.synchronize());
    Event moved(std::move(event));
    CHECK(moved.done());
    if (!cuda_devices().empty()) CHECK_THROWS_AS(moved.record(Backend::cuda(0)), UsageError);
}
