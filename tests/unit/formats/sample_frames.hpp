// Frames and helpers shared by the format tests.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
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

// Column memory for the readers' provided-memory path (frame.hpp, ColumnMemory): heap blocks,
// each filled with a poison byte when handed out (a reader that left bytes unset reads back
// different), counted, so that a test sees that every block came back. Wants every column but
// those named "id" (which stay on the heap: frames then mix both).
class TrackedMemory final : public ColumnMemory {
public:
    bool wants(std::string_view group, std::string_view column) const override;
    std::byte* allocate(std::size_t bytes) override;
    void deallocate(std::byte* pointer, std::size_t bytes) noexcept override;
    bool holds(const void* pointer) const;  // whether `pointer` is in a live block
    std::size_t live() const;                // blocks handed out and not given back
    std::size_t handed_out() const { return handed_out_; }

private:
    mutable std::mutex mutex_;
    std::vector<std::pair<std::byte*, std::size_t>> blocks_;
    std::size_t handed_out_ = 0;
};

// Every frame of `path` read with open_reader(path, memory), or the text of the FormatError or
// IoError that ended the reading.
std::pair<std::vector<Frame>, std::string> read_outcome(const std::string& path, std::shared_ptr<ColumnMemory> memory);
// Reads every frame of `path` twice, with open_reader(path) and with open_reader(path, memory)
// for a TrackedMemory, and requires the same outcome: the same frames bit for bit (the wanted
// columns in the memory), or the same FormatError or IoError; and every block given back.
// Returns the error's text, or "" when the input was read.
std::string read_both_ways(const std::string& path, std::vector<Frame>* frames = nullptr);

std::vector<unsigned char> read_bytes(const std::string& path);
// Every frame of a file (any encoding), and all frames into one file (encoding by name).
std::vector<Frame> read_all(const std::string& path);
void write_all(const std::string& path, const std::vector<Frame>& frames, WriterOptions options = {});
void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes);

}  // namespace partikel::fmt::test
