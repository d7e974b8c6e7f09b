#include "base/io.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/error.hpp"

namespace partikel {

namespace {

// Temporary files to remove on SIGINT/SIGTERM. A fixed table of fixed-size paths, so the
// signal handler only reads memory and calls unlink (async-signal-safe).
constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;
char g_temp_paths[kSlots][kPathMax];
std::atomic<bool> g_slot_used[kSlots];

int register_temp(const std::string& path) {
    if (path.size() >= kPathMax) return -1;
    for (int i = 0; i < kSlots; ++i) {
        bool expected = false;
        if (g_slot_used[i].compare_exchange_strong(expected, true)) {
            std::memcpy(g_temp_paths[i], path.c_str(), path.size() + 1);
            return i;
        }
    }
    return -1;  // table full: the object still removes its file on destruction
}

void unregister_temp(int slot) {
    if (slot >= 0) g_slot_used[slot].store(false);
}

std::atomic<bool> g_graceful{false};
volatile std::sig_atomic_t g_interrupt_signal = 0;
char g_program[64] = "partikel";  // for the handler's lines

// The handler's output: write(2) of pieces (async-signal-safe), never stdio.
void say(const char* text) {
    std::size_t n = 0;
    while (text[n]) ++n;
    while (n > 0) {
        const ssize_t w = ::write(STDERR_FILENO, text, n);
        if (w <= 0) return;  // a closed terminal (SIGHUP): nobody reads it
        text += w;
        n -= std::size_t(w);
    }
}
const char* signal_text(int signal_number) {
    return signal_number == SIGINT ? "SIGINT" : signal_number == SIGTERM ? "SIGTERM" : signal_number == SIGHUP ? "SIGHUP" : "a signal";
}

// One rule for every program (docs/ARCHITECTURE.md, "What an interrupt keeps").
extern "C" void on_signal(int signal_number) {
    const bool keep_temporaries = g_graceful.load() && g_interrupt_signal != 0;
    if (g_graceful.load()) {
        if (g_interrupt_signal == 0) {
            g_interrupt_signal = signal_number;  // the program stops at its next safe point
            say(g_program), say(": note: "), say(signal_text(signal_number));
            say(": stopping after this step and writing the last frame (a second SIGINT or SIGTERM stops at once)\n");
            return;
        }
        if (signal_number == SIGHUP) return;  // a terminal closing while the run stops: let it finish
    }
    for (int i = 0; i < kSlots; ++i) {
        if (!g_slot_used[i].load()) continue;
        if (!keep_temporaries) {
            unlink(g_temp_paths[i]);
        } else if (::access(g_temp_paths[i], F_OK) == 0) {
            // What a crash would leave: the frames written so far stay readable in the temporary.
            say(g_program), say(": error: second "), say(signal_text(signal_number));
            say(": stopped at once; the unfinished output stays in "), say(g_temp_paths[i]);
            say(" (particle-info reads the complete frames of a stream, particle-convert --recover copies them)\n");
        }
    }
    signal(signal_number, SIG_DFL);
    raise(signal_number);  // exit with the conventional 128 + signal status
}

std::string errno_text(const std::string& what, const std::string& path) {
    return path + ": " + what + ": " + std::strerror(errno);
}

std::string dir_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}
std::string base_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool path_exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

// `stem` itself, or with "-1", "-2", ... when a file of that name exists already (a second
// output to the same path in one process, or a leftover of a crash whose PID came round again).
std::string unused_name(const std::string& stem) {
    std::string name = stem;
    for (int n = 1; path_exists(name); ++n) name = stem + "-" + std::to_string(n);
    return name;
}

// Opens a direct output (device, FIFO, socket) for writing.
int open_direct(const OutputTarget& target, const std::string& shown) {
    if (target.socket) {
        sockaddr_un address{};
        if (target.path.size() >= sizeof address.sun_path) throw IoError(shown + ": socket path too long");
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path, target.path.c_str(), target.path.size() + 1);
        int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) throw IoError(errno_text("cannot create a socket for", shown));
        if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
            const int err = errno;
            ::close(fd);
            errno = err;
            throw IoError(errno_text("cannot connect to socket", shown));
        }
        return fd;
    }
    int fd = target.path == "-" ? ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0) : ::open(target.path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw IoError(errno_text("cannot open for writing", shown));
    return fd;
}

}  // namespace

