#include "formats/frame.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include "base/system.hpp"

namespace partikel::fmt {

std::vector<std::string> component_names(std::uint32_t components) {
    switch (components) {
    case 1: return {};
    case 2: return {"x", "y"};
    case 3: return {"x", "y", "z"};
    case 6: return std::vector<std::string>(kSymmetricTensorComponents.begin(), kSymmetricTensorComponents.end());
    case 9: return {"xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz"};
    default: {
        std::vector<std::string> names;
        for (std::uint32_t k = 0; k < components; ++k) names.push_back(std::to_string(k));
        return names;
    }
    }
}

std::string shortest_text(double v) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, end);
}

std::string component_label(std::string_view column, std::uint32_t components, std::uint32_t component) {
    if (components <= 1) return std::string(column);
    return std::string(column) + "." + component_names(components).at(component);
}

std::optional<WellKnownColumn> well_known_column(std::string_view name) {
    using S = ScalarType;
    static const WellKnownColumn table[] = {
        {"position", S::f32, 3, units::length},
        {"velocity", S::f32, 3, units::velocity},
        {"acceleration", S::f32, 3, units::acceleration},
        {"force", S::f32, 3, units::force},
        {"mass", S::f32, 1, units::mass},
        {"density", S::f32, 1, units::density},
        {"pressure", S::f32, 1, units::pressure},
        {"stress", S::f32, 6, units::pressure},
        {"strain_rate", S::f32, 1, units::rate},
        {"smoothing_length", S::f32, 1, units::length},
        {"potential", S::f32, 1, units::specific_energy},
        {"energy", S::f32, 1, units::energy},
        {"id", S::u64, 1, units::none},
        {"kind", S::u8, 1, units::none},
        {"color", S::f32, 1, units::none},
        {"valid", S::u8, 1, units::none},
        {"neighbor_count", S::u32, 1, units::none},
    };
    for (const auto& c : table)
        if (c.name == name) return c;
    return std::nullopt;
}

namespace {

// Names become HDF5 link names and CSV headers (SPEC.md §1).
void check_name(std::string_view name, const char* what) {
    bool bad = name.empty() || name.size() > 255 || name == "." || name == ".." ||
               name.find('/') != std::string_view::npos || name.find('\0') != std::string_view::npos;
    if (bad) throw UsageError(std::string("invalid ") + what + " name \"" + std::string(name) +
                              "\" (1-255 bytes, no '/' or NUL, not . or ..)");
}

std::size_t checked_bytes(std::uint64_t count, std::uint32_t components, ScalarType type) {
    if (components == 0) throw UsageError("a column needs at least one component");
    const std::uint64_t row = std::uint64_t(components) * scalar_size(type);
    if (count > SIZE_MAX / row) throw UsageError("column of " + std::to_string(count) + " rows is too large");
    return static_cast<std::size_t>(count * row);
}

}  // namespace

Column::Column(std::string name, ScalarType type, std::uint32_t components, std::uint64_t count, Unit unit,
               std::shared_ptr<ColumnMemory> memory)
    : name_(std::move(name)), type_(type), components_(components), count_(count), unit_(unit),
      bytes_(ColumnAllocator<std::byte>(std::move(memory))) {
    check_name(name_, "column");
    bytes_.resize(checked_bytes(count, components, type));
    if (!bytes_.empty()) std::memset(bytes_.data(), 0, bytes_.size());
}

Column Column::uninitialized(std::string name, ScalarType type, std::uint32_t components, std::uint64_t count, Unit unit,
                             std::shared_ptr<ColumnMemory> memory) {
    Column c;
    c.bytes_ = decltype(c.bytes_)(ColumnAllocator<std::byte>(std::move(memory)));
    c.name_ = std::move(name);
    check_name(c.name_, "column");
    c.type_ = type;
    c.components_ = components;
    c.count_ = count;
    c.unit_ = unit;
    c.bytes_.resize(checked_bytes(count, components, type));
    return c;
}

void Column::resize(std::uint64_t count) {
    const std::size_t old = bytes_.size();
    bytes_.resize(checked_bytes(count, components_, type_));
    if (bytes_.size() > old) std::memset(bytes_.data() + old, 0, bytes_.size() - old);
    count_ = count;
}

void Column::check_type(ScalarType wanted) const {
    if (wanted != type_)
        throw UsageError("column \"" + name_ + "\" holds " + std::string(scalar_name(type_)) + ", not " +
                         std::string(scalar_name(wanted)));
}

