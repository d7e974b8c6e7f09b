#include "core/fields.hpp"

#include "base/error.hpp"
#include "core/memory.hpp"

namespace partikel {

FieldArrays::FieldArrays(const Backend& backend, std::span<const FieldSpec> table, std::uint64_t present,
                         std::size_t capacity)
    : backend_(backend), table_(table.begin(), table.end()), present_(present), capacity_(capacity) {
    if (table_.size() > 64) throw UsageError("FieldArrays: at most 64 fields");
    const std::size_t slots = capacity > 0 ? capacity : 1;
    buffers_.resize(table_.size());
    spare_of_.resize(table_.size());
    bool any_compacted = false;
    for (std::size_t f = 0; f < table_.size(); ++f) {
        if (!has(int(f))) continue;
        const FieldSpec& s = table_[f];
        if ((s.flags & kFieldCompact) && !(s.flags & (kFieldGather | kFieldGatherInStep)))
            throw UsageError("FieldArrays: field \"" + std::string(s.name) + "\" is compacted but never reordered");
        buffers_[f] = DeviceBuffer<std::byte>(backend, slots * field_element_bytes(s));
        any_compacted = any_compacted || (s.flags & kFieldCompact);
    }
    // Spares: each moving field borrows a scratch field of its element size, else gets its own.
    std::vector<bool> lent(table_.size(), false);
    for (std::size_t f = 0; f < table_.size(); ++f) {
        if (!has(int(f)) || !(table_[f].flags & (kFieldGather | kFieldGatherInStep))) continue;
        const std::size_t bytes = field_element_bytes(table_[f]);
        for (std::size_t s = 0; s < table_.size(); ++s) {
            if (!has(int(s)) || lent[s] || !(table_[s].flags & kFieldScratch) || field_element_bytes(table_[s]) != bytes)
                continue;
            lent[s] = true;
            spare_of_[f].field = int(s);
            break;
        }
        if (spare_of_[f].field < 0) {
            spare_of_[f].own = int(spares_.size());
            spares_.emplace_back(backend, slots * bytes);
        }
    }
    if (any_compacted) {
        keep_ = DeviceBuffer<std::uint32_t>(backend, slots);
        keep_offset_ = DeviceBuffer<std::uint32_t>(backend, slots);
        kept_ = DeviceBuffer<std::uint32_t>(backend, 1);
    }
}

void* FieldArrays::raw(int field, std::size_t element_bytes) {
    return const_cast<void*>(static_cast<const FieldArrays&>(*this).raw(field, element_bytes));
}

const void* FieldArrays::raw(int field, std::size_t element_bytes) const {
    if (!has(field)) throw UsageError("FieldArrays: no field " + std::to_string(field) + " here");
    if (element_bytes != field_element_bytes(spec(field)))
        throw UsageError("FieldArrays: field \"" + std::string(spec(field).name) + "\" has " +
                         std::to_string(field_element_bytes(spec(field))) + "-byte records, not " +
                         std::to_string(element_bytes));
    return buffers_[static_cast<std::size_t>(field)].data();
}

void FieldArrays::swap(int a, int b) {
    if (!has(a) || !has(b) || field_element_bytes(spec(a)) != field_element_bytes(spec(b)))
        throw UsageError("FieldArrays: cannot swap fields " + std::to_string(a) + " and " + std::to_string(b));
    std::swap(buffers_[static_cast<std::size_t>(a)], buffers_[static_cast<std::size_t>(b)]);
}

void FieldArrays::upload(int field, const void* host, std::size_t count) {
    if (count > capacity_) throw UsageError("FieldArrays: upload of " + std::to_string(count) + " records exceeds the capacity");
    const std::size_t bytes = field_element_bytes(spec(field));
    copy_bytes(backend_, raw(field, bytes), host, count * bytes, CopyDirection::host_to_device);
}

void FieldArrays::download(int field, void* host, std::size_t count) const {
    if (count > capacity_) throw UsageError("FieldArrays: download of " + std::to_string(count) + " records exceeds the capacity");
    const std::size_t bytes = field_element_bytes(spec(field));
    copy_bytes(backend_, host, raw(field, bytes), count * bytes, CopyDirection::device_to_host);
}

FieldArrays::Moves FieldArrays::moves(unsigned flags) {
    Moves m;
    for (std::size_t f = 0; f < table_.size(); ++f) {
        if (!has(int(f)) || !(table_[f].flags & flags)) continue;
        if (m.count == Moves::kMax) throw UsageError("FieldArrays: more than 12 fields move together");
        const SpareRef ref = spare_of_[f];
        std::byte* spare = ref.field >= 0 ? buffers_[static_cast<std::size_t>(ref.field)].data()
                                          : spares_[static_cast<std::size_t>(ref.own)].data();
        m.slot[m.count++] = {buffers_[f].data(), spare, static_cast<std::uint32_t>(field_element_bytes(table_[f]))};
    }
    return m;
}

void FieldArrays::swap_with_spares(unsigned flags) {
    for (std::size_t f = 0; f < table_.size(); ++f) {
        if (!has(int(f)) || !(table_[f].flags & flags)) continue;
        const SpareRef ref = spare_of_[f];
        std::swap(buffers_[f], ref.field >= 0 ? buffers_[static_cast<std::size_t>(ref.field)]
                                              : spares_[static_cast<std::size_t>(ref.own)]);
    }
}

std::size_t FieldArrays::packed_offset(std::uint64_t fields, std::size_t count, int field) const {
    std::size_t offset = 0;
    for (int f = 0; f < int(table_.size()) && f < field; ++f)
        if (((fields >> f) & 1u) && has(f)) offset += (count * field_element_bytes(table_[std::size_t(f)]) + 15) / 16 * 16;
    return offset;
}

std::size_t FieldArrays::packed_bytes(std::uint64_t fields, std::size_t count) const {
    return packed_offset(fields, count, int(table_.size()));
}

std::uint64_t FieldArrays::fields_with(unsigned flags) const {
    std::uint64_t mask = 0;
    for (std::size_t f = 0; f < table_.size(); ++f)
        if (has(int(f)) && (table_[f].flags & flags)) mask |= std::uint64_t{1} << f;
    return mask;
}

FieldArrays::Moves FieldArrays::pack_moves(std::uint64_t fields, std::size_t count, const std::byte* packed,
                                           bool into_packed) const {
    Moves m;
    for (std::size_t f = 0; f < table_.size(); ++f) {
        if (!((fields >> f) & 1u)) continue;
        if (!has(int(f))) throw UsageError("FieldArrays: no field \"" + std::string(table_[f].name) + "\" to pack");
        if (m.count == Moves::kMax) throw UsageError("FieldArrays: more than 12 fields packed together");
        auto* block = const_cast<std::byte*>(packed) + packed_offset(fields, count, int(f));
        auto* field = const_cast<std::byte*>(buffers_[f].data());
        const auto bytes = static_cast<std::uint32_t>(field_element_bytes(table_[f]));
        m.slot[m.count++] = into_packed ? Moves::Slot{field, block, bytes} : Moves::Slot{block, field, bytes};
    }
    return m;
}

FieldArrays::Moves FieldArrays::in_place_moves(std::uint64_t fields) const {
    Moves m;
    for (std::size_t f = 0; f < table_.size(); ++f) {
        if (!((fields >> f) & 1u)) continue;
        if (!has(int(f))) throw UsageError("FieldArrays: no field \"" + std::string(table_[f].name) + "\" to move");
        if (m.count == Moves::kMax) throw UsageError("FieldArrays: more than 12 fields moved together");
        auto* data = const_cast<std::byte*>(buffers_[f].data());
        m.slot[m.count++] = {data, data, static_cast<std::uint32_t>(field_element_bytes(table_[f]))};
    }
    return m;
}

std::size_t FieldArrays::device_bytes() const {
    std::size_t bytes = keep_.bytes() + keep_offset_.bytes() + kept_.bytes();
    for (const auto& b : buffers_) bytes += b.bytes();
    for (const auto& b : spares_) bytes += b.bytes();
    return bytes;
}

}  // namespace partikel
