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

extern "C" void remove_temps_and_exit(int signal_number) {
    if (g_graceful.load() && g_interrupt_signal == 0) {
        g_interrupt_signal = signal_number;  // the program stops at its next safe point
        return;
    }
    for (int i = 0; i < kSlots; ++i)
        if (g_slot_used[i].load()) unlink(g_temp_paths[i]);
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
    int fd = ::open(target.path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw IoError(errno_text("cannot open for writing", shown));
    return fd;
}

}  // namespace

void set_graceful_interrupts(bool enabled) {
    if (enabled) g_interrupt_signal = 0;  // a new run starts: an earlier run's interrupt is handled
    g_graceful.store(enabled);
}
int interrupt_signal() { return static_cast<int>(g_interrupt_signal); }

void install_signal_cleanup() {
    struct sigaction action {};
    action.sa_handler = remove_temps_and_exit;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    // A closed downstream pipe becomes EPIPE on write, then BrokenPipe: a quiet exit.
    signal(SIGPIPE, SIG_IGN);
}

OutputTarget resolve_output(const std::string& path) {
    OutputTarget target;
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

TempFile::TempFile(std::string final_path) : final_path_(std::move(final_path)), target_(resolve_output(final_path_)) {
    if (target_.kind == OutputTarget::Kind::file) {
        temp_path_ = unused_name(temporary_name(target_.path));
    } else {
        const char* tmpdir = std::getenv("TMPDIR");
        const std::string dir = tmpdir && *tmpdir ? tmpdir : "/tmp";
        temp_path_ = unused_name(dir + "/partikel-tmp-" + std::to_string(getpid()) + "-" + base_of(target_.path));
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
