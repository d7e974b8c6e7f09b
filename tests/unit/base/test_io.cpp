#include <doctest/doctest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "base/error.hpp"
#include "base/io.hpp"

using namespace partikel;

namespace {
bool exists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
}
std::string temp_dir() {
    char tmpl[] = "/tmp/partikel-io-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    return tmpl;
}
}  // namespace

TEST_CASE("core.io output appears under its name only after commit") {
    std::string dir = temp_dir();
    std::string path = dir + "/out.bin";
    {
        auto out = OutputStream::open(path);
        out->write("hello", 5);
        out->flush();
        CHECK(!exists(path));
        out->commit();
        CHECK(out->position() == 5);
    }
    CHECK(exists(path));
    {
        auto out = OutputStream::open(dir + "/abandoned.bin");
        out->write("partial", 7);
        out->flush();
    }  // destroyed uncommitted: no file, no temporary left behind
    CHECK(!exists(dir + "/abandoned.bin"));
    CHECK(std::system(("test -z \"$(ls -A " + dir + " | grep -v '^out.bin$')\"").c_str()) == 0);
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("core.io input reads, peeks and reports truncation with the file name") {
    std::string dir = temp_dir();
    std::string path = dir + "/in.bin";
    std::ofstream(path) << "abcdef";
    auto in = InputStream::open(path);
    char buf[8] = {};
    CHECK(in->peek(buf, 3) == 3);
    CHECK(std::string(buf, 3) == "abc");
    CHECK(in->read_some(buf, 2) == 2);
    CHECK(std::string(buf, 2) == "ab");
    CHECK(in->is_regular_file());
    CHECK(in->size() == 6);
    try {
        in->read_exact(buf, 8, "frame header");
        FAIL("expected a FormatError");
    } catch (const FormatError& e) {
        CHECK(std::string(e.what()).find(path) != std::string::npos);
        CHECK(std::string(e.what()).find("frame header") != std::string::npos);
    }
    CHECK_THROWS_AS(InputStream::open(dir + "/missing"), IoError);
    CHECK_THROWS_AS(InputStream::open(dir), IoError);
    CHECK_THROWS_AS(OutputStream::open(dir + "/no/such/dir/x"), IoError);
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("core.io TempFile renames on commit and cleans up otherwise") {
    std::string dir = temp_dir();
    std::string tmp_path;
    {
        TempFile t(dir + "/a.h5");
        tmp_path = t.path();
        std::ofstream(t.path()) << "x";
        CHECK(exists(tmp_path));
    }
    CHECK(!exists(tmp_path));
    {
        TempFile t(dir + "/b.h5");
        std::ofstream(t.path()) << "x";
        t.commit();
    }
    CHECK(exists(dir + "/b.h5"));
    std::system(("rm -rf " + dir).c_str());
}

namespace {
std::string contents(const std::string& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_through(const std::string& path, const std::string& text) {
    auto out = OutputStream::open(path, false);
    out->write(text.data(), text.size());
    out->commit();
}
bool is_link(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}
}  // namespace

TEST_CASE("core.io a symbolic link is followed: its target is replaced, the link stays") {
    std::string dir = temp_dir();
    write_through(dir + "/real.txt", "old");
    REQUIRE(::chmod((dir + "/real.txt").c_str(), 0600) == 0);
    REQUIRE(::symlink("real.txt", (dir + "/link.txt").c_str()) == 0);
    CHECK(temporary_name(dir + "/real.txt") == dir + "/.real.txt.partikel-tmp-" + std::to_string(getpid()));
    {
        auto out = OutputStream::open(dir + "/link.txt", false);
        out->write("new", 3);
        // The temporary sits next to the target, under the target's name.
        CHECK(exists(temporary_name(dir + "/real.txt")));
        out->commit();
    }
    CHECK(is_link(dir + "/link.txt"));
    CHECK(contents(dir + "/real.txt") == "new");
    struct stat st {};
    REQUIRE(::stat((dir + "/real.txt").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);  // the replaced file's permissions are kept
    // A dangling link: the file it names is created.
    REQUIRE(::symlink("made.txt", (dir + "/dangling.txt").c_str()) == 0);
    write_through(dir + "/dangling.txt", "made");
    CHECK(is_link(dir + "/dangling.txt"));
    CHECK(contents(dir + "/made.txt") == "made");
    // TempFile (HDF5, EXR) follows links the same way.
    {
        TempFile t(dir + "/link.txt");
        std::ofstream(t.path()) << "via temp";
        t.commit();
    }
    CHECK(is_link(dir + "/link.txt"));
    CHECK(contents(dir + "/real.txt") == "via temp");
    REQUIRE(::symlink("loop2", (dir + "/loop1").c_str()) == 0);
    REQUIRE(::symlink("loop1", (dir + "/loop2").c_str()) == 0);
    CHECK_THROWS_AS(OutputStream::open(dir + "/loop1"), IoError);
    CHECK_THROWS_AS(OutputStream::open(dir), IoError);
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("core.io a FIFO is written directly, in order, with no temporary; its reader gets every byte") {
    std::string dir = temp_dir();
    const std::string fifo = dir + "/pipe";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::string got;
    std::thread reader([&] { got = contents(fifo); });
    {
        auto out = OutputStream::open(fifo, false);
        const std::string big(3 << 20, 'x');  // past the output buffer and the pipe's
        out->write(big.data(), big.size());
        out->write("end", 3);
        out->commit();
    }
    reader.join();
    CHECK(got.size() == (3u << 20) + 3);
    CHECK(got.ends_with("xend"));
    struct stat st {};
    REQUIRE(::lstat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));  // still the FIFO, not a file renamed over it
    // HDF5 and EXR need a seekable file: TempFile writes one in $TMPDIR and copies it to the FIFO.
    std::thread reader2([&] { got = contents(fifo); });
    {
        TempFile t(fifo);
        CHECK(t.path().find(dir) == std::string::npos);
        std::ofstream(t.path()) << "whole file";
        t.commit();
        CHECK(!exists(t.path()));
    }
    reader2.join();
    CHECK(got == "whole file");
    REQUIRE(::lstat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("core.io a character device is written directly; a full one is an IoError naming ENOSPC") {
    // /dev/zero swallows writes; /dev/full fails them with ENOSPC (never /dev/null: see
    // docs/ARCHITECTURE.md on why the real /dev/null must not be a test's output).
    {
        auto out = OutputStream::open("/dev/zero", false);
        out->write("abc", 3);
        out->commit();
    }
    struct stat st {};
    REQUIRE(::lstat("/dev/zero", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    auto full = OutputStream::open("/dev/full", false);
    full->write("abc", 3);
    CHECK_THROWS_WITH_AS(full->commit(), doctest::Contains("/dev/full: write failed: No space left on device"), IoError);
    REQUIRE(::lstat("/dev/full", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    TempFile t("/dev/full");
    std::ofstream(t.path()) << "x";
    CHECK_THROWS_WITH_AS(t.commit(), doctest::Contains("No space left on device"), IoError);
}

TEST_CASE("core.io a file that outgrows its limit (EFBIG, as a full disk) fails on write, leaving nothing") {
    std::string dir = temp_dir();
    const std::string path = dir + "/big.bin";
    write_through(path, "previous");
    // A child process with RLIMIT_FSIZE and SIGXFSZ ignored: writes past 64 KiB fail with EFBIG.
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit {65536, 65536};
        setrlimit(RLIMIT_FSIZE, &limit);
        try {
            auto out = OutputStream::open(path, false);
            const std::string block(1 << 20, 'x');
            out->write(block.data(), block.size());
            out->commit();
        } catch (const IoError& e) {
            _exit(std::string(e.what()).find("big.bin: write failed: File too large") != std::string::npos ? 3 : 4);
        }
        _exit(5);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 3);
    CHECK(contents(path) == "previous");  // the file that was there is untouched
    CHECK(!exists(dir + "/.big.bin.partikel-tmp-" + std::to_string(child)));
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("core.io abandoned temporaries are those of processes no longer running") {
    std::string dir = temp_dir();
    const std::string mine = temporary_name(dir + "/run.pks");
    std::ofstream(mine) << "x";
    std::ofstream(dir + "/.run.pks.partikel-tmp-999999999") << "x";  // above pid_max: gone
    const auto left = abandoned_temporaries(dir + "/run.pks");
    REQUIRE(left.size() == 1);
    CHECK(left[0] == dir + "/.run.pks.partikel-tmp-999999999");
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("core.io a Unix socket is connected to and written directly") {
    std::string dir = temp_dir();
    const std::string path = dir + "/sock";
    const int server = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(server >= 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
    REQUIRE(::bind(server, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(server, 1) == 0);
    std::string got;
    std::thread reader([&] {
        const int peer = ::accept(server, nullptr, nullptr);
        char buf[4096];
        for (ssize_t n; (n = ::read(peer, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
        ::close(peer);
    });
    write_through(path, "over the socket");
    reader.join();
    ::close(server);
    CHECK(got == "over the socket");
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    CHECK(S_ISSOCK(st.st_mode));
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("core.io check_distinct_files: one file by any name is refused, different files pass") {
    const std::string dir = temp_dir();
    std::ofstream(dir + "/in.pks") << "data";
    std::ofstream(dir + "/other.pks") << "data";
    REQUIRE(::symlink("in.pks", (dir + "/link.pks").c_str()) == 0);
    REQUIRE(::link((dir + "/in.pks").c_str(), (dir + "/hard.pks").c_str()) == 0);
    const auto file = [](std::string flag, std::string path) { return NamedFile{std::move(flag), std::move(path), std::nullopt}; };
    for (const std::string& name : {dir + "/in.pks", dir + "/./in.pks", dir + "/link.pks", dir + "/hard.pks"})
        CHECK_THROWS_WITH_AS(check_distinct_files({file("--input", dir + "/in.pks")}, {file("--output", name)}),
                             doctest::Contains("--output must name another file than the input --input"), UsageError);
    CHECK_NOTHROW(check_distinct_files({file("--input", dir + "/in.pks")}, {file("--output", dir + "/other.pks")}));
    // Two outputs, before either exists; a dangling link to the other's path.
    REQUIRE(::symlink("new.pks", (dir + "/dangling.pks").c_str()) == 0);
    for (const std::string& name : {dir + "/./new.pks", dir + "/dangling.pks"})
        CHECK_THROWS_WITH_AS(check_distinct_files({}, {file("--output", dir + "/new.pks"), file("--diag", name)}),
                             doctest::Contains("--diag must name another file than --output"), UsageError);
    // The files one flag stands for (a side file) are not compared with each other; devices may repeat.
    CHECK_NOTHROW(check_distinct_files({}, {file("--output", dir + "/new.pks"), file("--output", dir + "/new.xmf")}));
    CHECK_NOTHROW(check_distinct_files({file("--input", "/dev/null")}, {file("--output", "/dev/null"), file("--diag", "/dev/null")}));
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("core.io check_distinct_files: a numbered series is compared file by file, up front") {
    const std::string dir = temp_dir();
    std::ofstream(dir + "/f_0003.exr") << "an input";
    std::ofstream(dir + "/f_3.exr") << "not of the series (no padding)";
    const auto padded = [](std::int64_t n) {
        char text[32];
        std::snprintf(text, sizeof text, "%04lld", static_cast<long long>(n));
        return std::string(text);
    };
    const NamedFile series{"--output", dir + "/f_%04d.exr", NamedFile::Series{dir + "/f_", ".exr", padded}};
    const std::string shown = "f_0003.exr (of " + dir + "/f_%04d.exr)";
    CHECK_THROWS_WITH_AS(check_distinct_files({{"--environment", dir + "/f_0003.exr", std::nullopt}}, {series}),
                         doctest::Contains(shown.c_str()), UsageError);
    CHECK_NOTHROW(check_distinct_files({{"--environment", dir + "/f_3.exr", std::nullopt}}, {series}));
    // A new path another output would create as one of the series' files.
    CHECK_THROWS_AS(check_distinct_files({}, {series, {"--diag", dir + "/f_0042.exr", std::nullopt}}), UsageError);
    CHECK_NOTHROW(check_distinct_files({}, {series, {"--diag", dir + "/f_42.exr", std::nullopt}}));
    std::system(("rm -rf " + dir).c_str());
}
