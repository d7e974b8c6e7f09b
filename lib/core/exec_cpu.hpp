// CpuExec: the CPU execution policy. Runs kernel bodies with OpenMP and provides sort, scan
// and reduce with the same member signatures as CudaExec, so a kernel family written against
// `Exec` compiles for both. See core/exec.hpp.
//
// Reductions are deterministic for any thread count: fixed-size chunks are reduced in
// parallel, then the chunk results in order.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <vector>

#include "base/hd.hpp"
#include "core/backend.hpp"
#include "core/host_waits.hpp"
#include "core/reduce_ops.hpp"
#include "core/workspace.hpp"

namespace partikel {

// One block of a block-level kernel on the CPU: its threads' phases run one after the other on
// the OpenMP thread that took the block (core/exec.hpp).
template <int Threads> class CpuBlock {
public:
    static constexpr int kThreads = Threads;
    CpuBlock(std::size_t index, std::byte* shared) : index_(index), shared_(shared) {}
    std::size_t index() const { return index_; }
    template <class F> void threads(F&& f) const {
        for (int t = 0; t < Threads; ++t) f(t);
    }
    void sync() const {}
    template <class T> T* shared(std::size_t offset_bytes = 0) const {
        return reinterpret_cast<T*>(shared_ + offset_bytes);
    }
    template <class T> struct Local {
        explicit Local(const CpuBlock&) {}
        T& operator[](int t) { return values[t]; }
        const T& operator[](int t) const { return values[t]; }
        T values[Threads];
    };

private:
    std::size_t index_;
    std::byte* shared_;
};

class CpuExec {
public:
    explicit CpuExec(const Backend& backend)
        : backend_(backend), threads_(backend.threads() > 0 ? backend.threads() : 1) {}

    static constexpr bool is_cuda = false;
    const Backend& backend() const { return backend_; }
    int threads() const { return threads_; }

    // f(i) for i in [0, n). `label` names the kernel in profiles and error messages.
    template <class F> void for_each(std::size_t n, const F& f, const char* /*label*/ = "") const {
        const auto count = static_cast<std::int64_t>(n);
        if (count < kSerialBelow || threads_ == 1) {
            for (std::int64_t i = 0; i < count; ++i) f(static_cast<std::size_t>(i));
            return;
        }
#pragma omp parallel for num_threads(threads_) schedule(static)
        for (std::int64_t i = 0; i < count; ++i) f(static_cast<std::size_t>(i));
    }

    // Same as for_each, but with dynamic scheduling for bodies of uneven cost (neighbour loops).
    template <class F> void for_each_uneven(std::size_t n, const F& f, const char* /*label*/ = "") const {
        const auto count = static_cast<std::int64_t>(n);
        if (count < kSerialBelow || threads_ == 1) {
            for (std::int64_t i = 0; i < count; ++i) f(static_cast<std::size_t>(i));
            return;
        }
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 256)
        for (std::int64_t i = 0; i < count; ++i) f(static_cast<std::size_t>(i));
    }

    // Blocks of Body::kThreads threads sharing `shared_bytes` of scratch (core/exec.hpp). Each
    // OpenMP thread keeps one scratch buffer for the life of the thread, grown when a launch
    // needs more (so a step loop allocates only on its first launch).
    template <class Body>
    void for_each_block(std::size_t blocks, std::size_t shared_bytes, const Body& body, const char* /*label*/ = "") const {
        using Block = CpuBlock<Body::kThreads>;
        const auto count = static_cast<std::int64_t>(blocks);
        auto run = [&](std::int64_t b) {
            thread_local std::vector<std::byte> scratch;
            if (scratch.size() < shared_bytes) scratch.resize(shared_bytes);
            Block block(static_cast<std::size_t>(b), scratch.data());
            body(block);
        };
        if (count <= 1 || threads_ == 1) {
            for (std::int64_t b = 0; b < count; ++b) run(b);
            return;
        }
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
        for (std::int64_t b = 0; b < count; ++b) run(b);
    }

