#include "formats/openpmd/h5_util.hpp"

#include <zstd.h>

#include <cstring>
#include <mutex>

namespace partikel::fmt::h5 {

namespace {

herr_t collect_reason(unsigned n, const H5E_error2_t* error, void* data) {
    auto& reasons = *static_cast<std::vector<std::string>*>(data);
    (void)n;
    if (error->desc) reasons.emplace_back(error->desc);
    return 0;
}

}  // namespace

std::string error_reason() {
    std::vector<std::string> reasons;  // innermost first
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_reason, &reasons);
    // A failed system call: "..., errno = 28, error message = 'No space left on device', ...".
    for (const auto& r : reasons) {
        const auto at = r.find("error message = '");
        if (at == std::string::npos) continue;
        const auto begin = at + 17, end = r.find('\'', begin);
        if (end != std::string::npos) return r.substr(begin, end - begin);
    }
    return reasons.empty() ? std::string() : reasons.front();
}

namespace {
std::string with_reason(const std::string& what) {
    const std::string reason = error_reason();
    return reason.empty() ? what : what + ": " + reason;
}
}  // namespace

Id checked(hid_t id, const std::string& what) {
    if (id < 0) throw IoError(with_reason(what));
    return Id(id);
}

void check(herr_t status, const std::string& what) {
    if (status < 0) throw IoError(with_reason(what));
}

void close_checked(Id& id, const std::string& what) {
    if (!id.valid()) return;
    const hid_t raw = id.get();
    id.release();
    check(H5Idec_ref(raw), what);
}

void silence_errors() {
    static std::once_flag once;
    std::call_once(once, [] {
        H5dont_atexit();
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    });
}

Id file_access_for_writing() {
    silence_errors();
    Id fapl = checked(H5Pcreate(H5P_FILE_ACCESS), "file access properties");
    check(H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110), "file format version");
    return fapl;
}

namespace {

// The zstd filter as HDF5's registered filter 32015 (the HDF Group's H5Zzstd plugin): a chunk
// is one zstd frame; cd_values[0] is the compression level.
size_t zstd_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes,
                   size_t* buf_size, void** buf) {
    if (flags & H5Z_FLAG_REVERSE) {
        const unsigned long long size = ZSTD_getFrameContentSize(*buf, nbytes);
        if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > (1ull << 32)) return 0;
        void* out = H5allocate_memory(size ? size : 1, false);
        if (!out) return 0;
        const size_t n = ZSTD_decompress(out, size, *buf, nbytes);
        if (ZSTD_isError(n) || n != size) {
            H5free_memory(out);
            return 0;
        }
        H5free_memory(*buf);
        *buf = out;
        *buf_size = size ? size : 1;
        return n;
    }
    const int level = cd_nelmts > 0 ? static_cast<int>(cd_values[0]) : 3;
    const size_t bound = ZSTD_compressBound(nbytes);
    void* out = H5allocate_memory(bound, false);
    if (!out) return 0;
    const size_t n = ZSTD_compress(out, bound, *buf, nbytes, level);
    if (ZSTD_isError(n)) {
        H5free_memory(out);
        return 0;
    }
    H5free_memory(*buf);
    *buf = out;
    *buf_size = bound;
    return n;
}

const H5Z_class2_t zstd_class = {
    H5Z_CLASS_T_VERS, zstd_filter_id, 1, 1, "Zstandard (partikel built-in)", nullptr, nullptr, zstd_filter,
};

}  // namespace

bool ensure_zstd_filter() {
    static std::once_flag once;
    static bool available = false;
    std::call_once(once, [] {
        if (H5Zfilter_avail(zstd_filter_id) > 0 || H5Zregister(&zstd_class) >= 0) available = true;
    });
    return available;
}

hid_t file_type_of(ScalarType type) {
    switch (type) {
    case ScalarType::u8: return H5T_STD_U8LE;
    case ScalarType::i32: return H5T_STD_I32LE;
    case ScalarType::u32: return H5T_STD_U32LE;
    case ScalarType::i64: return H5T_STD_I64LE;
    case ScalarType::u64: return H5T_STD_U64LE;
    case ScalarType::f32: return H5T_IEEE_F32LE;
    case ScalarType::f64: return H5T_IEEE_F64LE;
    }
    return -1;
}

hid_t native_type_of(ScalarType type) {
    switch (type) {
    case ScalarType::u8: return H5T_NATIVE_UINT8;
    case ScalarType::i32: return H5T_NATIVE_INT32;
    case ScalarType::u32: return H5T_NATIVE_UINT32;
    case ScalarType::i64: return H5T_NATIVE_INT64;
    case ScalarType::u64: return H5T_NATIVE_UINT64;
    case ScalarType::f32: return H5T_NATIVE_FLOAT;
    case ScalarType::f64: return H5T_NATIVE_DOUBLE;
    }
    return -1;
}

