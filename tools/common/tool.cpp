#include "common/tool.hpp"

#include <omp.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <new>
#include <sstream>

#include "base/error.hpp"
#include "base/io.hpp"
#include "common/number_checks.hpp"
#include "partikel_config.hpp"
#if PARTIKEL_HAVE_CUDA
#include "core/cuda/runtime.hpp"
#endif

namespace partikel::tools {

namespace {
bool valid_device_spec(const std::string& spec) {
    return spec == "auto" || spec == "cpu" || spec == "cuda" ||
           (spec.size() > 5 && spec.starts_with("cuda:") && spec.find_first_not_of("0123456789", 5) == std::string::npos);
}

std::string one_line(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

// CLI11's TOML reader, made strict: CLI11 skips unknown keys and reads any line without '=' as
// a flag set to true, so a misspelt key (`alpah = 0.5`) or a file of random bytes would run with
// defaults. Every line must be blank, a comment or `flag = value` naming an option of the program.
class StrictConfig : public CLI::ConfigBase {
public:
    explicit StrictConfig(const CLI::App& app) : app_(app) {}

    std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
        const std::string text{std::istreambuf_iterator<char>(input), std::istreambuf_iterator<char>()};
        std::istringstream lines(text);
        std::string line;
        for (int number = 1; std::getline(lines, line); ++number) check_line(line, number);
        std::istringstream again(text);
        return CLI::ConfigBase::from_config(again);
    }

private:
    [[noreturn]] void fail(int line, const std::string& what) const {
        throw CLI::ConfigError(file_name() + ":" + std::to_string(line) + ": " + what);
    }
    // The file being read: --config's value (CLI11 does not pass it to the reader).
    std::string file_name() const {
        const CLI::Option* config = app_.get_config_ptr();
        const auto& given = config ? config->results() : CLI::results_t{};
        return given.size() == 1 ? given.front() : std::string("--config file");
    }
    bool known(const std::string& key) const {
        const CLI::Option* option = app_.get_option_no_throw("--" + key);
        if (!option && key.size() == 1) option = app_.get_option_no_throw("-" + key);
        if (!option) option = app_.get_option_no_throw(key);
        return option && option != app_.get_config_ptr() && option != app_.get_help_ptr() &&
               option->get_configurable();
    }
    void check_line(std::string line, int number) const {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        for (const unsigned char c : line)
            if ((c < 0x20 && c != '\t') || c == 0x7f) fail(number, "not a text line (control byte " + std::to_string(c) + ")");
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#' || line[first] == ';') return;
        const auto equals = line.find('=');
        if (equals == std::string::npos) fail(number, "expected 'flag = value', got '" + line.substr(first) + "'");
        std::string key = line.substr(first, equals - first);
        key.erase(key.find_last_not_of(" \t") + 1);
        if (key.empty()) fail(number, "no flag name before '='");
        if (!known(key)) fail(number, "unknown flag '" + key + "'");
        if (line.find_first_not_of(" \t", equals + 1) == std::string::npos) fail(number, "no value for '" + key + "'");
    }

    const CLI::App& app_;
};
}  // namespace

void refuse_terminal_stdin(const std::string& path) {
    if (path == "-" && isatty(STDIN_FILENO))
        throw UsageError("refusing to read particle data from a terminal (give a file, or redirect stdin)");
}

void Tool::write_frame(const fmt::Frame& frame) const {
    fmt::WriterOptions options;
    options.force = options_.force;
    auto writer = fmt::open_writer(options_.output, options);
    writer->write(frame);
    writer->finish();
}

std::string version_text(const std::string& program) {
    std::string out = program + " (Partikel) " PARTIKEL_VERSION "\ncommit: " PARTIKEL_GIT_COMMIT "\n";
    out += "backends: cpu (OpenMP, " + std::to_string(omp_get_max_threads()) + " threads)";
#if PARTIKEL_HAVE_CUDA
    out += ", cuda (built for sm_" PARTIKEL_CUDA_ARCHITECTURES "; " + cuda_rt::runtime_version() + ")\n";
#else
    out += "; cuda not built\n";
#endif
    out += std::string("ranks: ") + (dist::mpi_compiled() ? "MPI" : "one (built without MPI)") +
           (dist::nccl_compiled() ? ", NCCL for GPU buffers" : "") + "\n";
    auto gpus = cuda_devices();
    if (gpus.empty()) {
        out += "gpu: none (" + cuda_unavailable_reason() + ")\n";
    } else {
        for (const auto& g : gpus)
            out += "gpu: cuda:" + std::to_string(g.index) + " " + g.name + " (sm_" + std::to_string(g.compute_major) +
                   std::to_string(g.compute_minor) + ", " + std::to_string(g.multiprocessors) + " SMs, " +
                   std::to_string(g.total_memory_bytes >> 20) + " MiB)\n";
    }
    return out;
}

Tool::Tool(std::string name, std::string description)
    : name_(std::move(name)), app_(std::move(description), name_), log_(name_) {
    app_.get_formatter()->column_width(30);
    app_.set_help_flag("-h,--help", "Print this help and exit");
    app_.add_flag_callback("--version", [this] {
        print_version();
        throw CLI::Success();
    }, "Print version, commit, backends and GPU, then exit");
    app_.set_config("--config", "", "Read options from a TOML/INI file (flag = value per line)");
    app_.config_formatter(std::make_shared<StrictConfig>(app_));
    app_.add_flag("-q,--quiet", options_.quiet, "Only errors on stderr");
    app_.add_flag("-v,--verbose", options_.verbose, "Debug messages on stderr");
    app_.add_flag("--progress", options_.progress, "Show progress on stderr even when it is not a terminal");
    app_.add_option("--log-format", options_.log_format, "Log lines as text or json")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
}

void Tool::add_common(unsigned flags) {
    if (flags & kInput) app_.add_option("-i,--input", options_.input, "Input file ('-': stdin)")->capture_default_str();
    if (flags & kOutput) {
        app_.add_option("-o,--output", options_.output, "Output file ('-': stdout)")->capture_default_str();
        app_.add_flag("-f,--force", options_.force, "Write binary data even to a terminal");
    }
    if (flags & kDevice) {
        // Checked while parsing, so a bad value is a usage error before any input is read.
        CLI::Validator device_spec(
            [](std::string& spec) -> std::string {
                return valid_device_spec(spec) ? std::string() : "expected auto, cpu, cuda or cuda:N, got '" + spec + "'";
            },
            "DEVICE");
        app_.add_option("--device", options_.device, "auto, cpu, cuda or cuda:N (default: $PARTIKEL_DEVICE, else auto)")
            ->check(device_spec)
            ->capture_default_str();
        uses_device_ = true;
    }
    if (flags & kThreads)
        app_.add_option("--threads", options_.threads, "CPU threads (0: all cores)")
            ->check(number_in(0, kMaxThreads))
            ->capture_default_str();
    if (flags & kSeed) app_.add_option("--seed", options_.seed, "Random seed")->capture_default_str();
    if (flags & kProfile) app_.add_flag("--profile", options_.profile, "Print a per-phase time summary on stderr");
}

void Tool::print_version() const { std::fputs(version_text(name_).c_str(), stdout); }

dist::Communicator Tool::join_ranks() {
    ranks_ = dist::Communicator::world();
    if (!ranks_->root()) log_.set_level(LogLevel::quiet);
    return *ranks_;
}

Backend Tool::open_backend() {
    // Several ranks on a host: a GPU each, or a share of the cores each.
    std::string device = options_.device;
    int threads = options_.threads;
    if (ranks_ && ranks_->size() > 1) {
        const auto gpus = cuda_devices();
        if ((device == "auto" || device == "cuda") && !gpus.empty())
            device = "cuda:" + std::to_string(ranks_->local_rank() % int(gpus.size()));
        if (threads == 0) threads = std::max(1, omp_get_num_procs() / std::max(1, ranks_->local_size()));
    }
    const auto select = [&] {
        try {
            return select_backend(device, threads, &log_);
        } catch (const DeviceError& e) {
            // "--device cuda: no such GPU" would blame a flag nobody typed.
            const std::string message = e.what();
            if (!device_from_environment_ || !message.starts_with("--device")) throw;
            throw DeviceError("PARTIKEL_DEVICE=" + options_.device + message.substr(message.find(": ")));
        }
    };
    Backend backend = select();
    log_.debug("device: " + backend.describe());
    return backend;
}

Progress Tool::progress(std::string label, double total, std::string unit) {
    bool enabled = !options_.quiet && (options_.progress || stderr_is_terminal());
    // Without a bar, a line every 30 s (unless --quiet), so that piped runs are never silent.
    return Progress(log_, std::move(label), total, std::move(unit), enabled, options_.quiet ? 0.0 : 30.0);
}

int Tool::run(int argc, char** argv, const std::function<int(Tool&)>& body) {
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    return run(std::move(args), body);
}

int Tool::run(std::vector<std::string> args, const std::function<int(Tool&)>& body) {
    install_signal_cleanup();
    command_line_ = name_;
    for (const auto& a : args) command_line_ += " " + a;
    // PARTIKEL_DEVICE sets --device's default; the flag wins. A bad value is a usage error, found
    // before anything else is parsed.
    const bool device_flag = std::any_of(args.begin(), args.end(), [](const std::string& a) {
        return a == "--device" || a.starts_with("--device=");
    });
    if (uses_device_ && !device_flag) {
        if (const char* env = std::getenv("PARTIKEL_DEVICE"); env && *env) {
            if (!valid_device_spec(env)) {
                std::fprintf(stderr, "%s: error: PARTIKEL_DEVICE: expected auto, cpu, cuda or cuda:N, got '%s'\n",
                             name_.c_str(), env);
                return kExitUsage;
            }
            options_.device = env;
            device_from_environment_ = true;
        }
    }
    // No numeric flag of any program takes NaN, infinity or a number beyond its type (checked
    // after the program's own bounds, which reject NaN and infinity too).
    for (CLI::Option* option : app_.get_options()) {
        std::string type = option->get_type_name();
        if (type.starts_with("[")) type.erase(0, 1);   // std::array options: "[FLOAT,FLOAT,FLOAT]"
        if (type.starts_with("FLOAT"))
            option->check(finite_number());
        else if (type.starts_with("INT") || type.starts_with("UINT"))
            option->check(whole_number(type.starts_with("UINT")));
    }
    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
        app_.parse(reversed);
    } catch (const CLI::Success& e) {
        return app_.exit(e);
    } catch (const CLI::ParseError& e) {
        // One line. A bound's "--dx: must be > 0 (got -1)" reads "--dx must be > 0 (got -1)".
        std::string message = one_line(e.what());
        if (const auto at = message.find(": must be "); dynamic_cast<const CLI::ValidationError*>(&e) &&
                                                        at != std::string::npos)
            message.erase(at, 1);
        std::fprintf(stderr, "%s: error: %s (see %s --help)\n", name_.c_str(), message.c_str(), name_.c_str());
        return kExitUsage;
    }
    log_.set_format(options_.log_format == "json" ? LogFormat::json : LogFormat::text);
    // --threads, once for the whole program: OpenMP loops, the CPU backend and the stream codec.
    if (options_.threads > 0) omp_set_num_threads(options_.threads);
    log_.set_level(options_.quiet ? LogLevel::error : options_.verbose ? LogLevel::debug : LogLevel::info);
    try {
        const int status = body(*this);
        check_stdout();  // a report cut short by a full disk is an error, not a success
        return status;
    } catch (...) {
        if (ranks_ && ranks_->size() > 1) return end_ranks(std::current_exception());
        return report(std::current_exception());
    }
}

int Tool::end_ranks(std::exception_ptr error) {
    // The failure every rank reports: this rank's (sent to the others now) or one they know.
    const dist::Failure failure = ranks_->fail(error);
    if (failure.kind == dist::FailureKind::broken_pipe) return 128 + 13;
    if (ranks_->root()) log_.error(one_line(failure.describe(ranks_->size())));
    if (failure.kind == dist::FailureKind::usage) return failure_exit_code_ == kExitFailure ? kExitUsage : failure_exit_code_;
    return failure_exit_code_;
}

int Tool::report(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const UsageError& e) {
        log_.error(one_line(e.what()));
        return failure_exit_code_ == kExitFailure ? kExitUsage : failure_exit_code_;
    } catch (const BrokenPipe&) {
        log_.debug("output pipe closed by the reader; stopping");
        return 128 + 13;  // as if killed by SIGPIPE, without the noise
    } catch (const Error& e) {
        log_.error(one_line(e.what()));
        return failure_exit_code_;
    } catch (const std::bad_alloc&) {
        log_.error("out of host memory");
        return failure_exit_code_;
    } catch (const std::exception& e) {
        log_.error("internal error: " + one_line(e.what()));
        return failure_exit_code_;
    }
}

}  // namespace partikel::tools
