// openPMD 1.1.0 writer on HDF5 (SPEC.md §3), groupBased or fileBased, with an XDMF side file.
#include <cmath>
#include <limits>
#include <set>

#include "base/io.hpp"
#include "base/system.hpp"
#include "formats/encodings.hpp"
#include "formats/openpmd/h5_util.hpp"
#include "formats/openpmd/openpmd.hpp"
#include "formats/patches.hpp"
#include "partikel_config.hpp"

namespace partikel::fmt {
namespace {

using h5::checked;
using h5::Id;

constexpr hsize_t max_chunk_values = hsize_t(1) << 20;
constexpr const char* reserved_iteration_attributes[] = {"time", "dt", "timeUnitSI"};

std::string openpmd_date() { return output_time_utc("%Y-%m-%d %H:%M:%S +0000"); }

std::string base_name(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Links and attributes stay in the object header ("compact" storage) however many there are,
// never in "dense" storage (a fractal heap with a v2 B-tree index): object headers are
// checksummed and parsed defensively, while libhdf5 1.10's dense link iteration frees
// uninitialised pointers when a damaged heap fails half-way (found by the fuzz test under
// AddressSanitizer). `plist` is a group or file creation property list.
void keep_compact(hid_t plist) {
    constexpr unsigned most = 65535;  // HDF5's largest allowed value
    h5::check(H5Pset_link_phase_change(plist, most, most), "compact link storage");
    h5::check(H5Pset_attr_phase_change(plist, most, most), "compact attribute storage");
}

Id group_with_order(hid_t parent, const std::string& name) {
    Id gcpl = checked(H5Pcreate(H5P_GROUP_CREATE), "group properties");
    keep_compact(gcpl);
    h5::check(H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), "link order");
    return checked(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT), "cannot create group " + name);
}

class Hdf5Writer final : public FrameWriter {
public:
    Hdf5Writer(const std::string& path, const WriterOptions& options) : options_(options) {
        h5::silence_errors();
        pattern_ = hdf5_file_pattern(path, options);
        file_based_ = pattern_.find("%T") != std::string::npos;
        if (path == "-") {
            // Standard output: one file, staged and copied (TempFile), no side file beside it.
            if (options.hdf5_file_based) throw UsageError("standard output holds one file, not one per iteration (fileBased)");
            options_.write_xdmf = false;
            side_files_ = false;
        }
        if (options_.hdf5_compression == WriterOptions::Hdf5Compression::zstd && !h5::ensure_zstd_filter())
            throw UsageError("the zstd HDF5 filter (id 32015) cannot be registered");
        if (!file_based_) {
            temp_ = std::make_unique<TempFile>(pattern_);
            file_ = create_file(temp_->path(), pattern_);
        }
    }

    void write(const Frame& frame) override {
        if (finished_) throw UsageError(pattern_ + ": write after finish");
        std::string file_name = pattern_;
        if (file_based_) {
            // Each file of a series is complete on its own and renamed into place at once, so
            // a long series holds no temporaries (as CSV/VTK/PLY with %T).
            file_name = expand_step_pattern(pattern_, frame.step);
            if (!written_files_.insert(file_name).second)
                throw UsageError(file_name + ": two frames with step " + std::to_string(frame.step) +
                                 " (fileBased output names files by step)");
            TempFile temp(file_name);
            {
                Id file = create_file(temp.path(), file_name);
                write_iteration(file, frame, file_name);
                if (options_.write_xdmf) write_vertices(file, xdmf_.size() - 1, xdmf_.size());
                h5::check(H5Fflush(file, H5F_SCOPE_GLOBAL), file_name + ": write failed");
                h5::close_checked(file, file_name + ": write failed");
            }
            temp.commit();
        } else {
            write_iteration(file_, frame, file_name);
        }
    }

    void finish() override {
        if (finished_) return;
        finished_ = true;
        if (file_.valid()) {
            if (options_.write_xdmf) write_vertices(file_, 0, xdmf_.size());
            h5::close_checked(file_, pattern_ + ": write failed");
        }
        if (options_.write_xdmf) write_side_file(".xmf", xdmf_document(xdmf_));
        // ParaView's openPMD reader opens the series through this file: its first line is the
        // series' file name (pattern), relative to the file's directory.
        if (side_files_) write_side_file(".pmd", base_name(pattern_) + "\n");
        if (temp_) temp_->commit();
    }