double Column::as_double(std::uint64_t row, std::uint32_t component) const {
    const std::size_t i = static_cast<std::size_t>(row) * components_ + component;
    auto load = [&](auto tag) {
        decltype(tag) v;
        std::memcpy(&v, bytes_.data() + i * sizeof v, sizeof v);
        return static_cast<double>(v);
    };
    switch (type_) {
    case ScalarType::u8: return load(std::uint8_t{});
    case ScalarType::i32: return load(std::int32_t{});
    case ScalarType::u32: return load(std::uint32_t{});
    case ScalarType::i64: return load(std::int64_t{});
    case ScalarType::u64: return load(std::uint64_t{});
    case ScalarType::f32: return load(float{});
    case ScalarType::f64: return load(double{});
    }
    return 0.0;
}

Column& Group::add_column(std::string name, ScalarType type, std::uint32_t components, Unit unit) {
    return add_column(Column(std::move(name), type, components, count_, unit));
}

Column& Group::add_well_known(std::string_view name) {
    auto known = well_known_column(name);
    if (!known) throw UsageError("\"" + std::string(name) + "\" is not a well-known column name");
    return add_column(std::string(name), known->type, known->components, known->unit);
}

Column& Group::add_column(Column column) {
    if (find(column.name())) throw UsageError("group \"" + name_ + "\" already has a column \"" + column.name() + "\"");
    if (column.count() != count_)
        throw UsageError("column \"" + column.name() + "\" has " + std::to_string(column.count()) +
                         " rows but group \"" + name_ + "\" has " + std::to_string(count_) + " particles");
    columns_.push_back(std::move(column));
    index_.appended(columns_.back().name(), columns_.size() - 1);
    return columns_.back();
}

void Group::remove_column(std::string_view name) {
    std::erase_if(columns_, [&](const Column& c) { return c.name() == name; });
    index_.invalidate();
}

Column* Group::find(std::string_view name) { return const_cast<Column*>(std::as_const(*this).find(name)); }

const Column* Group::find(std::string_view name) const { return index_.find(columns_, name); }

Column& Group::at(std::string_view name) {
    if (auto* c = find(name)) return *c;
    throw UsageError("group \"" + name_ + "\" has no column \"" + std::string(name) + "\"");
}

const Column& Group::at(std::string_view name) const { return const_cast<Group*>(this)->at(name); }

void Group::resize(std::uint64_t count) {
    for (auto& c : columns_) c.resize(count);
    count_ = count;
}

Group& Frame::add_group(std::string name, std::uint64_t count) {
    check_name(name, "group");
    if (find_group(name)) throw UsageError("frame already has a group \"" + name + "\"");
    groups_.emplace_back(std::move(name), count);
    index_.appended(groups_.back().name(), groups_.size() - 1);
    return groups_.back();
}

Group* Frame::find_group(std::string_view name) { return const_cast<Group*>(std::as_const(*this).find_group(name)); }

const Group* Frame::find_group(std::string_view name) const { return index_.find(groups_, name); }

Group& Frame::group(std::string_view name) {
    if (auto* g = find_group(name)) return *g;
    throw UsageError("frame has no group \"" + std::string(name) + "\"");
}

const Group& Frame::group(std::string_view name) const { return const_cast<Frame*>(this)->group(name); }

void Frame::remove_group(std::string_view name) {
    std::erase_if(groups_, [&](const Group& g) { return g.name() == name; });
    index_.invalidate();
}

std::uint64_t Frame::particle_count() const {
    std::uint64_t n = 0;
    for (const auto& g : groups_) n += g.count();
    return n;
}

std::uint64_t Frame::payload_bytes() const {
    std::uint64_t n = 0;
    for (const auto& g : groups_)
        for (const auto& c : g.columns()) n += c.bytes();
    return n;
}

void check_frame(const Frame& frame, const std::string& where) {
    const auto refuse = [&](const char* field, double value, const char* must) {
        char text[40];
        std::snprintf(text, sizeof text, "%.17g", value);
        throw FormatError(where + ": " + field + " is " + text + "; a frame's " + field + " must be " + must);
    };
    if (!std::isfinite(frame.time)) refuse("time", frame.time, "a finite number");
    if (!std::isfinite(frame.dt)) refuse("dt", frame.dt, "a finite number");
    if (!(frame.time_unit_si > 0.0) || !std::isfinite(frame.time_unit_si))
        refuse("time_unit_si", frame.time_unit_si, "a finite number > 0");
    const std::uint64_t most = host_memory_bytes();
    for (const Group& g : frame.groups())
        if (g.count() > most)
            throw FormatError(where + ": group \"" + g.name() + "\" has " + std::to_string(g.count()) +
                              " particles, more than this machine's memory holds at one byte each (" +
                              std::to_string(most) + " bytes)");
}

}  // namespace partikel::fmt
