// Byte streams for every reader and writer: files, stdin/stdout ("-"), pipes.
//
// Every output path is written by one rule (docs/ARCHITECTURE.md, "How output files are
// written"), after looking at what the path is (resolve_output):
//  - a regular file or a new path: written under a temporary name in the same directory,
//    ".NAME.partikel-tmp-PID", and renamed onto the path on commit(); if the program fails, is
//    interrupted (SIGINT/SIGTERM) or the object is destroyed before commit(), the temporary is
//    removed and nothing appears under the final name (a file that was there stays untouched);
//  - a symbolic link: followed (to its end), and its target written as above; the link stays;
//  - a character device, FIFO or socket: written directly, in order, with no temporary (there is
//    nothing to rename, and renaming onto /dev/null would replace the device);
//  - a directory or a block device: refused (IoError).
// Every write, the final flush, fsync and close are checked: a full disk is an IoError
// "PATH: write failed: No space left on device". Writing to a closed pipe throws BrokenPipe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace partikel {

// Signals (docs/ARCHITECTURE.md, "What an interrupt keeps"): SIGINT, SIGTERM and SIGHUP (a
// terminal or ssh session closing; left ignored under nohup) remove the registered temporary
// files and exit with 128 + signal. Programs call it once at start with their name (for the
// lines the handler writes; tools/common does); idempotent.
void install_signal_cleanup(const char* program = "partikel");

// Graceful interrupts, for programs that can stop at a safe point (a simulation between steps):
// while enabled, the first signal only sets a flag that interrupt_signal() returns (and says so
// on stderr), and the program finishes what it is writing, closes its output and exits with
// 128 + signal. While it stops, a further SIGHUP is ignored (a closing terminal asks for no
// hurry); a second SIGINT or SIGTERM stops at once and keeps every temporary as a crash would
// (a stream's complete frames are read from it by particle-info and particle-convert
// --recover), naming each on stderr: no signal deletes frames a run has written. Enabling
// clears the signal an earlier run recorded.
void set_graceful_interrupts(bool enabled);
// The signal that asked for a graceful stop (SIGINT, SIGTERM, SIGHUP), or 0.
int interrupt_signal();
// "SIGINT", "SIGTERM", "SIGHUP" (else "signal N").
std::string signal_name(int signal_number);

// What an output path is, and so how it is written (see above).
struct OutputTarget {
    enum class Kind { file, direct };
    Kind kind = Kind::file;
    std::string path;       // file: the regular path to rename onto (links followed); direct: the device ("-": stdout)
    bool exists = false;    // file: a regular file is there now (its permissions are kept)
    unsigned mode = 0;      // file: that file's permission bits
    bool socket = false;    // direct: a Unix socket (connected, not opened)
};
// Follows symbolic links (also dangling ones, to the path they name); "-" is standard output
// (direct); IoError for a directory, a block device or a loop of links.
OutputTarget resolve_output(const std::string& path);

// The temporary name a file output is written under: ".NAME.partikel-tmp-PID" next to `path`
// (the resolved target), so that after a crash it is found beside the output it was meant to
// become (particle-info and particle-convert read its complete frames).
std::string temporary_name(const std::string& path);
// Temporaries of `path` (see temporary_name, the path resolved) that processes no longer
// running left behind: what a crash (SIGKILL, power loss) leaves of an output.
std::vector<std::string> abandoned_temporaries(const std::string& path);

// A path to write to for writers that need one (HDF5, EXR): for a file output, a temporary
// next to the (resolved) target, removed on a signal or when the object dies uncommitted, and
// renamed onto the target by commit(); for a device, FIFO, socket or "-" (standard output; not
// a terminal), a temporary in $TMPDIR (or /tmp; IoError naming $TMPDIR when it is no writable
// directory) whose bytes commit() copies to the device, in order, and then removes.
class TempFile {
public:
    explicit TempFile(std::string final_path);
    ~TempFile();
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return temp_path_; }
    const std::string& final_path() const { return final_path_; }
    void commit();                       // rename (or copy to the device); throws IoError
    bool committed() const { return committed_; }

private:
    std::string final_path_;
    OutputTarget target_;
    std::string temp_path_;
    int slot_ = -1;
    bool committed_ = false;
};

// A file one run reads or writes, as the user named it (check_distinct_files).
struct NamedFile {
    std::string flag;   // the option that named it: "--output", "--diag", "INPUT"
    std::string path;   // "-": standard input (an input) or standard output (an output)
    // A numbered series, one file per frame ("frames/%04d.exr", "run_%T.h5"): the files are
    // before + number(n) + after for every n; `path` is then the pattern as given.
    struct Series {
        std::string before, after;
        std::function<std::string(std::int64_t)> number;
    };
    std::optional<Series> series;
};

// Before a run writes anything: a UsageError when an output names the same file as another
// output or as an input, "--diag must name another file than --output (./s.pks and s.pks are
// the same file)". Files are compared by what they are, not by spelling: an existing file by
// device and inode (links followed, so "./x", symbolic and hard links are seen through; "-" by
// its descriptor), a new path by its directory's device and inode and its name, a series by
// each of its files that exists and by the names it would give a new path. Character devices
// (/dev/null, a terminal) and sockets may be named any number of times.
void check_distinct_files(const std::vector<NamedFile>& inputs, const std::vector<NamedFile>& outputs);

class OutputStream {
public:
    // "-" is stdout. Refuses (UsageError) to write binary data to a terminal unless `force`.
    // Any other path as resolve_output() says.
    static std::unique_ptr<OutputStream> open(const std::string& path, bool binary = true, bool force = false);
    virtual ~OutputStream() = default;
    virtual void write(const void* data, std::size_t bytes) = 0;   // IoError / BrokenPipe
    void write(std::span<const std::byte> bytes) { write(bytes.data(), bytes.size()); }
    virtual void flush() = 0;
    // Flush, fsync and close (each checked), and for files rename into place. Without it the
    // temporary is removed; a direct output keeps what was written.
    virtual void commit() = 0;
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

// The whole of a text input (a lattice, a camera path, a table, a CSV file) when it holds at
// most `limit_bytes` and no NUL byte: a FormatError "NAME: more than LIMIT bytes; WHAT is read
// whole and must be smaller" or "NAME: binary data (a NUL byte at byte N), not WHAT" otherwise,
// found as soon as it shows, so that /dev/zero or an endless pipe is refused instead of read
// until memory runs out.
std::string read_text(InputStream& in, std::uint64_t limit_bytes, const std::string& what);

// Write all bytes to a file descriptor, retrying on EINTR; EPIPE -> BrokenPipe; any other
// failure (ENOSPC, EFBIG, EIO) -> IoError "NAME: write failed: <strerror>".
void write_all(int fd, const void* data, std::size_t bytes, const std::string& name);

// Flushes stdout and reports whether everything written to it through stdio arrived:
// IoError "<stdout>: write failed: ..." otherwise. tools/common calls it after a program's body.
void check_stdout();

}  // namespace partikel