void set_graceful_interrupts(bool enabled) {
    if (enabled) g_interrupt_signal = 0;  // a new run starts: an earlier run's interrupt is handled
    g_graceful.store(enabled);
}
int interrupt_signal() { return static_cast<int>(g_interrupt_signal); }

std::string signal_name(int signal_number) {
    const std::string text = signal_text(signal_number);
    return text == "a signal" ? "signal " + std::to_string(signal_number) : text;
}

void install_signal_cleanup(const char* program) {
    std::snprintf(g_program, sizeof g_program, "%s", program);
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    // One handler at a time: a second signal waits for the first to be recorded.
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&action.sa_mask, s);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    // SIGHUP as the others, unless it is ignored (nohup): then it stays ignored.
    struct sigaction hangup {};
    if (sigaction(SIGHUP, nullptr, &hangup) == 0 && hangup.sa_handler != SIG_IGN) sigaction(SIGHUP, &action, nullptr);
    // A closed downstream pipe becomes EPIPE on write, then BrokenPipe: a quiet exit.
    signal(SIGPIPE, SIG_IGN);
}

OutputTarget resolve_output(const std::string& path) {
    OutputTarget target;
    if (path == "-") {
        target.kind = OutputTarget::Kind::direct;
        target.path = path;
        return target;
    }
    std::string p = path;
    for (int links = 0;; ++links) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0) {
            if (errno != ENOENT) throw IoError(errno_text("cannot look at", path));
            target.path = p;  // a new file (the directory is checked when the temporary is made)
            return target;
        }
        if (S_ISLNK(st.st_mode)) {
            if (links >= 40) throw IoError(path + ": too many levels of symbolic links");
            std::vector<char> buf(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 1);
            const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size());
            if (n < 0) throw IoError(errno_text("cannot read link", p));
            std::string to(buf.data(), static_cast<std::size_t>(n));
            p = to.starts_with('/') ? to : dir_of(p) + to;
            continue;
        }
        if (S_ISREG(st.st_mode)) {
            target.path = p;
            target.exists = true;
            target.mode = st.st_mode & 07777;
        } else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
            target.kind = OutputTarget::Kind::direct;
            target.path = p;
            target.socket = S_ISSOCK(st.st_mode);
        } else if (S_ISDIR(st.st_mode)) {
            throw IoError(path + ": is a directory");
        } else {
            throw IoError(path + ": is a block device or another special file; refusing to write over it");
        }
        return target;
    }
}

std::string temporary_name(const std::string& path) {
    return dir_of(path) + "." + base_of(path) + ".partikel-tmp-" + std::to_string(getpid());
}

std::vector<std::string> abandoned_temporaries(const std::string& path) {
    std::vector<std::string> found;
    if (path.empty() || path == "-") return found;
    OutputTarget target;
    try {
        target = resolve_output(path);
    } catch (const IoError&) {
        return found;
    }
    if (target.kind != OutputTarget::Kind::file) return found;
    const std::string dir = dir_of(target.path);
    const std::string prefix = "." + base_of(target.path) + ".partikel-tmp-";
    DIR* d = opendir(dir.empty() ? "." : dir.c_str());
    if (!d) return found;
    while (const dirent* e = readdir(d)) {
        const std::string name = e->d_name;
        if (!name.starts_with(prefix)) continue;
        const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
        if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)) continue;  // still running
        found.push_back(dir + name);
    }
    closedir(d);
    return found;
}

namespace {

// What a name given to a run is, for check_distinct_files.
struct Identity {
    bool known = false;     // false: it cannot be looked at (its directory is missing): compared with nothing
    bool exists = false;    // an existing file (dev, ino: its own); else a new path (dev, ino: its directory)
    bool shareable = false; // a character device or a socket (two directions): may be named any number of times
    dev_t dev = 0;
    ino_t ino = 0;
    std::string name;       // a new path: its name in that directory
};

bool same_file(const Identity& a, const Identity& b) {
    if (!a.known || !b.known || a.shareable || b.shareable || a.exists != b.exists) return false;
    return a.dev == b.dev && a.ino == b.ino && (a.exists || a.name == b.name);
}

Identity identity_of(const struct stat& st) {
    Identity id;
    id.known = id.exists = true;
    id.shareable = S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode);
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    return id;
}

