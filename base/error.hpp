// Partikel's error types. The library throws these; tools/common turns them into one line
// `prog: error: <what()>` on stderr and an exit status (UsageError -> 2, everything else -> 1).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace partikel {

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
