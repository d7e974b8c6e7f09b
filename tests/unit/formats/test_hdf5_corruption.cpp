// Damaged HDF5 files (SPEC.md §3.4): every byte of a small file Partikel wrote flipped, and the
// file cut at many offsets, must give a clean FormatError or IoError naming the file, or read
// back exactly what was written; never a crash, never wrong data. The files we write carry
// checksummed metadata (superblock, object headers, B-trees, heaps) and Fletcher-32 checksums on
// every data chunk, so HDF5 reports the damage instead of walking garbage. Run under
// `make sanitize` too. The exhaustive variant over a larger, compressed file is labelled slow.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "base/error.hpp"
#include "formats/reader.hpp"
#include "sample_frames.hpp"

using namespace partikel;
using namespace partikel::fmt;
using namespace partikel::fmt::test;

namespace {

// "" when `path` reads back as `expected`; the error's text when it fails cleanly. Anything
// else (another exception type, different data) fails the test.
// Read plainly and into provided column memory, with the same outcome (read_both_ways).
std::string outcome(const std::string& path, const std::vector<Frame>& expected) {
    std::vector<Frame> frames;
    const std::string error = read_both_ways(path, &frames);
    if (!error.empty()) return error;
    REQUIRE(frames.size() == expected.size());
    for (std::size_t i = 0; i < frames.size(); ++i) REQUIRE(difference(frames[i], expected[i]) == "");
    return "";
}

std::vector<unsigned char> written(const TempDir& dir, const std::vector<Frame>& frames, WriterOptions options) {
    options.write_xdmf = false;
    write_all(dir.file("good.h5"), frames, options);
    return read_bytes(dir.file("good.h5"));
}

// Flips every `stride`-th byte (0x5A) and cuts the file at every `cut_stride`-th offset.
void damage_everywhere(const std::vector<Frame>& frames, WriterOptions options, std::size_t stride, std::size_t cut_stride) {
    TempDir dir;
    const auto bytes = written(dir, frames, options);
    REQUIRE(outcome(dir.file("good.h5"), frames) == "");
    const std::string bad = dir.file("bad.h5");
    std::size_t detected = 0, flips = 0;
    for (std::size_t i = 0; i < bytes.size(); i += stride) {
        CAPTURE(i);
        auto copy = bytes;
        copy[i] ^= 0x5A;
        write_bytes(bad, copy);
        const std::string e = outcome(bad, frames);
        if (!e.empty()) {
            REQUIRE(e.find("bad.h5") != std::string::npos);
            ++detected;
        }
        ++flips;
    }
    MESSAGE(detected << " of " << flips << " flipped bytes detected, the others read back exactly (" << bytes.size()
                     << "-byte file)");
    for (std::size_t n = 0; n < bytes.size(); n += cut_stride) {
        CAPTURE(n);
        write_bytes(bad, {bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)});
        const std::string e = outcome(bad, frames);
        REQUIRE(e != "");
        REQUIRE(e.find("bad.h5") != std::string::npos);
    }
}

}  // namespace

TEST_CASE("HDF5: every flipped byte of a small file is a clean error or an exact read; every cut is an error") {
    WriterOptions plain;
    plain.hdf5_compression = WriterOptions::Hdf5Compression::none;
    damage_everywhere({sph_frame(3, 0)}, plain, 1, 7);
}

TEST_SUITE("slow") {
TEST_CASE("HDF5: every flipped byte and every cut of a compressed file with two frames of every type") {
    damage_everywhere({every_type_frame(0, 50), every_type_frame(10, 7)}, WriterOptions{}, 1, 1);
}
}
