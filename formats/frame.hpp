// The one particle data model of Partikel (formats/SPEC.md, "Data model").
//
// A Frame is attributes plus one or more Groups (species: "fluid", "boundary", "neighbors",
// ...). A Group is a set of named Columns of equal length (particle count). A Column has a
// scalar type, a component count (position: f32 x 3) and a unit. Values are stored
// structure-of-arrays per column, components interleaved per particle (x0 y0 z0 x1 y1 z1 ...),
// which is what kernels read as float3-like records.
//
// This header never includes CUDA; it is shared by every encoding and every program.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "base/error.hpp"
#include "base/units.hpp"

namespace partikel::fmt {

// The scalar types and units of columns (base/units.hpp), under their format names.
using partikel::ScalarType;
using partikel::Unit;
using partikel::UnitDimension;
using partikel::is_float;
using partikel::parse_scalar_type;
using partikel::scalar_name;
using partikel::scalar_size;
using partikel::scalar_type_of;
using partikel::unit_symbol;

// A symmetric tensor's six components in the order a column stores them (SPEC.md §1: Voigt's).
// Writers of tensors (sph's SymTensor) check their layout against it.
inline constexpr std::array<std::string_view, 6> kSymmetricTensorComponents{"xx", "yy", "zz", "yz", "xz", "xy"};

// Component names of a C-component column (SPEC.md §1): {} for C = 1; x, y (, z) for 2 and 3;
// kSymmetricTensorComponents for a symmetric tensor (6); xx, xy, ... zz for 9;
// 0, 1, ... otherwise. Every reader, writer and report spells components this way.
std::vector<std::string> component_names(std::uint32_t components);
// The shortest text that reads back as exactly `v` ("0.6", "1e-05"): how text encodings and
// side files write reals.
std::string shortest_text(double v);
// "position.x", "stress.xy", "density" (one component): how reports label a column component.
std::string component_label(std::string_view column, std::uint32_t components, std::uint32_t component);

// The well-known columns with their units (SPEC.md lists them); nullopt for other names.
struct WellKnownColumn {
    std::string_view name;
    ScalarType type;
    std::uint32_t components;
    Unit unit;
};
std::optional<WellKnownColumn> well_known_column(std::string_view name);

// Allocates without value-initialising, so that readers can fill large columns without first
// writing zeros over them; Column zeroes explicitly wherever its contract says "zero".
template <class T> struct DefaultInitAllocator : std::allocator<T> {
    template <class U> struct rebind { using other = DefaultInitAllocator<U>; };
    using std::allocator<T>::allocator;
    template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
    template <class U, class... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

// Memory that a caller provides for the values of columns (open_reader's `memory`): a reader
// decodes each column it wants straight into it, with no copy on the host afterwards. formats
// never sees a device; a program hands it page-locked memory (run/pinned_columns.hpp), so that
// the columns it uploads to a GPU travel by DMA at the bus's speed. Used from several threads
// (columns are made on a reader's thread and freed on another): implementations lock.
class ColumnMemory {
public:
    virtual ~ColumnMemory() = default;
    // Whether column `column` of group `group` goes into this memory (the others: the heap).
    virtual bool wants(std::string_view group, std::string_view column) const = 0;
    // At least `bytes` (> 0) bytes; throws (OutOfMemoryError) when there are none.
    virtual std::byte* allocate(std::size_t bytes) = 0;
    // Gives back what allocate(bytes) returned.
    virtual void deallocate(std::byte* pointer, std::size_t bytes) noexcept = 0;
};

// `memory` when it wants column `column` of group `group`, else none (the heap).
inline std::shared_ptr<ColumnMemory> memory_for(const std::shared_ptr<ColumnMemory>& memory, std::string_view group,
                                                std::string_view column) {
    return memory && memory->wants(group, column) ? memory : nullptr;
}

// A column's allocator: from its ColumnMemory when it has one, else the heap; values left
// unset, as DefaultInitAllocator leaves them. A copy of a column lives on the heap (the
// provided memory holds what a reader made), a moved column keeps its memory.
template <class T> class ColumnAllocator {
public:
    using value_type = T;
    using propagate_on_container_copy_assignment = std::false_type;
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;

    ColumnAllocator() = default;
    explicit ColumnAllocator(std::shared_ptr<ColumnMemory> memory) : memory_(std::move(memory)) {}
    template <class U> ColumnAllocator(const ColumnAllocator<U>& other) : memory_(other.memory()) {}

    T* allocate(std::size_t n) {
        if (!memory_) return std::allocator<T>{}.allocate(n);
        return reinterpret_cast<T*>(memory_->allocate(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (!memory_) return std::allocator<T>{}.deallocate(p, n);
        memory_->deallocate(reinterpret_cast<std::byte*>(p), n * sizeof(T));
    }
    template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
    template <class U, class... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    ColumnAllocator select_on_container_copy_construction() const { return {}; }
    const std::shared_ptr<ColumnMemory>& memory() const { return memory_; }
    template <class U> bool operator==(const ColumnAllocator<U>& other) const { return memory_ == other.memory(); }

private:
    std::shared_ptr<ColumnMemory> memory_;
};

namespace detail {

// Where each named item (a group's columns, a frame's groups) sits in its vector, so that finding
// one by name is O(1) and reading a group of 100,000 columns stays linear. The owner reports
// items it appends and invalidates the index when it hands its vector out for change; the next
// lookup rebuilds it (and when an entry no longer names its item). Lookups are const and may
// run on several threads at once, as they could before the index: the rebuild is locked.
class NameIndex {
public:
    NameIndex() = default;
    NameIndex(const NameIndex& other) { *this = other; }
    NameIndex& operator=(const NameIndex& other) {
        if (this == &other) return *this;
        const std::lock_guard lock(other.mutex_);
        positions_ = other.positions_;
        valid_.store(other.valid_.load());
        return *this;
    }
    NameIndex(NameIndex&& other) noexcept { *this = std::move(other); }
    NameIndex& operator=(NameIndex&& other) noexcept {  // other is the mover's alone: no lock
        if (this == &other) return *this;
        positions_ = std::move(other.positions_);
        valid_.store(other.valid_.load());
        other.valid_.store(false);
        return *this;
    }

    template <class Item> const Item* find(const std::vector<Item>& items, std::string_view name) const {
        for (int attempt = 0; attempt < 2; ++attempt) {
            if (!valid_.load(std::memory_order_acquire)) {
                const std::lock_guard lock(mutex_);
                if (!valid_.load(std::memory_order_relaxed)) {
                    positions_.clear();
                    for (std::size_t i = 0; i < items.size(); ++i) positions_.emplace(items[i].name(), i);
                    valid_.store(true, std::memory_order_release);
                }
            }
            const auto it = positions_.find(name);
            if (it == positions_.end()) return nullptr;
            if (it->second < items.size() && items[it->second].name() == name) return &items[it->second];
            valid_.store(false);  // an item renamed behind the owner's back: build it again
        }
        return nullptr;
    }
    // Non-const: the owner's own changes, which no lookup runs beside.
    void appended(const std::string& name, std::size_t position) {
        if (valid_.load(std::memory_order_relaxed)) positions_.emplace(name, position);
    }
    void invalidate() { valid_.store(false, std::memory_order_relaxed); }

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
    };
    mutable std::unordered_map<std::string, std::size_t, Hash, std::equal_to<>> positions_;
    mutable std::atomic<bool> valid_{false};
    mutable std::mutex mutex_;
};

}  // namespace detail

class Column {
public:
    Column() = default;
    // A zero-filled column; its values in `memory` when given (else the heap).
    Column(std::string name, ScalarType type, std::uint32_t components, std::uint64_t count, Unit unit = {},
           std::shared_ptr<ColumnMemory> memory = {});
    // A column whose values are left unset, for readers that overwrite every byte.
    static Column uninitialized(std::string name, ScalarType type, std::uint32_t components, std::uint64_t count,
                                Unit unit = {}, std::shared_ptr<ColumnMemory> memory = {});

    const std::string& name() const { return name_; }
    void rename(std::string name) { name_ = std::move(name); }
    ScalarType type() const { return type_; }
    std::uint32_t components() const { return components_; }
    std::uint64_t count() const { return count_; }        // particles (rows)
    const Unit& unit() const { return unit_; }
    void set_unit(const Unit& unit) { unit_ = unit; }
    std::size_t bytes() const { return bytes_.size(); }   // count * components * scalar size

    // Resize to `count` rows; new values are zero.
    void resize(std::uint64_t count);

    std::span<std::byte> raw() { return bytes_; }
    std::span<const std::byte> raw() const { return bytes_; }

    // Typed zero-copy views (count * components values). Throws UsageError on a type mismatch.
    template <class T> std::span<T> values() {
        check_type(scalar_type_of<T>());
        return {reinterpret_cast<T*>(bytes_.data()), bytes_.size() / sizeof(T)};
    }
    template <class T> std::span<const T> values() const {
        check_type(scalar_type_of<T>());
        return {reinterpret_cast<const T*>(bytes_.data()), bytes_.size() / sizeof(T)};
    }

    // Element (row, component) converted to double, for statistics and comparison.
    double as_double(std::uint64_t row, std::uint32_t component = 0) const;

private:
    void check_type(ScalarType wanted) const;

    std::string name_;
    ScalarType type_ = ScalarType::f32;
    std::uint32_t components_ = 1;
    std::uint64_t count_ = 0;
    Unit unit_{};
    std::vector<std::byte, ColumnAllocator<std::byte>> bytes_;
};

class Group {
public:
    Group() = default;
    Group(std::string name, std::uint64_t count) : name_(std::move(name)), count_(count) {}

    const std::string& name() const { return name_; }
    void rename(std::string name) { name_ = std::move(name); }
    std::uint64_t count() const { return count_; }

    // Adds a zero-filled column; throws UsageError if the name exists.
    Column& add_column(std::string name, ScalarType type, std::uint32_t components, Unit unit = {});
    // Adds a column with the well-known type, components and unit of `name`.
    Column& add_well_known(std::string_view name);
    // Adds an already filled column; its count must equal the group's count.
    Column& add_column(Column column);
    void remove_column(std::string_view name);

    Column* find(std::string_view name);
    const Column* find(std::string_view name) const;
    Column& at(std::string_view name);               // throws UsageError naming the column
    const Column& at(std::string_view name) const;

    // The columns, for change (the name index is rebuilt at the next lookup).
    std::vector<Column>& columns() {
        index_.invalidate();
        return columns_;
    }
    const std::vector<Column>& columns() const { return columns_; }

    // Change the particle count of the group and every column (new rows are zero).
    void resize(std::uint64_t count);

private:
    std::string name_;
    std::uint64_t count_ = 0;
    std::vector<Column> columns_;
    detail::NameIndex index_;
};

// Attribute values: integers, reals, text, and real vectors (e.g. a domain box).
using AttributeValue = std::variant<std::int64_t, double, std::string, std::vector<double>>;

class Frame {
public:
    std::int64_t step = 0;   // iteration number
    double time = 0.0;       // simulated time, in units of time_unit_si seconds
    double dt = 0.0;         // last time step, same unit as time
    double time_unit_si = 1.0;
    // Free key/values: simulation parameters ("sph.h", "sph.c0"), provenance ("program",
    // "version", "command_line", "device", "seed"), domain ("domain.min").
    std::map<std::string, AttributeValue, std::less<>> attributes;

    Group& add_group(std::string name, std::uint64_t count);
    Group* find_group(std::string_view name);
    const Group* find_group(std::string_view name) const;
    Group& group(std::string_view name);               // throws UsageError naming the group
    const Group& group(std::string_view name) const;
    // The groups, for change (the name index is rebuilt at the next lookup).
    std::vector<Group>& groups() {
        index_.invalidate();
        return groups_;
    }
    const std::vector<Group>& groups() const { return groups_; }
    void remove_group(std::string_view name);

    std::uint64_t particle_count() const;              // over all groups
    std::uint64_t payload_bytes() const;               // sum of column bytes

private:
    std::vector<Group> groups_;
    detail::NameIndex index_;
};

// What every reader checks of each frame it delivers, whatever the encoding (open_reader
// applies it): time and dt finite, time_unit_si finite and positive, and no group of more
// particles than the machine's memory holds at one byte each (a group of 2^62 particles and no
// columns costs no memory to read, but every program after the reader loops over it).
// FormatError "WHERE: ..." naming the value.
void check_frame(const Frame& frame, const std::string& where);

}  // namespace partikel::fmt
