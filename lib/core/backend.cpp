#include "core/backend.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>

#include "base/error.hpp"
#include "base/log.hpp"
#include "core/host_waits.hpp"
#include "partikel_config.hpp"
#if PARTIKEL_HAVE_CUDA
#include "core/cuda/runtime.hpp"
#endif

namespace partikel {

struct Backend::State {
    BackendKind kind = BackendKind::cpu;
    int threads = 1;
    int device = -1;
    void* stream = nullptr;
    std::string description;
    ~State() {
#if PARTIKEL_HAVE_CUDA
        if (stream) cuda_rt::stream_destroy(device, stream);
#endif
    }
};

bool cuda_compiled() { return PARTIKEL_HAVE_CUDA != 0; }

std::vector<CudaDeviceInfo> cuda_devices() {
#if PARTIKEL_HAVE_CUDA
    return cuda_rt::devices(nullptr);
#else
    return {};
#endif
}

std::string cuda_unavailable_reason() {
#if PARTIKEL_HAVE_CUDA
    std::string reason;
    auto list = cuda_rt::devices(&reason);
    return list.empty() ? reason : std::string();
#else
    return "built without CUDA";
#endif
}

Backend Backend::cpu(int threads) {
    auto state = std::make_shared<State>();
    state->kind = BackendKind::cpu;
    state->threads = threads > 0 ? threads : omp_get_max_threads();
    state->description = "cpu (" + std::to_string(state->threads) + " OpenMP threads)";
    return Backend(std::move(state));
}

Backend Backend::cuda(int index) {
#if PARTIKEL_HAVE_CUDA
    std::string reason;
    auto list = cuda_rt::devices(&reason);
    if (list.empty()) throw DeviceError("--device cuda: no usable GPU (" + reason + ")");
    if (index < 0 || index >= static_cast<int>(list.size()))
        throw DeviceError("--device cuda:" + std::to_string(index) + ": no such GPU (" +
                          std::to_string(list.size()) + " found)");
    const auto& info = list[static_cast<std::size_t>(index)];
    auto state = std::make_shared<State>();
    state->kind = BackendKind::cuda;
    state->threads = omp_get_max_threads();
    state->device = index;
    state->stream = cuda_rt::stream_create(index);
    state->description = "cuda:" + std::to_string(index) + " " + info.name + " (sm_" +
                         std::to_string(info.compute_major) + std::to_string(info.compute_minor) + ", " +
                         std::to_string(info.multiprocessors) + " SMs, " +
                         std::to_string(info.total_memory_bytes >> 20) + " MiB)";
    return Backend(std::move(state));
#else
    (void)index;
    throw DeviceError("--device cuda: this build of Partikel has no CUDA backend");
#endif
}

BackendKind Backend::kind() const { return state_->kind; }
int Backend::device_index() const { return state_->device; }
int Backend::threads() const { return state_->threads; }
void* Backend::stream() const { return state_->stream; }
std::string Backend::describe() const { return state_->description; }

Backend Backend::with_own_stream(StreamPriority priority) const {
    if (is_cpu()) return *this;
#if PARTIKEL_HAVE_CUDA
    auto state = std::make_shared<State>();
    state->kind = state_->kind;
    state->threads = state_->threads;
    state->device = state_->device;
    state->stream = cuda_rt::stream_create(state_->device, priority == StreamPriority::high);
    state->description = state_->description;
    return Backend(std::move(state));
#else
    (void)priority;
    return *this;  // unreachable: no CUDA backend exists in a CPU-only build
#endif
}

namespace {
std::atomic<std::uint64_t> host_waits{0};
}
std::uint64_t host_wait_count() { return host_waits.load(std::memory_order_relaxed); }
void count_host_wait() { host_waits.fetch_add(1, std::memory_order_relaxed); }

void Backend::synchronize() const {
    count_host_wait();
#if PARTIKEL_HAVE_CUDA
    if (is_cuda()) cuda_rt::stream_synchronize(state_->device, state_->stream);
#endif
}

Backend select_backend(std::string_view spec, int cpu_threads, Log* log) {
    if (spec == "cpu") return Backend::cpu(cpu_threads);
    if (spec == "auto") {
        if (!cuda_devices().empty()) return Backend::cuda(0);
        if (log) log->note("no usable GPU (" + cuda_unavailable_reason() + "); running on the CPU");
        return Backend::cpu(cpu_threads);
    }
    if (spec == "cuda") return Backend::cuda(0);
    if (spec.starts_with("cuda:")) {
        auto digits = spec.substr(5);
        int index = -1;
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
        if (ec == std::errc() && end == digits.data() + digits.size() && !digits.empty() && index >= 0)
            return Backend::cuda(index);
    }
    throw UsageError("--device must be auto, cpu, cuda or cuda:N (got '" + std::string(spec) + "')");
}

RankPlacement place_rank(std::string device, int threads, int local_rank, int local_ranks) {
    if (local_ranks <= 1) return {std::move(device), threads};
    const auto gpus = cuda_devices();
    if ((device == "auto" || device == "cuda") && !gpus.empty())
        device = "cuda:" + std::to_string(local_rank % int(gpus.size()));
    if (threads == 0) {
        threads = std::getenv("OMP_NUM_THREADS") ? omp_get_max_threads() : std::max(1, omp_get_num_procs() / local_ranks);
        omp_set_num_threads(threads);
    }
    return {std::move(device), threads};
}

}  // namespace partikel