Identity identity_of_path(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return identity_of(st);
    // A new path, or a dangling link: the directory and name the writer will create.
    std::string target;
    try {
        target = resolve_output(path).path;
    } catch (const IoError&) {
        return {};
    }
    const std::string dir = dir_of(target);
    if (::stat(dir.empty() ? "." : dir.c_str(), &st) != 0) return {};
    Identity id = identity_of(st);
    id.exists = false;
    id.shareable = false;
    id.name = base_of(target);
    return id;
}

// A name of a run: one file, or the files of a series that exist (and the rule that tells
// whether a new path would be one of them).
struct GivenName {
    const NamedFile* file = nullptr;
    bool output = false;
    Identity identity;                                      // one file
    std::vector<std::pair<std::string, Identity>> members;  // a series: its existing files
    Identity series_directory;                              // a series numbered in its file name: the directory
    std::function<bool(const std::string&)> numbered;       // ... and whether a name there is one of it
};

GivenName look_at(const NamedFile& file, bool output) {
    GivenName given{&file, output, {}, {}, {}, {}};
    if (!file.series) {
        struct stat st {};
        if (file.path == "-" || file.path.empty()) {
            if (::fstat(output ? STDOUT_FILENO : STDIN_FILENO, &st) == 0) given.identity = identity_of(st);
        } else {
            given.identity = identity_of_path(file.path);
        }
        return given;
    }
    // before + number + after: the number sits in one path component, between `prefix` and
    // `suffix`; `rest` follows that component when the number names a directory.
    const NamedFile::Series& series = *file.series;
    const auto slash = series.before.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "" : series.before.substr(0, slash + 1);
    const std::string prefix = series.before.substr(dir.size());
    const auto next_slash = series.after.find('/');
    const std::string suffix = series.after.substr(0, next_slash);
    const std::string rest = next_slash == std::string::npos ? "" : series.after.substr(next_slash);
    given.numbered = [prefix, suffix, number = series.number](const std::string& name) {
        if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix))
            return false;
        const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
        const char* first = digits.c_str();
        while (*first == ' ') ++first;  // "%4d" pads with spaces
        char* end = nullptr;
        errno = 0;
        const long long n = std::strtoll(first, &end, 10);
        return *first != '\0' && *end == '\0' && errno == 0 && number(n) == digits;
    };
    if (DIR* d = opendir(dir.empty() ? "." : dir.c_str())) {
        while (const dirent* e = readdir(d)) {
            const std::string name = e->d_name;
            if (name == "." || name == ".." || !given.numbered(name)) continue;
            const std::string path = dir + name + rest;
            struct stat st {};
            if (::stat(path.c_str(), &st) == 0) given.members.emplace_back(path, identity_of(st));
        }
        closedir(d);
    }
    if (rest.empty()) {
        struct stat st {};
        if (::stat(dir.empty() ? "." : dir.c_str(), &st) == 0) given.series_directory = identity_of(st);
    }
    return given;
}

// The spelling of `given`'s file that is `other`'s, or nothing when they share no file.
std::optional<std::string> shared_with_one(const GivenName& series, const Identity& one) {
    for (const auto& [path, identity] : series.members)
        if (same_file(identity, one)) return path + " (of " + series.file->path + ")";
    if (series.numbered && !one.exists && one.known && series.series_directory.known &&
        series.series_directory.dev == one.dev && series.series_directory.ino == one.ino && series.numbered(one.name))
        return one.name + " (of " + series.file->path + ")";
    return std::nullopt;
}

std::string shown(const GivenName& given) {
    if (given.file->path == "-" || given.file->path.empty()) return given.output ? "standard output" : "standard input";
    return given.file->path;
}

