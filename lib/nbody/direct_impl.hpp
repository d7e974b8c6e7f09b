// The direct sum (nbody/direct.hpp), written once for both backends; instantiated by
// direct_cpu.cpp and direct_cuda.cu.
#pragma once

#include <algorithm>
#include <cstdint>

#include "base/error.hpp"
#include "base/hd.hpp"
#include "core/exec.hpp"
#include "nbody/direct.hpp"
#include "nbody/gravity.hpp"

namespace partikel::nbody {

namespace kernels {

// Blocks [0, target_blocks) sum slice 0 of the sources, the next target_blocks blocks slice 1,
// and so on; slice s covers sources [s * slice_length, (s + 1) * slice_length).
template <class Acc, bool WithPotential> struct DirectTiles {
    static constexpr int kThreads = kDirectThreads;
    static constexpr int kTargets = kDirectTargetsPerThread;
    const Vec4f* targets;
    std::uint32_t target_count;
    const std::uint32_t* target_source_index;
    bool targets_among_sources;
    const Vec4f* sources;
    std::uint32_t source_count;
    std::uint32_t target_blocks;
    std::uint32_t slice_length;  // a multiple of kThreads
    float G;
    float eps2;
    Vec4f* out;  // slice s writes out[s * target_count + k]
    bool accumulate;  // one slice: out[k] += the sum

    struct Targets {
        Vec4f x[kTargets];
        std::uint32_t self[kTargets];  // index among the sources
        Vec3<Acc> a[kTargets];
        Acc phi[kTargets];
    };

    template <class Block> PK_HD void operator()(Block& b) const {
        Vec4f* tile = b.template shared<Vec4f>();
        const std::uint32_t target_block = static_cast<std::uint32_t>(b.index() % target_blocks);
        const std::uint32_t slice = static_cast<std::uint32_t>(b.index() / target_blocks);
        const SourceRange range = direct_slice_sources(slice, slice_length, source_count);
        const std::uint32_t first_source = range.first, end_source = range.end;
        PerThread<Targets, Block> mine(b);
        b.threads([&](int t) {
            for (int k = 0; k < kTargets; ++k) {
                const std::uint32_t i = (target_block * kTargets + std::uint32_t(k)) * kThreads + std::uint32_t(t);
                const bool real = i < target_count;
                mine[t].x[k] = real ? targets[i] : Vec4f{0.0f, 0.0f, 0.0f, 0.0f};
                mine[t].self[k] = !real || !targets_among_sources ? 0xffffffffu
                                                                  : (target_source_index ? target_source_index[i] : i);
                mine[t].a[k] = Vec3<Acc>{Acc(0), Acc(0), Acc(0)};
                mine[t].phi[k] = Acc(0);
            }
        });
        for (std::uint32_t start = first_source; start < end_source; start += kThreads) {
            b.sync();  // the previous tile is no longer read
            b.threads([&](int t) {
                const std::uint32_t j = start + std::uint32_t(t);
                // Zero-mass padding beyond the last source adds nothing.
                tile[t] = j < end_source ? sources[j] : Vec4f{0.0f, 0.0f, 0.0f, 0.0f};
            });
            b.sync();
            b.threads([&](int t) {
                Targets& m = mine[t];
#if defined(__CUDA_ARCH__)
#pragma unroll 16
#endif
                for (int jj = 0; jj < kThreads; ++jj) {
                    const Vec4f s = tile[jj];
                    for (int k = 0; k < kTargets; ++k)
                        add_point_mass<WithPotential, Acc>(m.x[k], s, eps2, m.a[k], m.phi[k],
                                                           WithPotential && m.self[k] == start + std::uint32_t(jj));
                }
            });
        }
        b.threads([&](int t) {
            for (int k = 0; k < kTargets; ++k) {
                const std::uint32_t i = (target_block * kTargets + std::uint32_t(k)) * kThreads + std::uint32_t(t);
                if (i >= target_count) continue;
                const Targets& m = mine[t];
                Vec4f sum{float(Acc(G) * m.a[k].x), float(Acc(G) * m.a[k].y), float(Acc(G) * m.a[k].z),
                          WithPotential ? float(Acc(G) * m.phi[k]) : 0.0f};
                Vec4f& o = out[std::size_t(slice) * target_count + i];
                if (accumulate) sum = Vec4f{o.x + sum.x, o.y + sum.y, o.z + sum.z, o.w + sum.w};
                o = sum;
            }
        });
    }
};

// out[k] = sum over slices of partial[s * count + k], in slice order (+= with accumulate).
struct AddSlices {
    const Vec4f* partial;
    std::uint32_t count;
    std::uint32_t slices;
    bool accumulate;
    Vec4f* out;
    PK_HD void operator()(std::size_t k) const {
        Vec4f sum = partial[k];
        for (std::uint32_t s = 1; s < slices; ++s) {
            const Vec4f p = partial[std::size_t(s) * count + k];
            sum.x += p.x;
            sum.y += p.y;
            sum.z += p.z;
            sum.w += p.w;
        }
        if (accumulate) sum = Vec4f{out[k].x + sum.x, out[k].y + sum.y, out[k].z + sum.z, out[k].w + sum.w};
        out[k] = sum;
    }
};

}  // namespace kernels

// Blocks that fill the GPU several times over (132 SMs of 8 blocks of 256 threads on an H100 or
// H200; more never hurts).
inline constexpr std::size_t kFillBlocks = 2048;
inline constexpr std::uint32_t kMaxSlices = 64;  // a few targets (force-error samples) still fill the GPU

namespace detail {

inline std::uint32_t direct_target_blocks(std::size_t targets) {
    const std::size_t per_block = std::size_t(kDirectThreads) * kDirectTargetsPerThread;
    return static_cast<std::uint32_t>((targets + per_block - 1) / per_block);
}

template <class Exec> std::uint32_t direct_slices(std::size_t targets, std::size_t sources) {
    if constexpr (!Exec::is_cuda) {
        return 1;  // a CPU core per block: enough blocks already
    } else {
        const std::size_t blocks = std::max<std::size_t>(direct_target_blocks(targets), 1);
        const std::size_t tiles = (sources + kDirectThreads - 1) / kDirectThreads;
        std::size_t s = (kFillBlocks + blocks - 1) / blocks;
        s = std::min<std::size_t>({s, kMaxSlices, std::max<std::size_t>(tiles, 1)});
        return static_cast<std::uint32_t>(std::max<std::size_t>(s, 1));
    }
}

}  // namespace detail

template <class Exec> std::size_t direct_partial_capacity(const Exec&, std::size_t target_count) {
    // The most slices any source count gives these targets (fewer when there are few sources).
    const std::uint32_t slices = detail::direct_slices<Exec>(target_count, std::size_t{1} << 31);
    return slices > 1 ? std::size_t(slices) * target_count : 0;
}

template <class Exec> void direct_forces(const Exec& exec, const DirectSum& d) {
    if (d.target_count == 0) return;
    if (d.target_count >= (std::size_t{1} << 31) || d.source_count >= (std::size_t{1} << 31))
        throw UsageError("nbody: direct sum of more than 2^31 bodies");
    std::uint32_t slices = detail::direct_slices<Exec>(d.target_count, d.source_count);
    if (!d.partial) slices = 1;
    const std::uint32_t target_blocks = detail::direct_target_blocks(d.target_count);
    const std::uint32_t tiles = static_cast<std::uint32_t>((d.source_count + kDirectThreads - 1) / kDirectThreads);
    const std::uint32_t slice_length = ((tiles + slices - 1) / slices) * kDirectThreads;
    Vec4f* out = slices > 1 ? d.partial : d.out;
    const float eps2 = softening2(d.softening);
    const std::size_t blocks = std::size_t(target_blocks) * slices;
    const std::size_t shared = kDirectThreads * sizeof(Vec4f);
    auto launch = [&](auto tiles_kernel) {
        tiles_kernel.targets = d.targets;
        tiles_kernel.target_count = static_cast<std::uint32_t>(d.target_count);
        tiles_kernel.target_source_index = d.target_source_index;
        tiles_kernel.targets_among_sources = d.targets_among_sources;
        tiles_kernel.sources = d.sources;
        tiles_kernel.source_count = static_cast<std::uint32_t>(d.source_count);
        tiles_kernel.target_blocks = target_blocks;
        tiles_kernel.slice_length = slice_length;
        tiles_kernel.G = d.G;
        tiles_kernel.eps2 = eps2;
        tiles_kernel.out = out;
        tiles_kernel.accumulate = d.accumulate && slices == 1;
        exec.for_each_block(blocks, shared, tiles_kernel, "nbody.direct");
    };
    if (d.double_sums) {
        if (d.with_potential) launch(kernels::DirectTiles<double, true>{});
        else launch(kernels::DirectTiles<double, false>{});
    } else {
        if (d.with_potential) launch(kernels::DirectTiles<float, true>{});
        else launch(kernels::DirectTiles<float, false>{});
    }
    if (slices > 1)
        exec.for_each(d.target_count,
                      kernels::AddSlices{d.partial, static_cast<std::uint32_t>(d.target_count), slices, d.accumulate, d.out},
                      "nbody.direct.slices");
}

// The family's instantiations, once per backend (direct_cpu.cpp, direct_cuda.cu).
#define PK_NBODY_DIRECT_INSTANTIATE(Exec)                                           \
    template std::size_t direct_partial_capacity(const Exec&, std::size_t);         \
    template void direct_forces(const Exec&, const DirectSum&);

}  // namespace partikel::nbody
