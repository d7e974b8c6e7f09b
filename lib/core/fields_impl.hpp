// FieldArrays' reorder and compaction (core/fields.hpp), written once for both backends. Model
// kernels include this and instantiate them with their own epilogue and keep predicate.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "base/error.hpp"
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

// Row k of every moved field from row order[k], and epilogue(k, order[k]). The epilogue runs
// first: the fields it reads of the row (SPH's neighbour records are made from the state) are
// then in L1 when the moves copy them. A move's load cannot start before the previous move's
// store (they might alias), so the moves of one row wait for each other; from L1 that wait is
// short. (Holding every record in registers to issue all loads first measured about 1.8x slower on
// the H200: the registers cost occupancy.)
template <class Epilogue> struct GatherFields {
    FieldArrays::Moves moves;
    const std::uint32_t* order;
    Epilogue epilogue;
    PK_DEVICE_INLINE void operator()(std::size_t k) const {
        const std::uint32_t from = order[k];
        epilogue(k, from);
        for (int f = 0; f < moves.count; ++f) move_record(moves.slot[f], from, k);
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

// Packed record k from row rows[k] (into_packed), or row at + k from packed record order[k].
struct PackRows {
    FieldArrays::Moves moves;
    const std::uint32_t* rows;
    PK_DEVICE_INLINE void operator()(std::size_t k) const {
        for (int f = 0; f < moves.count; ++f) move_record(moves.slot[f], rows[k], k);
    }
};

struct UnpackRows {
    FieldArrays::Moves moves;
    const std::uint32_t* order;  // nullptr: record k
    const std::uint32_t* rows;   // nullptr: row at + k
    std::size_t at;
    PK_DEVICE_INLINE void operator()(std::size_t k) const {
        const std::size_t from = order ? order[k] : k;
        const std::size_t to = rows ? rows[k] : at + k;
        for (int f = 0; f < moves.count; ++f) move_record(moves.slot[f], from, to);
    }
};

struct MoveRows {
    FieldArrays::Moves moves;
    const std::uint32_t* from;
    const std::uint32_t* to;
    PK_DEVICE_INLINE void operator()(std::size_t k) const {
        for (int f = 0; f < moves.count; ++f) move_record(moves.slot[f], from[k], to[k]);
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

template <class Exec>
void FieldArrays::pack(const Exec& exec, const std::uint32_t* rows, std::size_t count, std::uint64_t fields,
                       std::byte* packed) const {
    if (count == 0) return;
    exec.for_each(count, kernels::PackRows{pack_moves(fields, count, packed, true), rows}, "fields.pack");
}

template <class Exec>
void FieldArrays::unpack(const Exec& exec, const std::byte* packed, std::size_t count, std::size_t at,
                         std::uint64_t fields, const std::uint32_t* order, const std::uint32_t* rows) {
    if (count == 0) return;
    if (!rows && at + count > capacity_)
        throw UsageError("FieldArrays: " + std::to_string(count) + " rows at row " + std::to_string(at) +
                         " exceed the capacity of " + std::to_string(capacity_));
    exec.for_each(count, kernels::UnpackRows{pack_moves(fields, count, packed, false), order, rows, at},
                  "fields.unpack");
}

template <class Exec>
void FieldArrays::move_rows(const Exec& exec, const std::uint32_t* from, const std::uint32_t* to, std::size_t count,
                            std::uint64_t fields) {
    if (count == 0) return;
    exec.for_each(count, kernels::MoveRows{in_place_moves(fields), from, to}, "fields.move_rows");
}

}  // namespace partikel