std::optional<std::pair<std::string, std::string>> clash(const GivenName& a, const GivenName& b) {
    if (!a.file->series && !b.file->series) {
        if (same_file(a.identity, b.identity)) return std::pair{shown(a), shown(b)};
        return std::nullopt;
    }
    if (a.file->series && !b.file->series) {
        if (auto path = shared_with_one(a, b.identity)) return std::pair{*path, shown(b)};
        return std::nullopt;
    }
    if (!a.file->series) {
        if (auto path = shared_with_one(b, a.identity)) return std::pair{shown(a), *path};
        return std::nullopt;
    }
    for (const auto& [path, identity] : a.members)
        if (auto other = shared_with_one(b, identity)) return std::pair{path + " (of " + a.file->path + ")", *other};
    return std::nullopt;
}

}  // namespace

void check_distinct_files(const std::vector<NamedFile>& inputs, const std::vector<NamedFile>& outputs) {
    std::vector<GivenName> read, written;
    for (const NamedFile& f : inputs) read.push_back(look_at(f, false));
    for (const NamedFile& f : outputs) written.push_back(look_at(f, true));
    for (std::size_t j = 0; j < written.size(); ++j) {
        const GivenName& out = written[j];
        for (const GivenName& in : read)
            if (const auto both = clash(out, in))
                throw UsageError(out.file->flag + " must name another file than the input " + in.file->flag + " (" +
                                 both->first + " and " + both->second + " are the same file)");
        for (std::size_t k = 0; k < j; ++k) {
            if (written[k].file->flag == out.file->flag) continue;  // the files one flag names (a side file)
            if (const auto both = clash(out, written[k]))
                throw UsageError(out.file->flag + " must name another file than " + written[k].file->flag + " (" +
                                 both->first + " and " + both->second + " are the same file)");
        }
    }
}

TempFile::TempFile(std::string final_path) : final_path_(std::move(final_path)), target_(resolve_output(final_path_)) {
    if (target_.kind == OutputTarget::Kind::file) {
        temp_path_ = unused_name(temporary_name(target_.path));
    } else {
        if (target_.path == "-" && isatty(STDOUT_FILENO))
            throw UsageError("refusing to write binary data to a terminal (redirect standard output, or name a file)");
        // Staged where temporary files go: a missing or read-only $TMPDIR is named as such.
        const char* tmpdir = std::getenv("TMPDIR");
        const bool from_environment = tmpdir && *tmpdir;
        const std::string dir = from_environment ? tmpdir : "/tmp";
        struct stat st {};
        int err = 0;
        if (::stat(dir.c_str(), &st) != 0) err = errno;
        else if (!S_ISDIR(st.st_mode)) err = ENOTDIR;
        else if (::access(dir.c_str(), W_OK | X_OK) != 0) err = errno;
        if (err != 0)
            throw IoError((from_environment ? "$TMPDIR (" + dir + ")" : dir) + ": " + std::strerror(err) +
                          "; it holds " + (target_.path == "-" ? "standard output" : final_path_) +
                          " until it is complete (set TMPDIR to a writable directory)");
        const std::string shown = target_.path == "-" ? "stdout" : base_of(target_.path);
        temp_path_ = unused_name(dir + "/partikel-tmp-" + std::to_string(getpid()) + "-" + shown);
    }
    slot_ = register_temp(temp_path_);
}

TempFile::~TempFile() {
    if (!committed_) unlink(temp_path_.c_str());
    unregister_temp(slot_);
}

