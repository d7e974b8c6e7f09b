// Frames and helpers shared by the format tests.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "formats/frame.hpp"
#include "formats/reader.hpp"

namespace partikel::fmt::test {

// A frame with every scalar type, component counts 1, 2, 3, 4, 6, 9, every attribute kind,
// two groups with particles, one empty group and one group without columns.
Frame every_type_frame(std::int64_t step, std::uint64_t particles);
// An SPH-like group: a settled block with small motions (position, velocity, density,
// pressure, id).
Frame sph_frame(std::uint64_t particles, std::int64_t step = 0);

// Bit-identical comparison of everything the model carries; returns "" or the first difference.
std::string difference(const Frame& a, const Frame& b);

// A fresh directory under the system temp dir, removed with the object.
class TempDir {
public:
    TempDir();
    ~TempDir();
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

std::vector<unsigned char> read_bytes(const std::string& path);
// Every frame of a file (any encoding), and all frames into one file (encoding by name).
std::vector<Frame> read_all(const std::string& path);
void write_all(const std::string& path, const std::vector<Frame>& frames, WriterOptions options = {});
void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes);

}  // namespace partikel::fmt::test