    // Counted as host waits as CudaExec's are (core/host_waits.hpp).
    void synchronize() const { count_host_wait(); }
    void fill_zero(void* dst, std::size_t bytes) const {
        if (bytes) std::memset(dst, 0, bytes);
    }
    void copy_to_host(void* dst, const void* src, std::size_t bytes) const {
        if (!bytes) return;
        count_host_wait();
        std::memcpy(dst, src, bytes);
    }
    void copy_from_host(void* dst, const void* src, std::size_t bytes) const {
        if (!bytes) return;
        count_host_wait();
        std::memcpy(dst, src, bytes);
    }
    template <class T> T read_value(const T* p) const {
        count_host_wait();
        return *p;
    }
    template <class T> void write_value(T* p, const T& v) const {
        count_host_wait();
        *p = v;
    }

    // ---- radix sort of (key, value) pairs by bits [begin_bit, end_bit) of the key; stable.
    template <class K, class V> std::size_t sort_pairs_scratch_bytes(std::size_t n) const {
        return align_scratch(n * sizeof(K)) + align_scratch(n * sizeof(V)) +
               align_scratch(sizeof(std::size_t) * kRadix * static_cast<std::size_t>(threads_));
    }
    template <class K, class V>
    void sort_pairs(Workspace& ws, const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::size_t n,
                    int begin_bit = 0, int end_bit = int(sizeof(K) * 8)) const {
        static_assert(std::is_unsigned_v<K>, "radix sort keys are unsigned integers");
        auto* scratch = static_cast<std::byte*>(ws.require(sort_pairs_scratch_bytes<K, V>(n), "sort_pairs"));
        K* keys_tmp = reinterpret_cast<K*>(scratch);
        V* values_tmp = reinterpret_cast<V*>(scratch + align_scratch(n * sizeof(K)));
        auto* counts = reinterpret_cast<std::size_t*>(scratch + align_scratch(n * sizeof(K)) +
                                                      align_scratch(n * sizeof(V)));
        const int passes = (std::max(end_bit - begin_bit, 0) + kDigitBits - 1) / kDigitBits;
        if (passes == 0 || n <= 1) {
            copy_in_parallel(keys_out, keys_in, n);
            copy_in_parallel(values_out, values_in, n);
            return;
        }
        // Ping-pong so that the last pass writes into the output arrays.
        const K* src_k = keys_in;
        const V* src_v = values_in;
        bool to_out = passes % 2 == 1;
        for (int pass = 0; pass < passes; ++pass) {
            K* dst_k = to_out ? keys_out : keys_tmp;
            V* dst_v = to_out ? values_out : values_tmp;
            int shift = begin_bit + pass * kDigitBits;
            int bits = std::min(kDigitBits, end_bit - shift);
            radix_pass(src_k, src_v, dst_k, dst_v, n, shift, (K(1) << bits) - 1, counts);
            src_k = dst_k;
            src_v = dst_v;
            to_out = !to_out;
        }
    }

    // ---- exclusive prefix sum; `out` may equal `in`.
    template <class T> std::size_t exclusive_sum_scratch_bytes(std::size_t /*n*/) const {
        return align_scratch(sizeof(T) * static_cast<std::size_t>(threads_ + 1));
    }
    template <class T> void exclusive_sum(Workspace& ws, const T* in, T* out, std::size_t n) const {
        auto* partial = static_cast<T*>(ws.require(exclusive_sum_scratch_bytes<T>(n), "exclusive_sum"));
        int t_count = n < kSerialBelow ? 1 : threads_;
        std::size_t chunk = (n + static_cast<std::size_t>(t_count) - 1) / static_cast<std::size_t>(t_count);
#pragma omp parallel num_threads(t_count)
        {
            int t = omp_get_thread_num();
            std::size_t begin = std::min(n, chunk * static_cast<std::size_t>(t));
            std::size_t end = std::min(n, begin + chunk);
            T sum = T(0);
            for (std::size_t i = begin; i < end; ++i) sum += in[i];
            partial[t + 1] = sum;
#pragma omp barrier
#pragma omp single
            {
                partial[0] = T(0);
                for (int k = 1; k <= t_count; ++k) partial[k] += partial[k - 1];
            }
            T running = partial[t];
            for (std::size_t i = begin; i < end; ++i) {
                T v = in[i];
                out[i] = running;
                running += v;
            }
        }
    }

