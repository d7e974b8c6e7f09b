#include "base/io.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
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

std::string make_temp_path(const std::string& final_path) {
    static std::atomic<unsigned> counter{0};
    auto slash = final_path.find_last_of('/');
    std::string dir = slash == std::string::npos ? "" : final_path.substr(0, slash + 1);
    std::string base = slash == std::string::npos ? final_path : final_path.substr(slash + 1);
    return dir + "." + base + ".partikel-tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
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

TempFile::TempFile(std::string final_path) : final_path_(std::move(final_path)) {
    temp_path_ = make_temp_path(final_path_);
    slot_ = register_temp(temp_path_);
}

TempFile::~TempFile() {
    if (!committed_) unlink(temp_path_.c_str());
    unregister_temp(slot_);
}

void TempFile::commit() {
    if (committed_) return;
    if (rename(temp_path_.c_str(), final_path_.c_str()) != 0) throw IoError(errno_text("cannot rename into place", final_path_));
    committed_ = true;
    unregister_temp(slot_);
    slot_ = -1;
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
    FdOutput(int fd, std::string name, std::unique_ptr<TempFile> temp)
        : fd_(fd), name_(std::move(name)), temp_(std::move(temp)) { buffer_.reserve(kBuffer); }
    ~FdOutput() override {
        if (temp_ && fd_ >= 0) ::close(fd_);
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
        if (temp_) {
            if (::fsync(fd_) != 0 && errno != EINVAL) throw IoError(errno_text("fsync failed", name_));
            if (::close(fd_) != 0) throw IoError(errno_text("close failed", name_));
            fd_ = -1;
            temp_->commit();
        }
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
        return std::make_unique<FdOutput>(STDOUT_FILENO, "<stdout>", nullptr);
    }
    auto temp = std::make_unique<TempFile>(path);
    int fd = ::open(temp->path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw IoError(errno_text("cannot create", path));
    return std::make_unique<FdOutput>(fd, path, std::move(temp));
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

void InputStream::read_exact(void* data, std::size_t bytes, const char* what) {
    std::size_t got = read_some(data, bytes);
    if (got != bytes)
        throw FormatError(name() + ": truncated at byte " + std::to_string(position()) + " (reading " + what + ")");
}

}  // namespace partikel
