// Execution backends: where kernels run. A Backend is cheap to copy (it shares one state:
// the OpenMP thread count, or the CUDA device and its stream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace partikel {

class Log;

enum class BackendKind { cpu, cuda };

struct CudaDeviceInfo {
    int index = 0;
    std::string name;
    int compute_major = 0;
    int compute_minor = 0;
    int multiprocessors = 0;
    std::uint64_t total_memory_bytes = 0;
    std::uint64_t free_memory_bytes = 0;
};

// True when this binary contains the CUDA backend.
bool cuda_compiled();
// Usable CUDA devices; empty when none, when the driver is missing, or in CPU-only builds.
// Never throws: a binary built with CUDA must run on a machine with no GPU and no driver.
std::vector<CudaDeviceInfo> cuda_devices();
// Why cuda_devices() is empty ("no CUDA driver", "built without CUDA", ...), or "".
std::string cuda_unavailable_reason();

class Backend {
public:
    // The CPU backend with `threads` OpenMP threads (0: OpenMP's default).
    static Backend cpu(int threads = 0);
    // The CUDA backend on device `index`, with its own non-blocking stream. Throws DeviceError
    // when the device does not exist or CUDA is unavailable.
    static Backend cuda(int index = 0);

    BackendKind kind() const;
    bool is_cuda() const { return kind() == BackendKind::cuda; }
    bool is_cpu() const { return kind() == BackendKind::cpu; }
    int device_index() const;      // CUDA device, -1 on the CPU
    int threads() const;           // OpenMP threads used by the CPU backend
    void* stream() const;          // the cudaStream_t, opaque here (nullptr on the CPU)
    void synchronize() const;      // wait for all work queued on this backend
    std::string describe() const;  // "cpu (16 threads)", "cuda:0 NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"
    // A backend on the same device with a stream of its own: work queued on it may run while
    // this backend's work runs (order the two with an Event, core/event.hpp), e.g. a
    // device -> host copy overlapping the next kernels. Creates a CUDA stream, so call it once,
    // outside loops. On the CPU every call is synchronous and this is a copy of the backend.
    // `priority` high: the stream's blocks are scheduled before those of normal streams as SMs
    // free up (short work that a long kernel would otherwise delay, e.g. a halo's).
    enum class StreamPriority { normal, high };
    Backend with_own_stream(StreamPriority priority = StreamPriority::normal) const;

    struct State;
    explicit Backend(std::shared_ptr<State> state) : state_(std::move(state)) {}
    const State& state() const { return *state_; }

private:
    std::shared_ptr<State> state_;
};

// Parse "auto", "cpu", "cuda", "cuda:N" (UsageError otherwise) and open that backend.
// "auto" takes CUDA device 0 when usable, else the CPU, logging a one-line note to `log`.
// An explicit "cuda" without a usable GPU is a DeviceError, never a silent fallback.
Backend select_backend(std::string_view spec, int cpu_threads = 0, Log* log = nullptr);

// Rank `local_rank` of `local_ranks` on one host (mpirun): where `device` is auto or cuda and
// the host has GPUs, a GPU of its own (cuda:local_rank modulo their count); without a thread
// count (`threads` 0), its share of the host's cores, OMP_NUM_THREADS where set. The share
// becomes this thread's OpenMP default, so that every OpenMP loop of the rank keeps to it, not
// only the CPU backend's: with a GPU backend the host's loops (input checks, frame builds, the
// stream codec) would otherwise start a thread per core in every rank, several ranks to a core.
// One rank on its host: `device` and `threads` unchanged.
struct RankPlacement {
    std::string device;
    int threads = 0;
};
RankPlacement place_rank(std::string device, int threads, int local_rank, int local_ranks);

}  // namespace partikel
