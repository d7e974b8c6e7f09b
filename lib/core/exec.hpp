// Writing a kernel once for both backends: the execution policies.
//
// A kernel body is a functor whose members are marked PK_HD (base/hd.hpp), over plain pointers
// and small value types. An execution policy runs it: CpuExec (core/exec_cpu.hpp, OpenMP) or
// CudaExec (declared here, its kernels defined in core/cuda/exec_cuda.cuh). Both have the same
// members, so code templated on `Exec` is written once:
//
//   exec.for_each(n, f, label)            f(i) for i in [0, n)
//   exec.for_each_uneven(n, f, label)     the same, for bodies of uneven cost (neighbour loops)
//   exec.for_each_block(blocks, shared_bytes, body, label)
//                                         block-level kernels with a shared tile (below)
//   exec.sort_pairs / exclusive_sum / transform_reduce (+ their *_scratch_bytes)
//                                         CUB on the GPU, our own parallel versions on the CPU,
//                                         scratch from a caller-sized Workspace
//   exec.fill_zero, read_value, write_value, synchronize, backend()
//
// Kernel families (docs/ARCHITECTURE.md, "One kernel, two backends"): an entry point is a
// template on Exec, declared in the family's header, defined in its _impl.hpp and instantiated
// for each backend by one macro that lists the family's instantiations once:
//
//   foo.hpp       template <class Exec> void foo(const Exec& exec, args...);
//   foo_impl.hpp  template <class Exec> void foo(const Exec& exec, args...) { exec.for_each(...); }
//                 #define PK_FOO_INSTANTIATE(Exec) template void foo(const Exec&, args...);
//   foo.cpp       #include "foo_impl.hpp"  PK_FOO_INSTANTIATE(CpuExec)
//   foo.cu        #include "foo_impl.hpp"  PK_FOO_INSTANTIATE(CudaExec)
//
// Templated code calls foo(exec, ...) with the Exec it has; host code holding a Backend picks
// the policy once with with_exec (core/dispatch.hpp):
//
//   with_exec(backend, [&](const auto& exec) { foo(exec, args...); });
//
// Block-level kernels. for_each_block runs `blocks` blocks of Body::kThreads threads that share
// `shared_bytes` of scratch (CUDA shared memory; a per-thread buffer on the CPU) and meet at
// barriers. The body is written in phases:
//
//   struct TiledSum {
//       static constexpr int kThreads = 256;
//       template <class Block> PK_HD void operator()(Block& b) const {
//           float* tile = b.template shared<float>();
//           PerThread<float, Block> sum(b);                  // one value per thread
//           b.threads([&](int t) { tile[t] = in[b.index() * kThreads + t]; sum[t] = 0; });
//           b.sync();                                        // every tile value is written
//           b.threads([&](int t) { for (int j = 0; j < kThreads; ++j) sum[t] += tile[j]; });
//       }
//   };
//
// On the GPU b.threads(f) runs f(threadIdx.x) in each thread and b.sync() is __syncthreads();
// on the CPU a block runs on one OpenMP thread, b.threads(f) loops over t = 0..kThreads-1 and
// b.sync() does nothing, since each phase completes before the next begins. Values a thread
// keeps between phases live in PerThread<T, Block> (a register on the GPU, an array on the CPU);
// locals declared inside a phase are gone after it. block_atomic_add adds to shared memory
// (an atomic on the GPU, a plain add on the CPU, where one thread runs the block).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/hd.hpp"
#include "core/backend.hpp"
#include "core/workspace.hpp"

namespace partikel {

// The CUDA policy. The class is complete in every translation unit (host code may hold one and
// call the host-side members below, which runtime.cu defines); its kernel members are defined
// in core/cuda/exec_cuda.cuh, so they are usable in .cu files, or anywhere for the
// instantiations a .cu file provides.
class CudaExec {
public:
    explicit CudaExec(const Backend& backend);

    static constexpr bool is_cuda = true;
    static constexpr int kBlock = 256;  // threads per block of for_each (its __launch_bounds__)
    const Backend& backend() const { return backend_; }
    void* stream() const { return stream_; }  // the cudaStream_t

    template <class F> void for_each(std::size_t n, const F& f, const char* label = "for_each") const;
    template <class F> void for_each_uneven(std::size_t n, const F& f, const char* label = "for_each") const;
    template <class Body>
    void for_each_block(std::size_t blocks, std::size_t shared_bytes, const Body& body,
                        const char* label = "for_each_block") const;

    template <class K, class V> std::size_t sort_pairs_scratch_bytes(std::size_t n) const;
    template <class K, class V>
    void sort_pairs(Workspace& ws, const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::size_t n,
                    int begin_bit = 0, int end_bit = int(sizeof(K) * 8)) const;
    template <class T> std::size_t exclusive_sum_scratch_bytes(std::size_t n) const;
    template <class T> void exclusive_sum(Workspace& ws, const T* in, T* out, std::size_t n) const;
    // Enough for transform_reduce of n values of any value functor with accumulator Acc.
    template <class Acc, class Op> std::size_t reduce_scratch_bytes(std::size_t n) const;
    template <class Acc, class F, class Op>
    void transform_reduce(Workspace& ws, std::size_t n, const F& value, Op op, Acc init, Acc* out) const;

    // Host-side members, usable from any translation unit.
    void synchronize() const;
    void fill_zero(void* dst, std::size_t bytes) const;
    void copy_to_host(void* dst, const void* src, std::size_t bytes) const;    // synchronous
    void copy_from_host(void* dst, const void* src, std::size_t bytes) const;  // synchronous
    template <class T> T read_value(const T* p) const {
        T v;
        copy_to_host(&v, p, sizeof(T));
        return v;
    }
    template <class T> void write_value(T* p, const T& v) const { copy_from_host(p, &v, sizeof(T)); }

private:
    Backend backend_;
    void* stream_;
    int device_;
};

// Values one thread of a block keeps from phase to phase: PerThread<T, Block> v(block); v[t].
template <class T, class Block> using PerThread = typename Block::template Local<T>;

}  // namespace partikel
