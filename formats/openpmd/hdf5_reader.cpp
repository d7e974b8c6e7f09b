// openPMD reader on HDF5 (SPEC.md §3): groupBased files, and fileBased series named by their
// %T pattern. Reads openPMD files from other codes too: constant record components, other
// integer widths, positionOffset.
#include <dirent.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "formats/encodings.hpp"
#include "formats/openpmd/h5_util.hpp"
#include "formats/openpmd/openpmd.hpp"
#include "formats/stream/stream.hpp"

namespace partikel::fmt {
namespace {

using h5::Id;

std::optional<std::int64_t> parse_step(std::string_view text) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return v;
}

struct Iteration {
    std::string file;
    std::int64_t step;
};

// Files of a fileBased series "dir/name_%T.h5", ordered by step.
std::vector<Iteration> series_files(const std::string& pattern) {
    const auto slash = pattern.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : pattern.substr(0, slash);
    const std::string base = slash == std::string::npos ? pattern : pattern.substr(slash + 1);
    const auto t = base.find("%T");
    if (t == std::string::npos) throw UsageError(pattern + ": a series name needs %T");
    const std::string prefix = base.substr(0, t), suffix = base.substr(t + 2);
    std::vector<Iteration> files;
    DIR* d = opendir(dir.c_str());
    if (!d) throw IoError(dir + ": cannot list directory for series " + pattern);
    while (dirent* e = readdir(d)) {
        const std::string name = e->d_name;
        if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        if (auto step = parse_step(std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - suffix.size())))
            files.push_back({slash == std::string::npos ? name : dir + "/" + name, *step});
    }
    closedir(d);
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.step < b.step; });
    if (files.empty()) throw IoError(pattern + ": no files of this series");
    return files;
}

// Component order of a record: ours (SPEC.md §1) when the names match, else by name.
std::vector<std::string> ordered_components(std::vector<std::string> names) {
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    auto ours = component_names(static_cast<std::uint32_t>(names.size()));
    std::vector<std::string> ours_sorted = ours;
    std::sort(ours_sorted.begin(), ours_sorted.end());
    if (!ours.empty() && ours_sorted == sorted) return ours;
    return sorted;
}

class Hdf5Reader final : public FrameReader {
    // Runs `body`; a FormatError or IoError (HDF5's, from h5_util) that does not name `where`
    // yet becomes a FormatError "where: ...": every error about a damaged file names it.
    template <class Body> static decltype(auto) naming(const std::string& where, Body&& body) {
        try {
            return body();
        } catch (const FormatError& e) {
            if (std::string_view(e.what()).starts_with(where)) throw;
            throw FormatError(where + ": " + e.what());
        } catch (const IoError& e) {
            if (std::string_view(e.what()).starts_with(where)) throw;
            throw FormatError(where + ": " + e.what());
        }
    }

public:
    Hdf5Reader(const std::string& path, std::shared_ptr<ColumnMemory> memory) : name_(path), memory_(std::move(memory)) {
        h5::silence_errors();
        h5::ensure_zstd_filter();
        if (path.find("%T") != std::string::npos) {
            for (const auto& f : series_files(path)) naming(f.file, [&] {
                open_file(f.file);
                list_iterations(f.file);
            });
        } else {
            naming(path, [&] {
                open_file(path);
                list_iterations(path);
            });
        }
    }

    std::optional<Frame> next() override {
        if (next_ >= iterations_.size()) return std::nullopt;
        const auto& it = iterations_[next_];
        Frame frame = read_iteration(it);
        ++next_;
        return frame;
    }

    std::optional<std::uint64_t> frame_count() const override { return iterations_.size(); }
    bool seek_frame(std::uint64_t index) override {
        if (index > iterations_.size()) return false;
        next_ = index;
        return true;
    }
    Encoding encoding() const override { return Encoding::hdf5; }
    const std::string& name() const override { return name_; }

private:
    [[noreturn]] void fail(const std::string& what) const { throw FormatError(what); }

