// Per-particle state defined once: a model lists its fields in a table (name, scalar type,
// components, unit, and what happens to each field when particles are reordered, removed,
// written or restored), and FieldArrays holds them on a backend. Reordering into cell order,
// compaction, frame output and restart are then derived from the table: adding a field is one
// line in the table plus its physics.
//
//   enum SphField : int { position, velocity, ..., field_count };
//   inline constexpr FieldSpec kSphFields[field_count] = {
//       {"position", ScalarType::f32, 3, units::length, kFieldGather | kFieldCompact | kFieldWrite | kFieldRestore},
//       ...
//       {"acceleration", ScalarType::f32, 3, units::acceleration, kFieldScratch},
//   };
//   FieldArrays fields(backend, kSphFields, present_mask, capacity);
//   Vec3f* x = fields.data<Vec3f>(position);
//   fields.gather(exec, grid.sorted_to_original(), n, kFieldGather, epilogue);   // core/fields_impl.hpp
//
// Reordering and compaction are out of place: each field moved writes into a spare buffer of
// its element size and the two are swapped. A scratch field (kFieldScratch: nothing in it is
// needed across a reorder or a compaction) lends its memory as such a spare; the other fields
// get spares of their own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/units.hpp"
#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/workspace.hpp"

namespace partikel {

enum FieldFlag : unsigned {
    kFieldGather = 1u << 0,        // brought into the new order at every reorder
    kFieldGatherInStep = 1u << 1,  // reordered only between the stages of a step (a stage's start state)
    kFieldCompact = 1u << 2,       // kept for the remaining particles when some are removed (needs a gather flag)
    kFieldWrite = 1u << 3,         // written to output frames
    kFieldRestore = 1u << 4,       // read back from a frame when a run restarts from it
    kFieldScratch = 1u << 5,       // holds nothing across a reorder or compaction: lends its memory as a spare
};

struct FieldSpec {
    std::string_view name;    // the column name in frames
    ScalarType type;
    std::uint32_t components;
    Unit unit;
    unsigned flags;           // FieldFlag bits
};

inline std::size_t field_element_bytes(const FieldSpec& spec) { return scalar_size(spec.type) * spec.components; }

class FieldArrays {
public:
    // The fields of `table` whose bit is set in `present` (bit f: field f), `capacity` particles
    // each, allocated now (with their spares); nothing is allocated later.
    FieldArrays(const Backend& backend, std::span<const FieldSpec> table, std::uint64_t present, std::size_t capacity);

    bool has(int field) const { return field >= 0 && field < int(table_.size()) && ((present_ >> field) & 1u); }
    const FieldSpec& spec(int field) const { return table_[static_cast<std::size_t>(field)]; }
    std::span<const FieldSpec> table() const { return table_; }
    std::size_t capacity() const { return capacity_; }
    const Backend& backend() const { return backend_; }

    // The field's values on the backend, as records of T (sizeof(T) must be its element size).
    template <class T> T* data(int field) { return static_cast<T*>(raw(field, sizeof(T))); }
    template <class T> const T* data(int field) const { return static_cast<const T*>(raw(field, sizeof(T))); }
    void* raw(int field, std::size_t element_bytes);
    const void* raw(int field, std::size_t element_bytes) const;

    // Exchange two fields' memory (equal record sizes): a pass that writes its result into a
    // scratch field makes it the field it replaces, without a copy.
    void swap(int a, int b);

    // Host <-> backend copies of the first `count` records of a field (synchronous).
    void upload(int field, const void* host, std::size_t count);
    void download(int field, void* host, std::size_t count) const;

    // Reorder and compaction (core/fields_impl.hpp, for model kernels to instantiate).
    template <class Exec, class Epilogue>
    void gather(const Exec& exec, const std::uint32_t* order, std::size_t n, unsigned flags, const Epilogue& epilogue);
    template <class Exec, class Keep> std::size_t compact(const Exec& exec, Workspace& ws, std::size_t n, const Keep& keep);
    template <class Exec> static std::size_t compact_scratch_bytes(const Exec& exec, std::size_t capacity);

    // Rows for other ranks (lib/dist: migration and halos). A packed buffer holds `count` rows
    // of the fields in `fields` (a bit mask, table order) field by field: block f holds the
    // count records of field f, each block starting at a multiple of 16 bytes
    // (packed_offset). pack() writes rows[k] of each field as record k of its block; unpack()
    // writes record order[k] (k without an order) of each block into row rows[k] (at + k
    // without rows: ghost rows after the owned ones, or rows arrived from other ranks).
    template <class Exec>
    void pack(const Exec& exec, const std::uint32_t* rows, std::size_t count, std::uint64_t fields, std::byte* packed) const;
    template <class Exec>
    void unpack(const Exec& exec, const std::byte* packed, std::size_t count, std::size_t at, std::uint64_t fields,
                const std::uint32_t* order = nullptr, const std::uint32_t* rows = nullptr);
    // Row to[k] of each field in `fields` takes row from[k]'s values (k < count; no row both read
    // and written): filling the holes particles left.
    template <class Exec>
    void move_rows(const Exec& exec, const std::uint32_t* from, const std::uint32_t* to, std::size_t count,
                   std::uint64_t fields);
    // Where field f's block of `count` rows starts in a packed buffer, and the buffer's size.
    std::size_t packed_offset(std::uint64_t fields, std::size_t count, int field) const;
    std::size_t packed_bytes(std::uint64_t fields, std::size_t count) const;
    // The present fields with any of `flags` (FieldFlag bits), as a mask.
    std::uint64_t fields_with(unsigned flags) const;

    std::size_t device_bytes() const;  // fields, spares and compaction buffers

    // The buffers one gather or compaction moves: from each field into its spare.
    struct Moves {
        static constexpr int kMax = 12;
        struct Slot {
            const std::byte* src;
            std::byte* dst;
            std::uint32_t bytes;  // per record
        };
        Slot slot[kMax];
        int count = 0;
    };

private:
    Moves moves(unsigned flags);
    Moves pack_moves(std::uint64_t fields, std::size_t count, const std::byte* packed, bool into_packed) const;
    Moves in_place_moves(std::uint64_t fields) const;
    void swap_with_spares(unsigned flags);

    Backend backend_;
    std::vector<FieldSpec> table_;
    std::uint64_t present_;
    std::size_t capacity_;
    std::vector<DeviceBuffer<std::byte>> buffers_;  // per field (empty when absent)
    std::vector<DeviceBuffer<std::byte>> spares_;   // spares owned here
    struct SpareRef {
        int field = -1;  // a scratch field lending its buffer, or
        int own = -1;    // an index into spares_
    };
    std::vector<SpareRef> spare_of_;                // per field that moves
    DeviceBuffer<std::uint32_t> keep_, keep_offset_;  // compaction (when a field is compacted)
    DeviceBuffer<std::uint32_t> kept_;                // device scalar: rows kept
};

}  // namespace partikel
