// The conventions every Partikel program shares, on CLI11: common flags spelled the same
// everywhere, --version, --config, logging, device selection, exit codes, signals.
//
//   int main(int argc, char** argv) {
//       partikel::tools::Tool tool("particle-info", "Describe particle files");
//       tool.add_common(partikel::tools::kInput | partikel::tools::kThreads);
//       tool.app().add_flag("--json", json, "machine-readable output");
//       return tool.run(argc, argv, [&](Tool& t) { ...; return 0; });
//   }
//
// Exit codes: 0 ok, 1 runtime error, 2 usage error, 130/143 interrupted, 141 broken pipe.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "base/io.hpp"
#include "base/log.hpp"
#include "dist/communicator.hpp"
#include "base/progress.hpp"
#include "formats/reader.hpp"

namespace partikel::tools {

enum CommonFlag : unsigned {
    kInput = 1u << 0,     // -i/--input (default "-": stdin)
    kOutput = 1u << 1,    // -o/--output (default "-": stdout), --force
    kDevice = 1u << 2,    // --device auto|cpu|cuda|cuda:N
    kThreads = 1u << 3,   // --threads N
    kSeed = 1u << 4,      // --seed N
    kProfile = 1u << 5,   // --profile
};

struct CommonOptions {
    std::string input = "-";
    std::string output = "-";
    std::string device = "auto";
    int threads = 0;
    std::uint64_t seed = 1;
    bool quiet = false;
    bool verbose = false;
    bool progress = false;
    bool force = false;
    bool profile = false;
    std::string log_format = "text";
};

enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2 };

// "1 frame", "3 frames": a count and its noun, for messages.
std::string counted(std::uint64_t n, const std::string& noun);

class Tool {
public:
    Tool(std::string name, std::string description);

    CLI::App& app() { return app_; }
    CommonOptions& options() { return options_; }
    const std::string& name() const { return name_; }
    Log& log() { return log_; }

    // Add the shared flags selected by `flags` (a CommonFlag mask). --quiet, --verbose,
    // --progress, --log-format, --config and --version are always present.
    void add_common(unsigned flags);

    // Options naming files. Tool::run compares every file the program reads and writes after
    // parsing, before the body runs (check_distinct_files, base/io.hpp): an output naming the
    // same file as another output or as an input is a usage error before anything is written.
    // --config, -i/--input (fmt::read_files) and -o/--output (fmt::written_files) are registered
    // by the constructor and add_common; every other option naming a file goes through these.
    // `files` says which files a value stands for (default: the value itself).
    using FilesOf = std::function<std::vector<NamedFile>(const std::string& flag, const std::string& value)>;
    CLI::Option* add_input(const std::string& names, std::string& path, const std::string& description,
                           FilesOf files = {});
    CLI::Option* add_output(const std::string& names, std::string& path, const std::string& description,
                            FilesOf files = {});
    // What -i/--input and -o/--output stand for when it is not what fmt::open_reader reads and
    // fmt::open_writer writes with its default options (a table, a report, writer options of
    // the program's own, or nothing when a positional argument takes their place).
    void set_input_files(FilesOf files) { input_files_ = std::move(files); }
    void set_output_files(FilesOf files) { output_files_ = std::move(files); }

    // Exit status used for runtime errors (default 1; compare-results uses 2 for "trouble").
    void set_failure_exit_code(int code) { failure_exit_code_ = code; }

    // The ranks of this run (dist::Communicator::world(): one unless started by mpirun), for a
    // program that spreads its work over them. From then on only rank 0 logs and prints the
    // error that ends the program (the failing rank's, "rank R: ...", on every rank's exit
    // status); open_backend() gives each rank a GPU of its host (cuda:local_rank) and, on the
    // CPU without --threads, its share of the cores.
    dist::Communicator join_ranks();
    // The backend from --device and --threads; "auto" without a GPU logs a one-line note.
    Backend open_backend();
    // A progress display honouring --progress/--quiet and whether stderr is a terminal.
    Progress progress(std::string label, double total, std::string rate_unit);
    // The one line a successful run ends with on stderr (info: --quiet hides it), where the
    // progress display leaves none: what it did, "in" the wall time since the start.
    void summary(const std::string& what);
    // The command line as typed (for provenance attributes).
    const std::string& command_line() const { return command_line_; }
    // Write one frame to -o/--output (honouring --force): what an initial-condition program ends with.
    void write_frame(const fmt::Frame& frame) const;

    // Parse, configure logging, run `body`, and map every failure to a message and exit code.
    int run(int argc, char** argv, const std::function<int(Tool&)>& body);
    int run(std::vector<std::string> args, const std::function<int(Tool&)>& body);

private:
    void print_version() const;
    // The exit status and the one line on stderr for a failure: of this process alone, or of
    // one rank of several (only rank 0 prints).
    int report(std::exception_ptr error);
    int end_ranks(std::exception_ptr error);

    std::string name_;
    CLI::App app_;
    CommonOptions options_;
    Log log_;
    std::string command_line_;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    struct FileOption {
        std::string flag;
        const std::string* value;
        bool output;
        FilesOf files;
    };
    std::vector<FileOption> files_;
    FilesOf input_files_, output_files_;
    void check_files() const;
    int failure_exit_code_ = kExitFailure;
    bool show_version_ = false;
    bool uses_device_ = false;  // the program has --device (and so honours PARTIKEL_DEVICE)
    bool device_from_environment_ = false;  // --device's value came from PARTIKEL_DEVICE
    std::optional<dist::Communicator> ranks_;  // join_ranks()
};

// Programs reading particles from `path` call this first: "-" on a terminal is a usage error
// with a hint, never a silent wait for typed binary data.
void refuse_terminal_stdin(const std::string& path);

// Version text: version, git commit, backends compiled in, GPU found.
std::string version_text(const std::string& program);

}  // namespace partikel::tools
