// Small RAII and attribute helpers over the HDF5 C API, for the openPMD reader and writer.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/frame.hpp"

namespace partikel::fmt::h5 {

// Owns one HDF5 identifier of any kind. A negative id from a failed call becomes an Error
// (FormatError when reading, IoError when writing) with `what`.
class Id {
public:
    Id() = default;
    explicit Id(hid_t id) : id_(id) {}
    Id(const Id&) = delete;
    Id& operator=(const Id&) = delete;
    Id(Id&& o) noexcept : id_(o.id_) { o.id_ = -1; }
    Id& operator=(Id&& o) noexcept {
        if (this != &o) {
            reset();
            id_ = o.id_;
            o.id_ = -1;
        }
        return *this;
    }
    ~Id() { reset(); }
    void reset() {
        if (id_ >= 0) H5Idec_ref(id_);
        id_ = -1;
    }
    hid_t get() const { return id_; }
    // Gives up ownership without closing.
    hid_t release() {
        const hid_t id = id_;
        id_ = -1;
        return id;
    }
    operator hid_t() const { return id_; }
    bool valid() const { return id_ >= 0; }

private:
    hid_t id_ = -1;
};

// Throws IoError("`what`: <HDF5's reason>") when `id` < 0; for calls that must succeed while
// writing. The reason is the failed system call's text when there is one ("No space left on
// device"), else the innermost message of HDF5's error stack.
Id checked(hid_t id, const std::string& what);
void check(herr_t status, const std::string& what);
// Closes `id` (of any kind) and throws IoError like check() when HDF5 cannot finish it (a
// dataset's or file's last writes happen here).
void close_checked(Id& id, const std::string& what);
// The reason of the HDF5 call that failed last (see checked()); "" when HDF5 recorded none.
std::string error_reason();

// Once per process, before any other HDF5 call: turns off HDF5's printing of its error stack
// (errors become our exceptions, see error_reason) and its exit handler (which, after a failed
// write, closes half-closed datasets again and crashes; every object we open is closed by Id).
void silence_errors();

// File access properties for files Partikel writes: the HDF5 1.10 file format (superblock v3,
// object header v2, v2 B-trees, fixed/extensible-array chunk indexes), whose metadata all carry
// Jenkins lookup3 checksums, so that a reader detects damage instead of following garbage.
// Readable by HDF5 >= 1.10.0 (h5py >= 2.7 built on it, ParaView >= 5.6); SPEC.md §3.4.
Id file_access_for_writing();
// Makes the zstd filter (id 32015) available, registering Partikel's own implementation when
// no plugin provides it. Returns false if it cannot be made available.
bool ensure_zstd_filter();
inline constexpr H5Z_filter_t zstd_filter_id = 32015;

hid_t file_type_of(ScalarType type);     // H5T_STD_U8LE, ..., H5T_IEEE_F64LE
hid_t native_type_of(ScalarType type);   // the in-memory type
// Partikel type that holds values of HDF5 type `type` exactly (i8/i16 -> i32, u16 -> u32),
// or nullopt for non-numeric types.
std::optional<ScalarType> scalar_type_from_h5(hid_t type);

// Attribute writers (attribute `name` on object `obj`, replacing none).
void write_string(hid_t obj, const char* name, const std::string& value);
void write_f64(hid_t obj, const char* name, double value);
void write_f32(hid_t obj, const char* name, float value);
void write_u32(hid_t obj, const char* name, std::uint32_t value);
void write_i64(hid_t obj, const char* name, std::int64_t value);
void write_u64(hid_t obj, const char* name, std::uint64_t value);
void write_f64_array(hid_t obj, const char* name, const std::vector<double>& values);
void write_u64_array(hid_t obj, const char* name, const std::vector<std::uint64_t>& values);
// A scalar attribute of the column's own type holding zero (positionOffset's "value").
void write_zero_of_type(hid_t obj, const char* name, ScalarType type);

// Attribute readers: nullopt when the attribute is absent; FormatError when it has the wrong kind.
bool has_attribute(hid_t obj, const char* name);
std::optional<std::string> read_string(hid_t obj, const char* name);
std::optional<double> read_f64(hid_t obj, const char* name);
std::optional<std::uint64_t> read_u64(hid_t obj, const char* name);
std::optional<std::vector<double>> read_f64_array(hid_t obj, const char* name);

// Names of an object's links, in creation order when the group tracks it, else by name.
std::vector<std::string> link_names(hid_t group);
bool is_group(hid_t parent, const std::string& name);

}  // namespace partikel::fmt::h5
