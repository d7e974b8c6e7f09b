// Factories of the individual encodings, behind open_reader/open_writer (reader.hpp).
#pragma once

#include <memory>
#include <string>

#include "base/io.hpp"
#include "formats/reader.hpp"

namespace partikel::fmt {

// HDF5 / openPMD (formats/openpmd/). `path` may hold %T (fileBased iteration encoding).
std::unique_ptr<FrameReader> make_hdf5_reader(const std::string& path, std::shared_ptr<ColumnMemory> memory = {});
std::unique_ptr<FrameWriter> make_hdf5_writer(const std::string& path, const WriterOptions& options);

// Text and export encodings (formats/text/). Writers take a name that may hold %T.
std::unique_ptr<FrameReader> make_csv_reader(std::unique_ptr<InputStream> in, std::shared_ptr<ColumnMemory> memory = {});
std::unique_ptr<FrameWriter> make_csv_writer(const std::string& path, const WriterOptions& options);
std::unique_ptr<FrameWriter> make_vtk_writer(const std::string& path);
std::unique_ptr<FrameWriter> make_ply_writer(const std::string& path);

// `pattern` with its first %T replaced by `step`, zero-padded to six digits so that names sort
// in step order (one file per frame); `pattern` itself when it has no %T.
std::string expand_step_pattern(const std::string& pattern, std::int64_t step);

// The HDF5 writer's file pattern: a fileBased series "name_%T.h5" when
// options.hdf5_file_based or %T says so, else `path`.
std::string hdf5_file_pattern(const std::string& path, const WriterOptions& options);
// A side file that describes the files of `pattern` to a reader, named by the pattern without
// its extension and %T: ("run_%T.h5", ".xmf") -> "run.xmf"; ("out.h5", ".pmd") -> "out.pmd";
// ("frame_%T.vtk", ".vtk.series") -> "frame.vtk.series".
std::string side_file_path(const std::string& pattern, const std::string& extension);

}  // namespace partikel::fmt