    const std::string& name() const override { return pattern_; }

private:
    void write_side_file(const std::string& extension, const std::string& text) const {
        auto out = OutputStream::open(side_file_path(pattern_, extension), false, true);
        out->write(text.data(), text.size());
        out->commit();
    }

    // `path` is the temporary, `shown` the name messages give.
    Id create_file(const std::string& path, const std::string& shown) {
        Id fapl = h5::file_access_for_writing();
        Id fcpl = checked(H5Pcreate(H5P_FILE_CREATE), "file creation properties");
        keep_compact(fcpl);  // the root group's attributes
        Id file = h5::checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, fapl), shown + ": cannot create HDF5 file");
        h5::write_string(file, "openPMD", "1.1.0");
        h5::write_u32(file, "openPMDextension", 0);
        h5::write_string(file, "basePath", "/data/%T/");
        h5::write_string(file, "particlesPath", "particles/");
        h5::write_string(file, "iterationEncoding", file_based_ ? "fileBased" : "groupBased");
        h5::write_string(file, "iterationFormat", file_based_ ? base_name(pattern_) : "/data/%T/");
        const char* user = std::getenv("USER");
        h5::write_string(file, "author", user && *user ? user : "unknown");
        h5::write_string(file, "software", "Partikel");
        h5::write_string(file, "softwareVersion", PARTIKEL_VERSION);
        h5::write_string(file, "date", openpmd_date());
        Id data = group_with_order(file, "data");
        return file;
    }

    Id dataset_properties(std::uint64_t count) {
        Id dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), "dataset properties");
        if (count == 0) return dcpl;  // empty datasets stay contiguous: chunks need a nonzero size
        const hsize_t chunk = std::min<hsize_t>(count, max_chunk_values);
        h5::check(H5Pset_chunk(dcpl, 1, &chunk), "chunk size");
        switch (options_.hdf5_compression) {
        case WriterOptions::Hdf5Compression::none: break;
        case WriterOptions::Hdf5Compression::gzip:
            h5::check(H5Pset_shuffle(dcpl), "shuffle filter");
            h5::check(H5Pset_deflate(dcpl, static_cast<unsigned>(options_.hdf5_level)), "deflate filter");
            break;
        case WriterOptions::Hdf5Compression::zstd: {
            h5::check(H5Pset_shuffle(dcpl), "shuffle filter");
            const unsigned level = static_cast<unsigned>(options_.hdf5_level);
            h5::check(H5Pset_filter(dcpl, h5::zstd_filter_id, H5Z_FLAG_MANDATORY, 1, &level), "zstd filter");
            break;
        }
        }
        // Last in the pipeline: a checksum of each stored chunk, so that damaged particle data
        // is an error on reading rather than wrong numbers (SPEC.md §3.4).
        h5::check(H5Pset_fletcher32(dcpl), "Fletcher-32 filter");
        return dcpl;
    }

    // One component (or the only one) of a column as a 1-D dataset; HDF5 gathers the strided
    // component from the interleaved column, so no copy is made here.
    void write_component(hid_t parent, const std::string& name, const Column& column, std::uint32_t component,
                         const std::string& where) {
        const hsize_t n = column.count();
        Id file_space = checked(H5Screate_simple(1, &n, nullptr), "dataspace");
        Id dcpl = dataset_properties(n);
        Id ds = h5::checked(H5Dcreate2(parent, name.c_str(), h5::file_type_of(column.type()), file_space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                            where + ": cannot create dataset " + name);
        if (n > 0) {
            // HDF5 gathers strided memory selections slowly; de-interleave one component at a
            // time into a buffer instead (1/C of the column).
            const std::byte* data = column.raw().data();
            if (column.components() > 1) {
                const std::size_t w = scalar_size(column.type()), row = w * column.components();
                component_buffer_.resize(static_cast<std::size_t>(n) * w);
                for (std::size_t i = 0; i < n; ++i)
                    std::memcpy(component_buffer_.data() + i * w, data + i * row + component * w, w);
                data = component_buffer_.data();
            }
            h5::check(H5Dwrite(ds, h5::native_type_of(column.type()), H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
                      where + ": cannot write dataset " + name);
        }
        h5::write_f64(ds, "unitSI", column.unit().si_factor);
        if (column.components() == 1) record_attributes(ds, column.unit());
        h5::close_checked(ds, where + ": cannot write dataset " + name);
    }

    static void record_attributes(hid_t record, const Unit& unit) {
        h5::write_f64_array(record, "unitDimension", {unit.dimension.begin(), unit.dimension.end()});
        h5::write_f32(record, "timeOffset", 0.0f);
    }

    void write_iteration(hid_t file, const Frame& frame, const std::string& file_name) {
        const std::string step = std::to_string(frame.step);
        Id data = checked(H5Gopen2(file, "data", H5P_DEFAULT), "open /data");
        if (H5Lexists(data, step.c_str(), H5P_DEFAULT) > 0)
            throw UsageError(pattern_ + ": two frames with step " + step +
                             " (groupBased openPMD names iterations by step; use fileBased output or renumber)");
        Id it = group_with_order(data, step);
        h5::write_f64(it, "time", frame.time);
        h5::write_f64(it, "dt", frame.dt);
        h5::write_f64(it, "timeUnitSI", frame.time_unit_si);
        for (const auto& [key, value] : frame.attributes) {
            for (const char* reserved : reserved_iteration_attributes)
                if (key == reserved)
                    throw UsageError("frame attribute \"" + key + "\" collides with the openPMD iteration attribute");
            std::visit([&, &key = key](const auto& v) {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, std::int64_t>) h5::write_i64(it, key.c_str(), v);
                else if constexpr (std::is_same_v<T, double>) h5::write_f64(it, key.c_str(), v);
                else if constexpr (std::is_same_v<T, std::string>) h5::write_string(it, key.c_str(), v);
                else h5::write_f64_array(it, key.c_str(), v);
            }, value);
        }
        Id particles = group_with_order(it, "particles");
        Id joined_step;  // /xdmf/<step>, made on the first record to join
        XdmfFrame xf{base_name(file_name), frame.step, frame.time * frame.time_unit_si, {}};
        for (const auto& group : frame.groups()) {
            const std::string where = file_name + ": step " + step + ", group \"" + group.name() + "\"";
            Id species = group_with_order(particles, group.name());
            if (group.columns().empty()) h5::write_u64(species, "partikel:count", group.count());
            XdmfFrame::Species xs{group.name(), group.count(), {}};
            for (const auto& column : group.columns()) {
                if (column.name() == "positionOffset" && group.find("position"))
                    throw UsageError(where + ": a column named positionOffset clashes with openPMD's record of that name");
                if (column.name() == "particlePatches")
                    throw UsageError(where + ": a column named particlePatches clashes with openPMD's group of that name");
                const auto names = component_names(column.components());
                if (names.empty()) {
                    write_component(species, column.name(), column, 0, where);
                } else {
                    Id record = group_with_order(species, column.name());
                    record_attributes(record, column.unit());
                    for (std::uint32_t k = 0; k < column.components(); ++k)
                        write_component(record, names[k], column, k, where);
                }
                xs.records.push_back({column.name(), column.type(), column.components()});
                if (column.name() == "position") {
                    write_position_offset(species, column);
                    write_particle_patches(species, column, patch_rows(frame, group));
                }
            }
            if (options_.write_xdmf) write_joined(file, joined_step, frame.step, group, where);
            xf.species.push_back(std::move(xs));
        }
        xdmf_.push_back(std::move(xf));
    }

    // The vertex indices the XDMF grids of xdmf_[first, end) (the frames in `file`) take their
    // cells from (kXdmfVerticesPath): as many as their largest group, written a chunk at a time.
    void write_vertices(hid_t file, std::size_t first, std::size_t end) {
        std::uint64_t n = 0;
        for (std::size_t f = first; f < end; ++f)
            for (const auto& s : xdmf_[f].species) n = std::max(n, s.count);
        if (n == 0) return;
        for (std::size_t f = first; f < end; ++f) xdmf_[f].vertices = n;
        Id root = H5Lexists(file, "xdmf", H5P_DEFAULT) > 0 ? checked(H5Gopen2(file, "xdmf", H5P_DEFAULT), "open /xdmf")
                                                           : group_with_order(file, "xdmf");
        const ScalarType type = xdmf_vertex_type(n);
        const hsize_t total = n;
        Id space = checked(H5Screate_simple(1, &total, nullptr), "dataspace");
        Id dcpl = dataset_properties(n);
        Id ds = checked(H5Dcreate2(root, "vertices", h5::file_type_of(type), space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                        pattern_ + ": cannot create the XDMF vertex indices");
        std::vector<std::uint64_t> piece;
        for (hsize_t at = 0; at < total; at += max_chunk_values) {
            const hsize_t count = std::min(max_chunk_values, total - at);
            piece.resize(count);
            for (hsize_t i = 0; i < count; ++i) piece[i] = at + i;
            Id memory = checked(H5Screate_simple(1, &count, nullptr), "dataspace");
            h5::check(H5Sselect_hyperslab(space, H5S_SELECT_SET, &at, nullptr, &count, nullptr), "hyperslab");
            h5::check(H5Dwrite(ds, H5T_NATIVE_UINT64, memory, space, H5P_DEFAULT, piece.data()),
                      pattern_ + ": cannot write the XDMF vertex indices");
        }
        h5::close_checked(ds, pattern_ + ": cannot write the XDMF vertex indices");
    }

    // The virtual datasets the XDMF side file names (xdmf_joined_path): each multi-component
    // record as one N x C dataset whose columns map to the record's component datasets, so the
    // readers see the interleaved record without a second copy of the particle data.
    static void write_joined(hid_t file, Id& joined_step, std::int64_t step, const Group& group, const std::string& where) {
        Id species;
        for (const auto& column : group.columns()) {
            const auto order = xdmf_component_order(column.components());
            if (order.empty()) continue;
            if (!species.valid()) {
                if (!joined_step.valid()) {
                    Id root = H5Lexists(file, "xdmf", H5P_DEFAULT) > 0 ? checked(H5Gopen2(file, "xdmf", H5P_DEFAULT), "open /xdmf")
                                                                     : group_with_order(file, "xdmf");
                    joined_step = group_with_order(root, std::to_string(step));
                }
                species = group_with_order(joined_step, group.name());
            }
            const hsize_t n = group.count(), dims[2] = {n, order.size()};
            Id space = checked(H5Screate_simple(2, dims, nullptr), "dataspace");
            Id source_space = checked(H5Screate_simple(1, &n, nullptr), "dataspace");
            Id dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), "dataset properties");
            const std::string record = "/data/" + std::to_string(step) + "/particles/" + group.name() + "/" + column.name() + "/";
            // An empty group's dataset stays an ordinary empty one: a mapping needs a selection.
            for (std::size_t k = 0; k < order.size() && n > 0; ++k) {
                const hsize_t start[2] = {0, k}, count[2] = {n, 1};
                h5::check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr), "hyperslab");
                // "." is the file that holds the virtual dataset, whatever its name becomes.
                h5::check(H5Pset_virtual(dcpl, space, ".", (record + order[k]).c_str(), source_space), "virtual mapping");
            }
            h5::check(H5Sselect_all(space), "selection");
            Id ds = checked(H5Dcreate2(species, column.name().c_str(), h5::file_type_of(column.type()), space, H5P_DEFAULT, dcpl,
                                       H5P_DEFAULT),
                            where + ": cannot create the XDMF dataset of " + column.name());
            h5::close_checked(ds, where + ": cannot create the XDMF dataset of " + column.name());
        }
    }

    // openPMD requires positionOffset beside position; ours is constant zero.
    static void write_position_offset(hid_t species, const Column& position) {
        Id record = group_with_order(species, "positionOffset");
        record_attributes(record, position.unit());
        for (const auto& c : component_names(position.components())) {
            Id comp = group_with_order(record, c);
            h5::write_zero_of_type(comp, "value", position.type());
            h5::write_u64_array(comp, "shape", {position.count()});
            h5::write_f64(comp, "unitSI", position.unit().si_factor);
        }
    }

    // A contiguous 1-D dataset of `n` values, an openPMD record component; returns it open.
    static Id write_values(hid_t parent, const char* name, hid_t file_type, hid_t memory_type, const void* values,
                           hsize_t n, double unit_si) {
        Id space = checked(H5Screate_simple(1, &n, nullptr), "dataspace");
        Id ds = checked(H5Dcreate2(parent, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                        std::string("cannot create dataset ") + name);
        h5::check(H5Dwrite(ds, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), std::string("cannot write dataset ") + name);
        h5::write_f64(ds, "unitSI", unit_si);
        return ds;
    }

    // openPMD's particlePatches: one patch per range of `rows` (patch_rows: the frame's
    // patches.<group>, or one of the whole group), each with its particles' box (offset
    // inclusive, offset + extent exclusive; NaN positions are in no box; an empty patch is
    // offset 0, extent 0).
    static void write_particle_patches(hid_t species, const Column& position, const std::vector<std::uint64_t>& rows) {
        Id patches = group_with_order(species, "particlePatches");
        const hsize_t n = rows.size();
        std::vector<std::uint64_t> first(rows.size());
        for (std::size_t p = 1; p < rows.size(); ++p) first[p] = first[p - 1] + rows[p - 1];
        const std::vector<std::uint64_t>& starts = first;
        for (const auto& [name, values] : {std::pair{"numParticles", &rows}, std::pair{"numParticlesOffset", &starts}}) {
            Id ds = write_values(patches, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, values->data(), n, 1.0);
            record_attributes(ds, Unit{});
            h5::close_checked(ds, std::string("cannot write dataset ") + name);
        }
        Id offset = group_with_order(patches, "offset"), extent = group_with_order(patches, "extent");
        record_attributes(offset, position.unit());
        record_attributes(extent, position.unit());
        const auto names = component_names(position.components());
        std::vector<double> low(rows.size()), size(rows.size());
        for (std::uint32_t k = 0; k < position.components(); ++k) {
            for (std::size_t p = 0; p < rows.size(); ++p) {
                double lo = std::numeric_limits<double>::infinity(), hi = -lo;
                for (std::uint64_t i = first[p]; i < first[p] + rows[p]; ++i) {
                    const double v = position.as_double(i, k);
                    lo = std::min(lo, v);  // NaN compares false and is skipped
                    hi = std::max(hi, v);
                }
                double extent_k = 0;
                if (lo > hi) {
                    lo = 0;  // no particles, or only NaN positions
                } else {
                    // The smallest size past the largest position; the subtraction rounds by at
                    // most an ulp of the size, so a step or two restores lo + size > hi.
                    constexpr double inf = std::numeric_limits<double>::infinity();
                    extent_k = std::nextafter(hi, inf) - lo;
                    while (std::isfinite(extent_k) && lo + extent_k <= hi) extent_k = std::nextafter(extent_k, inf);
                }
                low[p] = lo;
                size[p] = extent_k;
            }
            const double si = position.unit().si_factor;
            Id o = write_values(offset, names[k].c_str(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, low.data(), n, si);
            Id e = write_values(extent, names[k].c_str(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, size.data(), n, si);
            h5::close_checked(o, "cannot write particlePatches/offset");
            h5::close_checked(e, "cannot write particlePatches/extent");
        }
    }

    WriterOptions options_;
    bool file_based_ = false;
    bool side_files_ = true;  // the .pmd series file (and .xmf) beside a file, not standard output
    std::string pattern_;
    Id file_;
    std::vector<std::byte, DefaultInitAllocator<std::byte>> component_buffer_;
    std::unique_ptr<TempFile> temp_;            // groupBased: the one file
    std::set<std::string> written_files_;       // fileBased: names used so far
    std::vector<XdmfFrame> xdmf_;
    bool finished_ = false;
};

}  // namespace

std::string hdf5_file_pattern(const std::string& path, const WriterOptions& options) {
    if (!options.hdf5_file_based || path.find("%T") != std::string::npos || path == "-") return path;
    const auto slash = path.find_last_of('/');
    const auto dot = path.find_last_of('.');
    const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    return has_ext ? path.substr(0, dot) + "_%T" + path.substr(dot) : path + "_%T";
}

std::unique_ptr<FrameWriter> make_hdf5_writer(const std::string& path, const WriterOptions& options) {
    return std::make_unique<Hdf5Writer>(path, options);
}

}  // namespace partikel::fmt