void TempFile::commit() {
    if (committed_) return;
    if (target_.kind == OutputTarget::Kind::direct) {
        // The device gets the bytes in order; the temporary goes either way (destructor).
        int in = ::open(temp_path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (in < 0) throw IoError(errno_text("cannot reopen the temporary", temp_path_));
        struct FdCloser { int fd; ~FdCloser() { if (fd >= 0) ::close(fd); } } in_closer{in};
        int out = open_direct(target_, final_path_);
        FdCloser out_closer{out};
        std::vector<char> buf(std::size_t{1} << 20);
        for (;;) {
            const ssize_t n = ::read(in, buf.data(), buf.size());
            if (n < 0) {
                if (errno == EINTR) continue;
                throw IoError(errno_text("read failed", temp_path_));
            }
            if (n == 0) break;
            write_all(out, buf.data(), static_cast<std::size_t>(n), final_path_);
        }
        if (::close(out_closer.fd) != 0 && errno != EINTR) {
            out_closer.fd = -1;
            throw IoError(errno_text("write failed", final_path_));
        }
        out_closer.fd = -1;
        unlink(temp_path_.c_str());
        committed_ = true;
        unregister_temp(slot_);
        slot_ = -1;
        return;
    }
    if (target_.exists) ::chmod(temp_path_.c_str(), target_.mode);  // the replaced file's permissions
    if (rename(temp_path_.c_str(), target_.path.c_str()) != 0) throw IoError(errno_text("cannot rename into place", final_path_));
    committed_ = true;
    unregister_temp(slot_);
    slot_ = -1;
}

void check_stdout() {
    const bool flushed = std::fflush(stdout) == 0;
    const int err = errno;
    if (flushed && !std::ferror(stdout)) return;
    if (!flushed && err == EPIPE) throw BrokenPipe();
    std::string text = "<stdout>: write failed";
    if (!flushed) text += std::string(": ") + std::strerror(err);
    std::clearerr(stdout);
    throw IoError(text);
}

void write_all(int fd, const void* data, std::size_t bytes, const std::string& name) {
    auto* p = static_cast<const char*>(data);
    while (bytes > 0) {
        ssize_t n = ::write(fd, p, std::min<std::size_t>(bytes, std::size_t{1} << 30));
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EPIPE) throw BrokenPipe();
            throw IoError(errno_text("write failed", name));
        }
        p += n;
        bytes -= static_cast<std::size_t>(n);
    }
}

namespace {

// Buffered writes to a descriptor: small header writes are gathered, large column chunks go
// straight through.
class FdOutput : public OutputStream {
public:
    // `owned`: the descriptor is closed here (files and devices; not stdout).
    FdOutput(int fd, std::string name, std::unique_ptr<TempFile> temp, bool owned)
        : fd_(fd), name_(std::move(name)), temp_(std::move(temp)), owned_(owned) { buffer_.reserve(kBuffer); }
    ~FdOutput() override {
        if (owned_ && fd_ >= 0) ::close(fd_);
    }
    void write(const void* data, std::size_t bytes) override {
        if (buffer_.size() + bytes > kBuffer) drain();
        if (bytes >= kBuffer) write_all(fd_, data, bytes, name_);
        else buffer_.insert(buffer_.end(), static_cast<const char*>(data), static_cast<const char*>(data) + bytes);
        position_ += bytes;
    }
    void flush() override { drain(); }
    void commit() override {
        drain();
        if (temp_ && ::fsync(fd_) != 0 && errno != EINVAL) throw IoError(errno_text("write failed", name_));
        if (owned_ && fd_ >= 0) {
            const int fd = fd_;
            fd_ = -1;
            if (::close(fd) != 0 && errno != EINTR) throw IoError(errno_text("write failed", name_));
        }
        if (temp_) temp_->commit();
    }
    std::uint64_t position() const override { return position_; }
    const std::string& name() const override { return name_; }

private:
    static constexpr std::size_t kBuffer = 1 << 20;
    void drain() {
        if (!buffer_.empty()) write_all(fd_, buffer_.data(), buffer_.size(), name_);
        buffer_.clear();
    }
    int fd_;
    std::string name_;
    std::unique_ptr<TempFile> temp_;
    bool owned_;
    std::vector<char> buffer_;
    std::uint64_t position_ = 0;
};

class FdInput : public InputStream {
public:
    FdInput(int fd, std::string name, bool owned) : fd_(fd), name_(std::move(name)), owned_(owned) {
        struct stat st {};
        if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
            regular_ = true;
            size_ = static_cast<std::uint64_t>(st.st_size);
        }
    }
    ~FdInput() override {
        if (owned_) ::close(fd_);
    }
    std::size_t read_some(void* data, std::size_t bytes) override {
        std::size_t got = 0;
        auto* out = static_cast<char*>(data);
        if (!peeked_.empty()) {
            got = std::min(bytes, peeked_.size());
            std::memcpy(out, peeked_.data(), got);
            peeked_.erase(peeked_.begin(), peeked_.begin() + static_cast<std::ptrdiff_t>(got));
        }
        while (got < bytes) {
            ssize_t n = ::read(fd_, out + got, std::min<std::size_t>(bytes - got, std::size_t{1} << 30));
            if (n < 0) {
                if (errno == EINTR) continue;
                throw IoError(errno_text("read failed", name_));
            }
            if (n == 0) break;
            got += static_cast<std::size_t>(n);
        }
        position_ += got;
        return got;
    }
    std::size_t peek(void* data, std::size_t bytes) override {
        while (peeked_.size() < bytes) {
            char buf[4096];
            ssize_t n = ::read(fd_, buf, std::min(sizeof buf, bytes - peeked_.size()));
            if (n < 0) {
                if (errno == EINTR) continue;
                throw IoError(errno_text("read failed", name_));
            }
            if (n == 0) break;
            peeked_.insert(peeked_.end(), buf, buf + n);
        }
        std::size_t n = std::min(bytes, peeked_.size());
        if (n) std::memcpy(data, peeked_.data(), n);  // an empty vector's data() may be null
        return n;
    }
    std::uint64_t position() const override { return position_; }
    const std::string& name() const override { return name_; }
    bool is_regular_file() const override { return regular_; }
    std::uint64_t size() const override { return size_; }
    void seek(std::uint64_t offset) override {
        if (!regular_) throw UsageError(name_ + ": cannot seek in a pipe");
        if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) throw IoError(errno_text("seek failed", name_));
        peeked_.clear();
        position_ = offset;
    }

