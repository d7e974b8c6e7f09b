#include "core/event.hpp"

#include <utility>

#include "base/error.hpp"
#include "core/host_waits.hpp"
#include "partikel_config.hpp"
#if PARTIKEL_HAVE_CUDA
#include "core/cuda/runtime.hpp"
#endif

namespace partikel {

namespace {
void check_same_device(const Backend& event_backend, const Backend& queue) {
    if (queue.kind() != event_backend.kind() || queue.device_index() != event_backend.device_index())
        throw UsageError("Event: a queue of " + queue.describe() + " used with an event of " +
                         event_backend.describe());
}
}  // namespace

Event::Event(const Backend& backend) : backend_(backend) {
#if PARTIKEL_HAVE_CUDA
    if (backend_.is_cuda()) event_ = cuda_rt::event_create(backend_.device_index(), false);
#endif
}

Event::~Event() {
#if PARTIKEL_HAVE_CUDA
    if (event_) cuda_rt::event_destroy(backend_.device_index(), event_);
#endif
}

Event::Event(Event&& other) noexcept : backend_(other.backend_), event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
    if (this != &other) {
        std::swap(backend_, other.backend_);
        std::swap(event_, other.event_);
    }
    return *this;
}

void Event::record(const Backend& queue) {
    check_same_device(backend_, queue);
#if PARTIKEL_HAVE_CUDA
    if (event_) cuda_rt::event_record(backend_.device_index(), event_, queue.stream());
#endif
}

void Event::enqueue_wait(const Backend& queue) const {
    check_same_device(backend_, queue);
#if PARTIKEL_HAVE_CUDA
    // An event never recorded counts as complete for cudaStreamWaitEvent: no wait.
    if (event_) cuda_rt::stream_wait_event(backend_.device_index(), queue.stream(), event_);
#endif
}

bool Event::done() const {
#if PARTIKEL_HAVE_CUDA
    if (event_) return cuda_rt::event_query(backend_.device_index(), event_);
#endif
    return true;
}

void Event::synchronize() const {
    count_host_wait();
#if PARTIKEL_HAVE_CUDA
    if (event_) cuda_rt::event_synchronize(backend_.device_index(), event_);
#endif
}

}  // namespace partikel