    // ---- reduce value(i), i in [0, n), with op starting from init; result stored at *out.
    template <class Acc, class Op> std::size_t reduce_scratch_bytes(std::size_t n) const {
        return align_scratch(sizeof(Acc) * ((n + kReduceChunk - 1) / kReduceChunk + 1));
    }
    template <class Acc, class F, class Op>
    void transform_reduce(Workspace& ws, std::size_t n, const F& value, Op op, Acc init, Acc* out) const {
        auto* partial = static_cast<Acc*>(ws.require(reduce_scratch_bytes<Acc, Op>(n), "reduce"));
        const auto chunks = static_cast<std::int64_t>((n + kReduceChunk - 1) / kReduceChunk);
        auto chunk_body = [&](std::int64_t c) {
            std::size_t begin = static_cast<std::size_t>(c) * kReduceChunk;
            std::size_t end = std::min(n, begin + kReduceChunk);
            Acc acc = value(begin);
            for (std::size_t i = begin + 1; i < end; ++i) acc = op(acc, value(i));
            partial[c] = acc;
        };
        if (chunks <= 1 || threads_ == 1) {
            for (std::int64_t c = 0; c < chunks; ++c) chunk_body(c);
        } else {
#pragma omp parallel for num_threads(threads_) schedule(static)
            for (std::int64_t c = 0; c < chunks; ++c) chunk_body(c);
        }
        Acc result = init;
        for (std::int64_t c = 0; c < chunks; ++c) result = op(result, partial[c]);
        *out = result;
    }

private:
    static constexpr std::int64_t kSerialBelow = 4096;
    static constexpr int kDigitBits = 8;
    static constexpr std::size_t kRadix = std::size_t{1} << kDigitBits;
    static constexpr std::size_t kReduceChunk = 8192;

    template <class T> void copy_in_parallel(T* dst, const T* src, std::size_t n) const {
        if (dst == src || n == 0) return;
        for_each(n, [=](std::size_t i) { dst[i] = src[i]; });
    }

    // One stable counting pass: per-thread digit histograms over contiguous chunks, offsets in
    // (digit, thread) order, then each thread scatters its chunk in order.
    template <class K, class V>
    void radix_pass(const K* src_k, const V* src_v, K* dst_k, V* dst_v, std::size_t n, int shift, K mask,
                    std::size_t* counts) const {
        int t_count = static_cast<std::int64_t>(n) < kSerialBelow ? 1 : threads_;
        std::size_t chunk = (n + static_cast<std::size_t>(t_count) - 1) / static_cast<std::size_t>(t_count);
#pragma omp parallel num_threads(t_count)
        {
            int t = omp_get_thread_num();
            std::size_t* mine = counts + kRadix * static_cast<std::size_t>(t);
            std::fill(mine, mine + kRadix, std::size_t{0});
            std::size_t begin = std::min(n, chunk * static_cast<std::size_t>(t));
            std::size_t end = std::min(n, begin + chunk);
            for (std::size_t i = begin; i < end; ++i) ++mine[(src_k[i] >> shift) & mask];
#pragma omp barrier
#pragma omp single
            {
                std::size_t running = 0;
                for (std::size_t d = 0; d < kRadix; ++d)
                    for (int u = 0; u < t_count; ++u) {
                        std::size_t c = counts[kRadix * static_cast<std::size_t>(u) + d];
                        counts[kRadix * static_cast<std::size_t>(u) + d] = running;
                        running += c;
                    }
            }
            for (std::size_t i = begin; i < end; ++i) {
                std::size_t slot = mine[(src_k[i] >> shift) & mask]++;
                dst_k[slot] = src_k[i];
                dst_v[slot] = src_v[i];
            }
        }
    }

    Backend backend_;
    int threads_;
};

}  // namespace partikel
