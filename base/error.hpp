// Partikel's error types. The library throws these; tools/common turns them into one line
// `prog: error: <what()>` on stderr and an exit status (UsageError -> 2, everything else -> 1).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace partikel {

// Text from an input (a CSV field, a config line) shown in a message: quoted, and cut to its
// first `keep` bytes when longer, with the length said: "\"abcabc...\" (10485760 bytes)". A
// message is one line a user reads; a damaged file's field can be megabytes long.
inline std::string quoted_excerpt(std::string_view text, std::size_t keep = 40) {
    if (text.size() <= keep) return "\"" + std::string(text) + "\"";
    return "\"" + std::string(text.substr(0, keep)) + "...\" (" + std::to_string(text.size()) + " bytes)";
}

// Root of every error the library throws on purpose.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A bad flag value or parameter combination: the caller asked for something impossible.
class UsageError : public Error {
public:
    using Error::Error;
};

// Bytes that do not follow a format: bad magic, unknown version, truncation, checksum
// mismatch, absurd sizes. The message names the file and, where known, frame and column.
class FormatError : public Error {
public:
    using Error::Error;
};

// A failed system call (open, read, write, rename); the message carries strerror(errno).
class IoError : public Error {
public:
    using Error::Error;
};

// A CUDA runtime / library failure or an unusable device; message has file:line and the
// CUDA error name and string.
class DeviceError : public Error {
public:
    using Error::Error;
};

// An allocation that did not fit, on the host or on the device; says requested and free bytes.
class OutOfMemoryError : public DeviceError {
public:
    OutOfMemoryError(const std::string& what, std::uint64_t requested_bytes, std::uint64_t free_bytes)
        : DeviceError(what), requested_bytes(requested_bytes), free_bytes(free_bytes) {}
    std::uint64_t requested_bytes;
    std::uint64_t free_bytes;
};

// The simulation itself failed: NaN, runaway velocity, time step below its floor.
class NumericalError : public Error {
public:
    using Error::Error;
};

// Downstream closed the pipe (EPIPE): programs end quietly with status 141.
class BrokenPipe : public Error {
public:
    BrokenPipe() : Error("broken pipe") {}
};

}  // namespace partikel
