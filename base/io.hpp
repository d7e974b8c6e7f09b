// Byte streams for every reader and writer: files, stdin/stdout ("-"), pipes.
//
// OutputStream writes a named file under a temporary name in the same directory and renames
// it on commit(); if the program fails, is interrupted (SIGINT/SIGTERM) or the object is
// destroyed before commit(), the temporary is removed and nothing appears under the final
// name. Writing to a closed pipe throws BrokenPipe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace partikel {

// Removes registered temporary files on SIGINT/SIGTERM, then exits with 128 + signal.
// Programs call it once at start (tools/common does); idempotent.
void install_signal_cleanup();

// Graceful interrupts, for programs that can stop at a safe point (a simulation between steps):
// while enabled, the first SIGINT or SIGTERM only sets a flag that interrupt_signal() returns,
// and the program finishes what it is writing, closes its output and exits with 128 + signal.
// A second signal cleans up and exits at once, as without graceful interrupts. Enabling clears
// the signal an earlier run recorded.
void set_graceful_interrupts(bool enabled);
// The signal that asked for a graceful stop (SIGINT, SIGTERM), or 0.
int interrupt_signal();

// A temporary path next to `final_path` that is removed on a signal or when the object dies
// uncommitted; commit() renames it to `final_path`. For writers that need a path (HDF5, EXR).
class TempFile {
public:
    explicit TempFile(std::string final_path);
    ~TempFile();
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return temp_path_; }
    const std::string& final_path() const { return final_path_; }
    void commit();                       // rename; throws IoError
    bool committed() const { return committed_; }

private:
    std::string final_path_;
    std::string temp_path_;
    int slot_ = -1;
    bool committed_ = false;
};

class OutputStream {
public:
    // "-" is stdout. Refuses (UsageError) to write binary data to a terminal unless `force`.
    static std::unique_ptr<OutputStream> open(const std::string& path, bool binary = true, bool force = false);
    virtual ~OutputStream() = default;
    virtual void write(const void* data, std::size_t bytes) = 0;   // IoError / BrokenPipe
    void write(std::span<const std::byte> bytes) { write(bytes.data(), bytes.size()); }
    virtual void flush() = 0;
    virtual void commit() = 0;           // flush, and for files rename into place
    virtual std::uint64_t position() const = 0;   // bytes written so far
    virtual const std::string& name() const = 0;  // for messages: the path or "<stdout>"
};

class InputStream {
public:
    // "-" is stdin. Throws IoError naming the path when it cannot be opened.
    static std::unique_ptr<InputStream> open(const std::string& path);
    virtual ~InputStream() = default;
    // Up to `bytes` bytes; fewer only at end of input; 0 at end of input.
    virtual std::size_t read_some(void* data, std::size_t bytes) = 0;
    // Exactly `bytes` bytes, or FormatError "<name>: truncated ... (<what>)".
    void read_exact(void* data, std::size_t bytes, const char* what);
    // Look at the first bytes without consuming them (for format detection by magic).
    virtual std::size_t peek(void* data, std::size_t bytes) = 0;
    virtual std::uint64_t position() const = 0;
    virtual const std::string& name() const = 0;  // the path or "<stdin>"
    virtual bool is_regular_file() const = 0;     // seekable file (an index may be used)
    virtual void seek(std::uint64_t offset) = 0;  // only when is_regular_file()
    virtual std::uint64_t size() const = 0;       // file size (0 for pipes)
};

// Write all bytes to a file descriptor, retrying on EINTR; EPIPE -> BrokenPipe.
void write_all(int fd, const void* data, std::size_t bytes, const std::string& name);

}  // namespace partikel
