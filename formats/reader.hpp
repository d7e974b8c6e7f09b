// Reading and writing frames in any supported encoding, detected by content (magic bytes)
// for input and by extension (or an explicit name) for output. Stdin carries the stream format
// or CSV, stdout the stream format unless another is named. See formats/SPEC.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/io.hpp"
#include "formats/frame.hpp"

namespace partikel::fmt {

enum class Encoding { stream, hdf5, csv, vtk, ply, xdmf };

std::string_view encoding_name(Encoding encoding);
std::optional<Encoding> parse_encoding(std::string_view name);  // "stream", "h5", "csv", ...

class FrameReader {
public:
    virtual ~FrameReader() = default;
    // The next frame, or nullopt at the clean end of the input. Throws FormatError naming the
    // file and the frame on anything malformed.
    virtual std::optional<Frame> next() = 0;
    // Number of frames when known without reading them all (an index, an HDF5 file).
    virtual std::optional<std::uint64_t> frame_count() const { return std::nullopt; }
    // Jump to frame `index` (0-based) when the input allows it; false otherwise.
    virtual bool seek_frame(std::uint64_t /*index*/) { return false; }
    virtual Encoding encoding() const = 0;
    virtual const std::string& name() const = 0;
};

struct WriterOptions {
    int zstd_level = 3;              // stream: zstd level per column chunk
    bool compress = true;            // stream: false stores blocks uncompressed (codec 0)
    bool filters = true;             // stream: byte shuffle / delta before compression
    int threads = 0;                 // stream: compression threads (0: all cores)
    bool write_index = true;         // stream files: trailing frame index
    bool force = false;              // allow binary output to a terminal
    // HDF5 / openPMD
    enum class Hdf5Compression { none, gzip, zstd } hdf5_compression = Hdf5Compression::gzip;
    int hdf5_level = 4;
    bool hdf5_file_based = false;    // one file per iteration: name_%T.h5
    bool write_xdmf = true;          // side file for ParaView
    // CSV: the frame's step, time and group and non-default units as leading `# key: value`
    // lines, and `:<type>` on header fields, so that a CSV round trip is exact; off, the file
    // is one plain header row and the rows (what numpy.genfromtxt and ParaView's CSV reader take).
    bool csv_metadata = false;
};

class FrameWriter {
public:
    virtual ~FrameWriter() = default;
    virtual void write(const Frame& frame) = 0;
    // The same for a frame the caller no longer needs: a writer that reshapes frames (held.hpp)
    // moves its columns instead of copying them.
    virtual void write(Frame&& frame) { write(static_cast<const Frame&>(frame)); }
    // Completes the output (index, XDMF) and renames temporaries into place. Without a call to
    // finish() (an exception, a signal) nothing appears under the final name.
    virtual void finish() = 0;
    virtual const std::string& name() const = 0;
};

// "-" is stdin. Detects the encoding from the first bytes. With `memory`, every column it
// wants (ColumnMemory::wants, frame.hpp) is decoded straight into it (a held group restored
// from an earlier frame is a copy on the heap); the frames are the same either way.
std::unique_ptr<FrameReader> open_reader(const std::string& path, std::shared_ptr<ColumnMemory> memory = {});
// "-" is stdout (the stream format, or the `encoding` given). Otherwise by `encoding` if
// given, else by extension.
std::unique_ptr<FrameWriter> open_writer(const std::string& path, const WriterOptions& options = {},
                                         std::optional<Encoding> encoding = std::nullopt);
// The files open_reader(path) reads, named by `flag`: the file ("-": standard input), or
// the series of a fileBased HDF5 pattern ("run_%T.h5").
std::vector<NamedFile> read_files(const std::string& flag, const std::string& path);
// The files open_writer(path, options, encoding) writes, named by `flag`, for
// check_distinct_files (base/io.hpp): the output ("-": standard output), a numbered series for
// %T and fileBased HDF5, and HDF5's XDMF side file.
std::vector<NamedFile> written_files(const std::string& flag, const std::string& path, const WriterOptions& options = {},
                                     std::optional<Encoding> encoding = std::nullopt);

}  // namespace partikel::fmt