std::optional<ScalarType> scalar_type_from_h5(hid_t type) {
    const H5T_class_t cls = H5Tget_class(type);
    const size_t size = H5Tget_size(type);
    if (cls == H5T_FLOAT) {
        if (size <= 4) return ScalarType::f32;
        if (size <= 8) return ScalarType::f64;
        return std::nullopt;
    }
    if (cls == H5T_INTEGER) {
        const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
        if (size == 1 && !is_signed) return ScalarType::u8;
        if (size <= 4) return is_signed ? ScalarType::i32 : ScalarType::u32;
        if (size <= 8) return is_signed ? ScalarType::i64 : ScalarType::u64;
    }
    return std::nullopt;
}

namespace {

void write_attr(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, hid_t space, const void* data) {
    Id attr = checked(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT),
                      std::string("cannot create attribute ") + name);
    if (H5Sget_simple_extent_npoints(space) > 0)  // an empty array has nothing to write
        check(H5Awrite(attr, mem_type, data), std::string("cannot write attribute ") + name);
}

template <class T> void write_scalar(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, T value) {
    Id space = checked(H5Screate(H5S_SCALAR), "dataspace");
    write_attr(obj, name, file_type, mem_type, space, &value);
}

}  // namespace

void write_string(hid_t obj, const char* name, const std::string& value) {
    Id type = checked(H5Tcopy(H5T_C_S1), "string type");
    check(H5Tset_size(type, value.size() + 1), "string size");
    check(H5Tset_strpad(type, H5T_STR_NULLTERM), "string padding");
    check(H5Tset_cset(type, H5T_CSET_UTF8), "string character set");
    Id space = checked(H5Screate(H5S_SCALAR), "dataspace");
    write_attr(obj, name, type, type, space, value.c_str());
}

void write_f64(hid_t obj, const char* name, double value) { write_scalar(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, value); }
void write_f32(hid_t obj, const char* name, float value) { write_scalar(obj, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, value); }
void write_u32(hid_t obj, const char* name, std::uint32_t value) { write_scalar(obj, name, H5T_STD_U32LE, H5T_NATIVE_UINT32, value); }
void write_i64(hid_t obj, const char* name, std::int64_t value) { write_scalar(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, value); }
void write_u64(hid_t obj, const char* name, std::uint64_t value) { write_scalar(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, value); }

void write_f64_array(hid_t obj, const char* name, const std::vector<double>& values) {
    const hsize_t n = values.size();
    Id space = checked(H5Screate_simple(1, &n, nullptr), "dataspace");
    write_attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space, values.data());
}

void write_u64_array(hid_t obj, const char* name, const std::vector<std::uint64_t>& values) {
    const hsize_t n = values.size();
    Id space = checked(H5Screate_simple(1, &n, nullptr), "dataspace");
    write_attr(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, space, values.data());
}

void write_zero_of_type(hid_t obj, const char* name, ScalarType type) {
    const std::uint64_t zero[1] = {0};  // all-zero bytes are 0 in every scalar type
    Id space = checked(H5Screate(H5S_SCALAR), "dataspace");
    write_attr(obj, name, file_type_of(type), native_type_of(type), space, zero);
}

bool has_attribute(hid_t obj, const char* name) {
    const htri_t exists = H5Aexists(obj, name);
    if (exists < 0) throw FormatError(with_reason(std::string("cannot look up attribute ") + name));
    return exists > 0;
}

namespace {

Id open_attr(hid_t obj, const char* name) {
    if (!has_attribute(obj, name)) return {};
    Id attr(H5Aopen(obj, name, H5P_DEFAULT));
    if (!attr.valid()) throw FormatError(with_reason(std::string("cannot open attribute ") + name));
    return attr;
}

hssize_t element_count(hid_t attr) {
    Id space(H5Aget_space(attr));
    if (!space.valid()) return -1;
    return H5Sget_simple_extent_npoints(space);
}

}  // namespace

std::optional<std::string> read_string(hid_t obj, const char* name) {
    Id attr = open_attr(obj, name);
    if (!attr.valid()) return std::nullopt;
    Id type(H5Aget_type(attr));
    if (H5Tget_class(type) != H5T_STRING || element_count(attr) != 1)
        throw FormatError(std::string("attribute ") + name + " is not a text value");
    if (H5Tis_variable_str(type) > 0) {
        Id mem = checked(H5Tcopy(H5T_C_S1), "string type");
        H5Tset_size(mem, H5T_VARIABLE);
        H5Tset_cset(mem, H5Tget_cset(type));
        char* text = nullptr;
        if (H5Aread(attr, mem, &text) < 0) throw FormatError(std::string("cannot read attribute ") + name);
        std::string s = text ? text : "";
        Id space(H5Aget_space(attr));
        H5Dvlen_reclaim(mem, space, H5P_DEFAULT, &text);
        return s;
    }
    const size_t size = H5Tget_size(type);
    std::vector<char> buf(size + 1, '\0');
    if (H5Aread(attr, type, buf.data()) < 0) throw FormatError(std::string("cannot read attribute ") + name);
    return std::string(buf.data(), strnlen(buf.data(), size));
}

