// FieldArrays' reorder and compaction (core/fields.hpp), written once for both backends. Model
// kernels include this and instantiate them with their own epilogue and keep predicate.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "core/fields.hpp"
#include "core/reduce_ops.hpp"
#include "core/workspace.hpp"

namespace partikel {

namespace kernels {

// Copies record `from` of a field to record `to` of its spare, in the widest words the record
// size allows (the buffers start 256-byte aligned).
PK_DEVICE_INLINE void move_record(const FieldArrays::Moves::Slot& s, std::size_t from, std::size_t to) {
    const std::uint32_t b = s.bytes;
    if (b % 16 == 0) {
        const auto* src = reinterpret_cast<const Vec4f*>(s.src + from * b);
        auto* dst = reinterpret_cast<Vec4f*>(s.dst + to * b);
        for (std::uint32_t w = 0; w < b / 16; ++w) dst[w] = src[w];
    } else if (b % 8 == 0) {
        const auto* src = reinterpret_cast<const std::uint64_t*>(s.src + from * b);
        auto* dst = reinterpret_cast<std::uint64_t*>(s.dst + to * b);
        for (std::uint32_t w = 0; w < b / 8; ++w) dst[w] = src[w];
    } else if (b % 4 == 0) {
        const auto* src = reinterpret_cast<const std::uint32_t*>(s.src + from * b);
        auto* dst = reinterpret_cast<std::uint32_t*>(s.dst + to * b);
        for (std::uint32_t w = 0; w < b / 4; ++w) dst[w] = src[w];
    } else {
        for (std::uint32_t w = 0; w < b; ++w) s.dst[to * b + w] = s.src[from * b + w];
    }
}

// A record of up to 16 bytes held in registers between its load and its store.
struct alignas(16) RecordWords {
    std::uint32_t w[4];
};

// Loads of 1, 4, 8, 12 or 16 bytes (what the common records are) as typed loads; false for
// other sizes, which move_record copies directly.
PK_DEVICE_INLINE bool load_small_record(const FieldArrays::Moves::Slot& s, std::size_t i, RecordWords& r) {
    const std::byte* p = s.src + i * s.bytes;
    switch (s.bytes) {
        case 1: r.w[0] = *reinterpret_cast<const std::uint8_t*>(p); return true;
        case 4: r.w[0] = *reinterpret_cast<const std::uint32_t*>(p); return true;
        case 8: {
            const std::uint64_t v = *reinterpret_cast<const std::uint64_t*>(p);
            r.w[0] = static_cast<std::uint32_t>(v);
            r.w[1] = static_cast<std::uint32_t>(v >> 32);
            return true;
        }
        case 12: {
            const auto* q = reinterpret_cast<const std::uint32_t*>(p);
            r.w[0] = q[0];
            r.w[1] = q[1];
            r.w[2] = q[2];
            return true;
        }
        case 16: r = *reinterpret_cast<const RecordWords*>(p); return true;
    }
    return false;
}

PK_DEVICE_INLINE void store_small_record(const FieldArrays::Moves::Slot& s, std::size_t i, const RecordWords& r) {
    std::byte* p = s.dst + i * s.bytes;
    switch (s.bytes) {
        case 1: *reinterpret_cast<std::uint8_t*>(p) = static_cast<std::uint8_t>(r.w[0]); return;
        case 4: *reinterpret_cast<std::uint32_t*>(p) = r.w[0]; return;
        case 8: *reinterpret_cast<std::uint64_t*>(p) = std::uint64_t{r.w[0]} | std::uint64_t{r.w[1]} << 32; return;
        case 12: {
            auto* q = reinterpret_cast<std::uint32_t*>(p);
            q[0] = r.w[0];
            q[1] = r.w[1];
            q[2] = r.w[2];
            return;
        }
        case 16: *reinterpret_cast<RecordWords*>(p) = r; return;
    }
}

// Row k of every moved field from row order[k]; then epilogue(k, order[k]). Every field's load
// is issued before the first store (a store through one field's pointer would otherwise order
// every later load after it: the fields' loads would wait for each other, one memory latency
// per field), with the records held in registers in between.
template <class Epilogue> struct GatherFields {
    FieldArrays::Moves moves;
    const std::uint32_t* order;
    Epilogue epilogue;
    PK_DEVICE_INLINE void operator()(std::size_t k) const {
        const std::uint32_t from = order[k];
        RecordWords held[FieldArrays::Moves::kMax];
        bool small[FieldArrays::Moves::kMax] = {};
PK_UNROLL
        for (int f = 0; f < FieldArrays::Moves::kMax; ++f)
            if (f < moves.count) small[f] = load_small_record(moves.slot[f], from, held[f]);
PK_UNROLL
        for (int f = 0; f < FieldArrays::Moves::kMax; ++f) {
            if (f >= moves.count) continue;
            if (small[f]) store_small_record(moves.slot[f], k, held[f]);
            else move_record(moves.slot[f], from, k);
        }
        epilogue(k, from);
    }
};

template <class Keep> struct KeepFlags {
    Keep keep;
    std::uint32_t* flags;
    PK_DEVICE_INLINE void operator()(std::size_t i) const { flags[i] = keep(i) ? 1u : 0u; }
};

struct CompactFields {
    FieldArrays::Moves moves;
    const std::uint32_t* keep;
    const std::uint32_t* offset;
    std::uint32_t* kept;  // the last row writes the total
    std::size_t n;
    PK_DEVICE_INLINE void operator()(std::size_t i) const {
        if (i + 1 == n) *kept = offset[i] + keep[i];
        if (!keep[i]) return;
        for (int f = 0; f < moves.count; ++f) move_record(moves.slot[f], i, offset[i]);
    }
};

}  // namespace kernels

// No epilogue: a gather that only moves fields.
struct NoGatherEpilogue {
    PK_DEVICE_INLINE void operator()(std::size_t, std::uint32_t) const {}
};

template <class Exec, class Epilogue>
void FieldArrays::gather(const Exec& exec, const std::uint32_t* order, std::size_t n, unsigned flags,
                         const Epilogue& epilogue) {
    const Moves m = moves(flags);
    exec.for_each(n, kernels::GatherFields<Epilogue>{m, order, epilogue}, "fields.gather");
    swap_with_spares(flags);
}

template <class Exec> std::size_t FieldArrays::compact_scratch_bytes(const Exec& exec, std::size_t capacity) {
    return exec.template exclusive_sum_scratch_bytes<std::uint32_t>(capacity);
}

template <class Exec, class Keep>
std::size_t FieldArrays::compact(const Exec& exec, Workspace& ws, std::size_t n, const Keep& keep) {
    if (n == 0) return 0;
    exec.for_each(n, kernels::KeepFlags<Keep>{keep, keep_.data()}, "fields.keep");
    exec.exclusive_sum(ws, keep_.data(), keep_offset_.data(), n);
    const Moves m = moves(kFieldCompact);
    exec.for_each(n, kernels::CompactFields{m, keep_.data(), keep_offset_.data(), kept_.data(), n}, "fields.compact");
    swap_with_spares(kFieldCompact);
    return exec.read_value(kept_.data());
}

}  // namespace partikel