    hid_t file(const std::string& path) {
        auto& f = files_[path];
        if (!f.valid()) {
            f = Id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
            if (!f.valid()) fail(path + ": cannot open as HDF5");
        }
        return f;
    }

    void open_file(const std::string& path) {
        hid_t f = file(path);
        try {
            const auto version = h5::read_string(f, "openPMD");
            if (!version) fail(path + ": not an openPMD file (no openPMD attribute at /)");
            if (version->empty() || (*version)[0] != '1')
                fail(path + ": openPMD version " + *version + " is not supported (1.x is)");
            const auto base = h5::read_string(f, "basePath").value_or("/data/%T/");
            if (base != "/data/%T/") fail(path + ": basePath \"" + base + "\" is not /data/%T/");
            particles_path_ = h5::read_string(f, "particlesPath").value_or("particles/");
            if (particles_path_.empty() || particles_path_.back() != '/') particles_path_ += '/';
        } catch (const FormatError& e) {
            const std::string what = e.what();
            if (what.rfind(path, 0) == 0) throw;
            fail(path + ": " + what);
        }
    }

    void list_iterations(const std::string& path) {
        hid_t f = file(path);
        if (H5Lexists(f, "data", H5P_DEFAULT) <= 0) fail(path + ": no /data group");
        Id data(H5Gopen2(f, "data", H5P_DEFAULT));
        if (!data.valid()) fail(path + ": cannot open /data");
        std::vector<Iteration> found;
        for (const auto& name : h5::link_names(data)) {
            const auto step = parse_step(name);
            if (step && h5::is_group(data, name)) found.push_back({path, *step});
        }
        std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.step < b.step; });
        iterations_.insert(iterations_.end(), found.begin(), found.end());
    }

    Frame read_iteration(const Iteration& it) {
        const std::string where = it.file + ": iteration " + std::to_string(it.step) + " (frame " + std::to_string(next_) + ")";
        try {
            return naming(where, [&] { return read_iteration_unchecked(it, where); });
        } catch (const UsageError& e) {
            fail(where + ": " + e.what());
        }
    }

    Frame read_iteration_unchecked(const Iteration& it, const std::string& where) {
        hid_t f = file(it.file);
        const std::string step = std::to_string(it.step);
        Id group(H5Gopen2(f, ("/data/" + step).c_str(), H5P_DEFAULT));
        if (!group.valid()) fail(where + ": cannot open /data/" + step);
        Frame frame;
        frame.step = it.step;
        frame.time = h5::read_f64(group, "time").value_or(0.0);
        frame.dt = h5::read_f64(group, "dt").value_or(0.0);
        frame.time_unit_si = h5::read_f64(group, "timeUnitSI").value_or(1.0);
        read_frame_attributes(group, frame);
        const std::string particles = particles_path_.substr(0, particles_path_.size() - 1);
        if (!h5::is_group(group, particles)) return frame;
        Id species_root(H5Gopen2(group, particles.c_str(), H5P_DEFAULT));
        if (!species_root.valid()) fail(where + ": cannot open " + particles_path_);
        for (const auto& species : h5::link_names(species_root)) {
            if (!h5::is_group(species_root, species)) continue;
            Id sg(H5Gopen2(species_root, species.c_str(), H5P_DEFAULT));
            if (!sg.valid()) fail(where + ": cannot open species " + species);
            read_species(sg, frame, species, where + ", species \"" + species + "\"");
        }
        return frame;
    }

    static void read_frame_attributes(hid_t group, Frame& frame) {
        const int n = H5Aget_num_attrs(group);
        if (n < 0) throw FormatError(h5::error_reason().empty() ? "cannot count the iteration's attributes"
                                                                : "cannot count the iteration's attributes: " + h5::error_reason());
        for (int i = 0; i < n; ++i) {
            Id attr(H5Aopen_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, static_cast<hsize_t>(i), H5P_DEFAULT, H5P_DEFAULT));
            if (!attr.valid()) throw FormatError("cannot open an iteration attribute");
            char name_buf[1024];
            const ssize_t len = H5Aget_name(attr, sizeof name_buf, name_buf);
            if (len < 0 || len >= static_cast<ssize_t>(sizeof name_buf)) continue;
            const std::string name(name_buf, static_cast<std::size_t>(len));
            if (name == "time" || name == "dt" || name == "timeUnitSI") continue;
            Id type(H5Aget_type(attr));
            Id space(H5Aget_space(attr));
            const auto cls = H5Tget_class(type);
            const bool scalar = H5Sget_simple_extent_type(space) == H5S_SCALAR;
            if (cls == H5T_STRING) {
                frame.attributes[name] = *h5::read_string(group, name.c_str());
            } else if (cls == H5T_INTEGER && scalar) {
                std::int64_t v = 0;
                if (H5Aread(attr, H5T_NATIVE_INT64, &v) < 0) throw FormatError("cannot read attribute " + name);
                frame.attributes[name] = v;
            } else if (cls == H5T_FLOAT && scalar) {
                frame.attributes[name] = *h5::read_f64(group, name.c_str());
            } else if ((cls == H5T_FLOAT || cls == H5T_INTEGER) && H5Sget_simple_extent_ndims(space) == 1) {
                frame.attributes[name] = *h5::read_f64_array(group, name.c_str());
            }
            // Other attribute kinds (compound, arrays of text) have no place in the model.
        }
    }

    // A record component: a dataset, or a constant (group with `value` and `shape`).
    struct Component {
        std::string path;      // relative to the species
        bool constant = false;
        std::uint64_t count = 0;
        ScalarType type = ScalarType::f64;
        double unit_si = 1.0;
    };

    Component inspect_component(hid_t species, const std::string& path, const std::string& where) {
        Component c;
        c.path = path;
        if (h5::is_group(species, path)) {
            Id g(H5Gopen2(species, path.c_str(), H5P_DEFAULT));
            if (!g.valid() || !h5::has_attribute(g, "value") || !h5::has_attribute(g, "shape"))
                fail(where + ": " + path + " is neither a dataset nor a constant record component");
            c.constant = true;
            c.count = *h5::read_u64(g, "shape");
            Id attr(H5Aopen(g, "value", H5P_DEFAULT));
            Id type(H5Aget_type(attr));
            const auto t = h5::scalar_type_from_h5(type);
            if (!t) fail(where + ": " + path + "/value is not numeric");
            c.type = *t;
            c.unit_si = h5::read_f64(g, "unitSI").value_or(1.0);
            return c;
        }
        Id ds(H5Dopen2(species, path.c_str(), H5P_DEFAULT));
        if (!ds.valid()) fail(where + ": cannot open dataset " + path);
        Id space(H5Dget_space(ds));
        if (H5Sget_simple_extent_ndims(space) != 1) fail(where + ": dataset " + path + " is not one-dimensional");
        hsize_t n = 0;
        H5Sget_simple_extent_dims(space, &n, nullptr);
        c.count = n;
        Id type(H5Dget_type(ds));
        const auto t = h5::scalar_type_from_h5(type);
        if (!t) fail(where + ": dataset " + path + " has a type Partikel cannot hold");
        c.type = *t;
        c.unit_si = h5::read_f64(ds, "unitSI").value_or(1.0);
        return c;
    }

    void fill_component(hid_t species, const Component& c, Column& column, std::uint32_t k, const std::string& where) {
        if (c.count == 0) return;
        if (c.constant) {
            Id g(H5Gopen2(species, c.path.c_str(), H5P_DEFAULT));
            Id attr(H5Aopen(g, "value", H5P_DEFAULT));
            std::uint64_t value[1] = {0};
            if (H5Aread(attr, h5::native_type_of(column.type()), value) < 0) fail(where + ": cannot read " + c.path + "/value");
            const std::size_t w = scalar_size(column.type());
            auto* base = column.raw().data();
            for (std::uint64_t r = 0; r < c.count; ++r) std::memcpy(base + (r * column.components() + k) * w, value, w);
            return;
        }
        Id ds(H5Dopen2(species, c.path.c_str(), H5P_DEFAULT));
        // HDF5 scatters into strided memory selections slowly; read one component into a
        // buffer and interleave it here (1/C of the column).
        const std::size_t w = scalar_size(column.type()), row = w * column.components();
        std::byte* target = column.raw().data();
        if (column.components() > 1) {
            component_buffer_.resize(static_cast<std::size_t>(c.count) * w);
            target = component_buffer_.data();
        }
        if (H5Dread(ds, h5::native_type_of(column.type()), H5S_ALL, H5S_ALL, H5P_DEFAULT, target) < 0)
            fail(where + ": cannot read dataset " + c.path + " (corrupt data or a missing compression filter)");
        if (column.components() > 1)
            for (std::size_t i = 0; i < c.count; ++i) std::memcpy(column.raw().data() + i * row + k * w, target + i * w, w);
    }

    Unit record_unit(hid_t species, const std::string& record, double unit_si, const std::string& where) {
        Unit unit;
        unit.si_factor = unit_si;
        Id obj(H5Oopen(species, record.c_str(), H5P_DEFAULT));
        if (!obj.valid()) fail(where + ": cannot open record " + record);
        if (auto dim = h5::read_f64_array(obj, "unitDimension")) {
            if (dim->size() != 7) fail(where + ": record " + record + " has unitDimension of " + std::to_string(dim->size()) + " values, not 7");
            std::copy(dim->begin(), dim->end(), unit.dimension.begin());
        }
        return unit;
    }

    struct Record {
        std::string name;
        std::vector<Component> components;
    };

    void read_species(hid_t sg, Frame& frame, const std::string& species, const std::string& where) {
        std::vector<Record> records;
        for (const auto& name : h5::link_names(sg)) {
            if (name == "particlePatches") continue;  // openPMD's patch table, not a record
            Record r{name, {}};
            const bool group = h5::is_group(sg, name);
            Id g;
            if (group) g = Id(H5Gopen2(sg, name.c_str(), H5P_DEFAULT));
            if (group && !h5::has_attribute(g, "value")) {
                for (const auto& c : ordered_components(h5::link_names(g)))
                    r.components.push_back(inspect_component(sg, name + "/" + c, where));
                if (r.components.empty()) continue;
            } else {
                r.components.push_back(inspect_component(sg, name, where));
            }
            records.push_back(std::move(r));
        }
        std::uint64_t count = 0;
        if (!records.empty()) count = records.front().components.front().count;
        else count = h5::read_u64(sg, "partikel:count").value_or(0);
        for (const auto& r : records)
            for (const auto& c : r.components)
                if (c.count != count)
                    fail(where + ": record component " + c.path + " has " + std::to_string(c.count) + " particles, not " +
                         std::to_string(count));
        // A corrupt shape must not make us allocate a terabyte (as in the stream reader).
        std::uint64_t row_bytes = 0;
        for (const auto& r : records)
            for (const auto& c : r.components) row_bytes += scalar_size(c.type);
        if (row_bytes > 0 && count > stream_frame_byte_limit() / row_bytes)
            fail(where + ": " + std::to_string(count) + " particles would need more than this machine's memory");
        Group& group = frame.add_group(species, count);
        const Record* offset = nullptr;
        const bool has_position =
            std::any_of(records.begin(), records.end(), [](const Record& x) { return x.name == "position"; });
        for (const auto& r : records) {
            if (r.name == "positionOffset" && has_position) {
                offset = &r;
                continue;
            }
            ScalarType type = r.components.front().type;
            bool mixed_units = false;
            for (const auto& c : r.components) {
                if (c.type != type) type = ScalarType::f64;  // mixed component types: widen
                if (!std::isfinite(c.unit_si) || c.unit_si == 0.0)
                    fail(where + ": record component " + c.path + " has unitSI " + std::to_string(c.unit_si) +
                         " (not a finite nonzero factor)");
                mixed_units = mixed_units || c.unit_si != r.components.front().unit_si;
            }
            // openPMD gives each component its own unitSI; ours is one per column. Components that
            // differ (x in mm, y in m) are read as f64 and converted to SI one by one.
            if (mixed_units) type = ScalarType::f64;
            const auto unit = record_unit(sg, r.name, mixed_units ? 1.0 : r.components.front().unit_si, where);
            Column& column = group.add_column(Column(r.name, type, static_cast<std::uint32_t>(r.components.size()), count,
                                                     unit, memory_for(memory_, species, r.name)));
            for (std::uint32_t k = 0; k < r.components.size(); ++k) {
                fill_component(sg, r.components[k], column, k, where);
                if (!mixed_units) continue;
                const auto values = column.values<double>();
                for (std::size_t i = k; i < values.size(); i += r.components.size()) values[i] *= r.components[k].unit_si;
            }
        }
        if (offset) apply_position_offset(sg, *offset, group.at("position"), where);
    }

    // position + positionOffset, as openPMD defines the particle position; ours is zero.
    void apply_position_offset(hid_t sg, const Record& offset, Column& position, const std::string& where) {
        if (offset.components.size() != position.components())
            fail(where + ": positionOffset has " + std::to_string(offset.components.size()) + " components, position " +
                 std::to_string(position.components()));
        Column values("positionOffset", ScalarType::f64, position.components(), position.count());
        for (std::uint32_t k = 0; k < position.components(); ++k) fill_component(sg, offset.components[k], values, k, where);
        const auto v = values.values<double>();
        if (std::all_of(v.begin(), v.end(), [](double x) { return x == 0.0; })) return;
        const std::size_t w = scalar_size(position.type());
        auto* base = position.raw().data();
        for (std::size_t i = 0; i < v.size(); ++i) {
            const std::uint32_t k = static_cast<std::uint32_t>(i % position.components());
            const double sum = position.as_double(i / position.components(), k) +
                               v[i] * offset.components[k].unit_si / position.unit().si_factor;
            store_double(position.type(), base + i * w, sum);
        }
    }

    static void store_double(ScalarType type, std::byte* dst, double value) {
        auto put = [&](auto v) { std::memcpy(dst, &v, sizeof v); };
        switch (type) {
        case ScalarType::u8: put(static_cast<std::uint8_t>(value)); break;
        case ScalarType::i32: put(static_cast<std::int32_t>(value)); break;
        case ScalarType::u32: put(static_cast<std::uint32_t>(value)); break;
        case ScalarType::i64: put(static_cast<std::int64_t>(value)); break;
        case ScalarType::u64: put(static_cast<std::uint64_t>(value)); break;
        case ScalarType::f32: put(static_cast<float>(value)); break;
        case ScalarType::f64: put(value); break;
        }
    }

    std::string name_;
    std::shared_ptr<ColumnMemory> memory_;  // where wanted columns are read (reader.hpp)
    std::string particles_path_ = "particles/";
    std::map<std::string, Id> files_;
    std::vector<Iteration> iterations_;
    std::size_t next_ = 0;
    std::vector<std::byte, DefaultInitAllocator<std::byte>> component_buffer_;
};

}  // namespace

std::unique_ptr<FrameReader> make_hdf5_reader(const std::string& path, std::shared_ptr<ColumnMemory> memory) {
    return std::make_unique<Hdf5Reader>(path, std::move(memory));
}

}  // namespace partikel::fmt