std::optional<double> read_f64(hid_t obj, const char* name) {
    Id attr = open_attr(obj, name);
    if (!attr.valid()) return std::nullopt;
    Id type(H5Aget_type(attr));
    const auto cls = H5Tget_class(type);
    if ((cls != H5T_FLOAT && cls != H5T_INTEGER) || element_count(attr) != 1)
        throw FormatError(std::string("attribute ") + name + " is not a single number");
    double v = 0;
    if (H5Aread(attr, H5T_NATIVE_DOUBLE, &v) < 0) throw FormatError(std::string("cannot read attribute ") + name);
    return v;
}

std::optional<std::uint64_t> read_u64(hid_t obj, const char* name) {
    Id attr = open_attr(obj, name);
    if (!attr.valid()) return std::nullopt;
    Id type(H5Aget_type(attr));
    if (H5Tget_class(type) != H5T_INTEGER || element_count(attr) < 1)
        throw FormatError(std::string("attribute ") + name + " is not an integer");
    std::vector<std::uint64_t> v(static_cast<std::size_t>(element_count(attr)));
    if (H5Aread(attr, H5T_NATIVE_UINT64, v.data()) < 0) throw FormatError(std::string("cannot read attribute ") + name);
    return v[0];
}

std::optional<std::vector<double>> read_f64_array(hid_t obj, const char* name) {
    Id attr = open_attr(obj, name);
    if (!attr.valid()) return std::nullopt;
    Id type(H5Aget_type(attr));
    const auto cls = H5Tget_class(type);
    const hssize_t n = element_count(attr);
    if ((cls != H5T_FLOAT && cls != H5T_INTEGER) || n < 0 || n > (1 << 20))
        throw FormatError(std::string("attribute ") + name + " is not an array of numbers");
    std::vector<double> v(static_cast<std::size_t>(n));
    if (n > 0 && H5Aread(attr, H5T_NATIVE_DOUBLE, v.data()) < 0)
        throw FormatError(std::string("cannot read attribute ") + name);
    return v;
}

namespace {

#if H5_VERSION_GE(1, 12, 0)
using LinkInfo = H5L_info2_t;
#else
using LinkInfo = H5L_info_t;
#endif

herr_t collect_name(hid_t, const char* name, const LinkInfo*, void* data) {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
}

}  // namespace

std::vector<std::string> link_names(hid_t group) {
    std::vector<std::string> names;
    unsigned order_flags = 0;
    Id gcpl(H5Gget_create_plist(group));
    if (gcpl.valid()) H5Pget_link_creation_order(gcpl, &order_flags);
    const H5_index_t index = (order_flags & H5P_CRT_ORDER_INDEXED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
    hsize_t idx = 0;
    if (H5Literate(group, index, H5_ITER_INC, &idx, collect_name, &names) < 0)
        throw FormatError(with_reason("cannot list an HDF5 group"));
    return names;
}

bool is_group(hid_t parent, const std::string& name) {
    // H5Lexists first: H5Oget_info on a missing name is an error, and a dangling soft or
    // external link is no group. A hard link whose object cannot be read is damage, not absence.
    const htri_t exists = H5Lexists(parent, name.c_str(), H5P_DEFAULT);
    if (exists < 0) throw FormatError(with_reason("cannot look up " + name));
    if (exists == 0) return false;
#if H5_VERSION_GE(1, 12, 0)
    H5L_info2_t link;
    if (H5Lget_info2(parent, name.c_str(), &link, H5P_DEFAULT) < 0) throw FormatError(with_reason("cannot read link " + name));
    H5O_info2_t info;
    if (H5Oget_info_by_name3(parent, name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
#else
    H5L_info_t link;
    if (H5Lget_info(parent, name.c_str(), &link, H5P_DEFAULT) < 0) throw FormatError(with_reason("cannot read link " + name));
    H5O_info_t info;
    if (H5Oget_info_by_name2(parent, name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
#endif
        if (link.type == H5L_TYPE_HARD) throw FormatError(with_reason("cannot read object " + name));
        return false;
    }
    return info.type == H5O_TYPE_GROUP;
}

}  // namespace partikel::fmt::h5