private:
    int fd_;
    std::string name_;
    bool owned_;
    bool regular_ = false;
    std::uint64_t size_ = 0;
    std::uint64_t position_ = 0;
    std::vector<char> peeked_;
};

}  // namespace

std::unique_ptr<OutputStream> OutputStream::open(const std::string& path, bool binary, bool force) {
    if (path == "-" || path.empty()) {
        if (binary && !force && isatty(STDOUT_FILENO))
            throw UsageError("refusing to write binary particle data to a terminal (redirect stdout, use -o FILE, or --force)");
        return std::make_unique<FdOutput>(STDOUT_FILENO, "<stdout>", nullptr, false);
    }
    const OutputTarget target = resolve_output(path);
    if (target.kind == OutputTarget::Kind::direct) return std::make_unique<FdOutput>(open_direct(target, path), path, nullptr, true);
    auto temp = std::make_unique<TempFile>(path);
    int fd = ::open(temp->path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw IoError(errno_text("cannot create", path));
    return std::make_unique<FdOutput>(fd, path, std::move(temp), true);
}

std::unique_ptr<InputStream> InputStream::open(const std::string& path) {
    if (path == "-" || path.empty()) return std::make_unique<FdInput>(STDIN_FILENO, "<stdin>", false);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw IoError(errno_text("cannot open", path));
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(fd);
        throw IoError(path + ": is a directory");
    }
    return std::make_unique<FdInput>(fd, path, true);
}

std::string read_text(InputStream& in, std::uint64_t limit_bytes, const std::string& what) {
    std::string text;
    if (in.is_regular_file() && in.size() <= limit_bytes) text.reserve(static_cast<std::size_t>(in.size()));
    char buffer[1 << 16];
    while (const std::size_t got = in.read_some(buffer, sizeof buffer)) {
        // Text holds no NUL: binary data (/dev/zero, /dev/urandom) is refused at its first one.
        if (const void* nul = std::memchr(buffer, 0, got))
            throw FormatError(in.name() + ": binary data (a NUL byte at byte " +
                              std::to_string(text.size() + std::size_t(static_cast<const char*>(nul) - buffer)) +
                              "), not " + what);
        text.append(buffer, got);
        if (text.size() > limit_bytes)
            throw FormatError(in.name() + ": more than " + std::to_string(limit_bytes) + " bytes; " + what +
                              " is read whole and must be smaller");
    }
    return text;
}

void InputStream::read_exact(void* data, std::size_t bytes, const char* what) {
    std::size_t got = read_some(data, bytes);
    if (got != bytes)
        throw FormatError(name() + ": truncated at byte " + std::to_string(position()) + " (reading " + what + ")");
}

}  // namespace partikel
