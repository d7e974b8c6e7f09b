#include "common/tool.hpp"

#include <omp.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <sstream>
#include <string_view>

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

// A message as one line of readable length: whatever a library echoes (a field of a damaged
// file, a line of a config file), the user gets its start and its length.
std::string one_line(std::string text) {
    constexpr std::size_t kMostShown = 600;
    if (text.size() > kMostShown)
        text = text.substr(0, kMostShown) + "... (message cut at " + std::to_string(kMostShown) + " of " +
               std::to_string(text.size()) + " bytes)";
    for (char& c : text)
        if (c == '\n' || c == '\r' || c == '\0') c = ' ';
    return text;
}

// Words of `text` in lines of at most `width` characters (a longer word gets a line of its own).
std::string wrap_words(const std::string& text, std::size_t width) {
    std::string out, line;
    std::istringstream words(text);
    for (std::string word; words >> word;) {
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += line + '\n';
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    return out + line;
}

// `line` in pieces of at most `width` columns, broken at the last of `breaks` that fits (a space
// is dropped, any other break character ends its piece), every piece but the last ending with
// `suffix` and every piece after the first starting with `indent`; a piece with no break that
// fits stays whole.
std::string break_line(std::string line, std::size_t width, const std::string& indent, const std::string& suffix,
                       std::string_view breaks) {
    std::string out;
    while (line.size() > width) {
        const std::size_t first = line.find_first_not_of(' ');  // never break inside the indent
        std::size_t end = std::string::npos;  // of the piece
        for (std::size_t i = first + 1; i < line.size() && i < width; ++i) {
            const std::size_t piece = line[i] == ' ' ? i : i + 1;
            if (breaks.find(line[i]) != std::string_view::npos && piece + suffix.size() <= width) end = piece;
        }
        if (end == std::string::npos) break;
        out += line.substr(0, end) + suffix + '\n';
        line = indent + line.substr(line[end] == ' ' ? end + 1 : end);
    }
    return out + line;
}

// --help in lines of at most help_columns(): CLI11 2.1 pads the option names to a column but
// does not wrap, so option descriptions are wrapped beside that column and the program's
// description is reflowed (its indented lines, examples, kept as written).
class HelpFormatter : public CLI::Formatter {
public:
    explicit HelpFormatter(std::size_t columns) : columns_(columns) { column_width(kNameColumn); }

    // An option's names and value (`--colormap TEXT:{viridis,...}=viridis`) wider than the
    // terminal: continued on indented lines after a comma or space (the description then starts
    // on a line of its own, as CLI11 places it after any long name).
    std::string make_option(const CLI::Option* option, bool positional) const override {
        std::stringstream out;
        const std::string name = make_option_name(option, positional) + make_option_opts(option);
        // CLI11 writes two spaces before the name.
        CLI::detail::format_help(out, break_line(name, columns_ - 2, std::string(4, ' '), "", ", "),
                                 make_option_desc(option), column_width_);
        return out.str();
    }

    std::string make_option_desc(const CLI::Option* option) const override {
        std::string out;
        std::istringstream lines(option->get_description());
        for (std::string line; std::getline(lines, line);)
            out += (out.empty() ? "" : "\n") + wrap_words(line, columns_ - kNameColumn);
        return out;
    }

    std::string make_description(const CLI::App* app) const override {
        std::string out, paragraph;
        const auto flush = [&] {
            if (!paragraph.empty()) out += wrap_words(paragraph, columns_) + '\n';
            paragraph.clear();
        };
        std::istringstream lines(app->get_description());
        for (std::string line; std::getline(lines, line);) {
            if (line.empty() || line.front() == ' ') {
                // An indented line (an example command) is kept, continued shell-style where
                // it is wider than the terminal.
                flush();
                const std::size_t depth = line.empty() ? 0 : line.find_first_not_of(' ');
                out += break_line(line, columns_, std::string(depth + 2, ' '), " \\", " ") + '\n';
            } else {
                paragraph += (paragraph.empty() ? "" : " ") + line;
            }
        }
        flush();
        return out;
    }

private:
    static constexpr std::size_t kNameColumn = 30;
    std::size_t columns_;
};

// The width --help fills: $COLUMNS where it is set (shells set it without exporting it, so a
// terminal's width otherwise), else 80; at least 50, so that descriptions keep 20 columns.
std::size_t help_columns() {
    std::size_t columns = 80;
    if (const char* text = std::getenv("COLUMNS")) {
        std::size_t value = 0;
        const auto [end, ec] = std::from_chars(text, text + std::strlen(text), value);
        if (ec == std::errc{} && *end == '\0' && value > 0) columns = value;
    } else if (::isatty(STDOUT_FILENO)) {
        winsize size{};
        if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) columns = size.ws_col;
    }
    return std::max<std::size_t>(columns, 50);
}

// The option a CLI11 message is about: the longest option name (or positional) it contains.
const CLI::Option* option_in(const std::string& message, const CLI::App& app) {
    const CLI::Option* found = nullptr;
    std::size_t longest = 0;
    for (const CLI::Option* option : app.get_options()) {
        const std::string name = option->get_name();
        if (name.size() <= longest || name.empty()) continue;
        const auto at = message.find(name);
        // A whole name: "--dx" is not the option of "--dx-max".
        if (at == std::string::npos) continue;
        const char after = at + name.size() < message.size() ? message[at + name.size()] : ' ';
        if (std::isalnum(static_cast<unsigned char>(after)) || after == '-' || after == '_') continue;
        found = option;
        longest = name.size();
    }
    return found;
}

std::string value_kind(const CLI::Option& option) {
    std::string type = option.get_type_name();
    if (type.starts_with("[")) type.erase(0, 1);
    if (type.starts_with("FLOAT")) return "a number";
    if (type.starts_with("INT") || type.starts_with("UINT")) return "a whole number";
    if (type.starts_with("BOOL")) return "true or false";
    return "a value";
}

// The number after `word` in `message` ("received 2"), or -1.
long number_after(const std::string& message, const std::string& word) {
    const auto at = message.find(word);
    if (at == std::string::npos) return -1;
    return std::strtol(message.c_str() + at + word.size(), nullptr, 10);
}

// A parse error in the README's form, "--dx must be ..." naming the flag. CLI11 words its
// errors its own way, differently by version ("--dt: At Most 1 required but received 2",
// "Could not convert: --quiet = abc"), so the option is looked up and the sentence made here.
std::string usage_text(const CLI::ParseError& e, const CLI::App& app) {
    std::string message = one_line(e.what());
    const CLI::Option* option = option_in(message, app);
    const std::string name = option ? option->get_name() : std::string();
    if (dynamic_cast<const CLI::ValidationError*>(&e)) {
        // Our checks: "--dx: must be > 0 (got -1)" reads "--dx must be > 0 (got -1)".
        if (const auto at = message.find(": must be "); at != std::string::npos) message.erase(at, 1);
        return message;
    }
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && option) {
        const long got = number_after(message, "received ");
        if (message.find("missing") != std::string::npos || got == 0)
            return name + " must be followed by " + value_kind(*option);
        const int least = option->get_expected_min(), most = option->get_expected_max();
        const std::string given = got > 0 ? " (got " + std::to_string(got) + ")" : "";
        if (most <= 1) return name + " must be given once" + (got > 0 ? " (got " + std::to_string(got) + " values)" : "");
        if (least == most) return name + " must be " + std::to_string(least) + " comma-separated values" + given;
        return name + " must be " + std::to_string(least) + " to " + std::to_string(most) + " comma-separated values" + given;
    }
    if (dynamic_cast<const CLI::ConversionError*>(&e) && option) {
        const auto equals = message.rfind(" = ");
        const std::string value = equals == std::string::npos ? "" : " (got '" + message.substr(equals + 3) + "')";
        if (option->get_expected_max() == 0) return name + " takes no value" + value;
        return name + " must be " + value_kind(*option) + value;
    }
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
        const auto colon = message.find(": ");
        const std::string extra = colon == std::string::npos ? message : message.substr(colon + 2);
        return "unexpected argument '" + extra + "' (a value follows the flag it belongs to; flags without values take none)";
    }
    if (dynamic_cast<const CLI::RequiredError*>(&e) && option) return name + " must be given";
    if (dynamic_cast<const CLI::ExcludesError*>(&e)) {
        const auto at = message.find(" excludes ");
        if (at != std::string::npos)
            return "give " + message.substr(0, at) + " or " + message.substr(at + 10) + ", not both";
    }
    if (dynamic_cast<const CLI::FileError*>(&e)) {
        // --config FILE that cannot be read: say why.
        const CLI::Option* config = app.get_config_ptr();
        const std::string file = config && !config->results().empty() ? config->results().front() : std::string();
        if (!file.empty() && ::access(file.c_str(), R_OK) != 0)
            return "--config " + file + ": cannot read: " + std::strerror(errno);
    }
    return message;
}

// CLI11's TOML reader, made strict: CLI11 skips unknown keys and reads any line without '=' as
// a flag set to true, so a misspelt key (`alpah = 0.5`) or a file of random bytes would run with
// defaults. Every line must be blank, a comment or `flag = value` naming an option of the program.
class StrictConfig : public CLI::ConfigBase {
public:
    explicit StrictConfig(const CLI::App& app) : app_(app) {}

    std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
        // Read at most one byte beyond the limit: --config /dev/zero must not read forever.
        std::string text(kMaxConfigBytes + 1, '\0');
        input.read(text.data(), std::streamsize(text.size()));
        text.resize(std::size_t(input.gcount()));
        if (text.size() > kMaxConfigBytes)
            throw CLI::ConfigError(file_name() + ": longer than " + std::to_string(kMaxConfigBytes >> 10) +
                                   " KiB, not a configuration file");
        // A UTF-8 byte order mark (Windows editors write one) is not part of the first flag's name.
        if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
        std::istringstream lines(text);
        std::string line;
        for (int number = 1; std::getline(lines, line); ++number) check_line(line, number);
        std::istringstream again(text);
        return CLI::ConfigBase::from_config(again);
    }

private:
    static constexpr std::size_t kMaxConfigBytes = 1 << 20;

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
// What is wrong with OMP_NUM_THREADS (a thread count or a comma-separated list of them, one per
// nesting level), or "" when it is unset or every count lies in 1..kMaxThreads.
std::string check_omp_num_threads() {
    const char* env = std::getenv("OMP_NUM_THREADS");
    if (!env || !*env) return {};
    const std::string value = env;
    std::size_t at = 0;
    while (at <= value.size()) {
        const std::size_t comma = std::min(value.find(',', at), value.size());
        const std::string item = value.substr(at, comma - at);
        long long threads = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), threads);
        if (ec != std::errc() || end != item.data() + item.size() || threads < 1 || threads > kMaxThreads)
            return "OMP_NUM_THREADS must be in 1.." + std::to_string(kMaxThreads) +
                   " (or a comma-separated list of such counts) (got '" + value.substr(0, 40) + "'); --threads overrides it";
        at = comma + 1;
    }
    return {};
}

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
    app_.formatter(std::make_shared<HelpFormatter>(help_columns()));
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
        ->check(one_of({"text", "json"}))
        ->capture_default_str();
}

void Tool::add_common(unsigned flags) {
    if (flags & kInput)
        add_input("-i,--input", options_.input, "Input file ('-': stdin)", [this](const std::string& flag, const std::string& value) {
            return input_files_ ? input_files_(flag, value) : fmt::read_files(flag, value);
        })->capture_default_str();
    if (flags & kOutput) {
        add_output("-o,--output", options_.output, "Output file ('-': stdout)", [this](const std::string& flag, const std::string& value) {
            return output_files_ ? output_files_(flag, value) : fmt::written_files(flag, value);
        })->capture_default_str();
        app_.add_flag("-f,--force", options_.force, "Write binary data even to a terminal");
    }
    if (flags & kDevice) {
        // Checked while parsing, so a bad value is a usage error before any input is read.
        CLI::Validator device_spec(
            [](std::string& spec) -> std::string {
                return valid_device_spec(spec) ? std::string() : "must be auto, cpu, cuda or cuda:N (got '" + spec + "')";
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

CLI::Option* Tool::add_input(const std::string& names, std::string& path, const std::string& description, FilesOf files) {
    CLI::Option* option = app_.add_option(names, path, description);
    files_.push_back({option->get_name(), &path, false, std::move(files)});
    return option;
}

CLI::Option* Tool::add_output(const std::string& names, std::string& path, const std::string& description, FilesOf files) {
    CLI::Option* option = app_.add_option(names, path, description);
    files_.push_back({option->get_name(), &path, true, std::move(files)});
    return option;
}

void Tool::check_files() const {
    std::vector<NamedFile> inputs, outputs;
    if (const CLI::Option* config = app_.get_config_ptr())
        for (const std::string& file : config->results()) inputs.push_back({"--config", file, std::nullopt});
    for (const FileOption& f : files_) {
        if (f.value->empty()) continue;  // not given (an optional file)
        for (NamedFile& named : f.files ? f.files(f.flag, *f.value) : std::vector<NamedFile>{{f.flag, *f.value, std::nullopt}})
            (f.output ? outputs : inputs).push_back(std::move(named));
    }
    check_distinct_files(inputs, outputs);
}

void Tool::print_version() const { std::fputs(version_text(name_).c_str(), stdout); }

dist::Communicator Tool::join_ranks() {
    ranks_ = dist::Communicator::world();
    if (!ranks_->root()) log_.set_level(LogLevel::quiet);
    return *ranks_;
}

Backend Tool::open_backend() {
    // Several ranks on a host: a GPU each, or a share of the cores each.
    const RankPlacement place = ranks_ ? place_rank(options_.device, options_.threads, ranks_->local_rank(),
                                                    ranks_->size() > 1 ? ranks_->local_size() : 1)
                                       : RankPlacement{options_.device, options_.threads};
    const auto select = [&] {
        try {
            return select_backend(place.device, place.threads, &log_);
        } catch (const DeviceError& e) {
            // "--device cuda: no such GPU" would blame a flag nobody typed.
            const std::string message = e.what();
            if (!device_from_environment_ || !message.starts_with("--device")) throw;
            throw DeviceError("PARTIKEL_DEVICE=" + options_.device + message.substr(message.find(": ")));
        }
    };
    Backend backend = select();
    log_.debug("device: " + backend.describe() + "; host loops: " + std::to_string(omp_get_max_threads()) +
               " OpenMP threads");
    return backend;
}

void Tool::summary(const std::string& what) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", seconds);
    log_.info(what + " in " + text + " s");
}

std::string counted(std::uint64_t n, const std::string& noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

Progress Tool::progress(std::string label, double total, std::string rate_unit) {
    bool enabled = !options_.quiet && (options_.progress || stderr_is_terminal());
    // Without a bar, a line every 30 s (unless --quiet), so that piped runs are never silent.
    return Progress(log_, std::move(label), total, std::move(rate_unit), enabled, options_.quiet ? 0.0 : 30.0);
}

int Tool::run(int argc, char** argv, const std::function<int(Tool&)>& body) {
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    return run(std::move(args), body);
}

int Tool::run(std::vector<std::string> args, const std::function<int(Tool&)>& body) {
    install_signal_cleanup(name_.c_str());
    // A report (particle-info, compare-results, --stats) held whole until check_stdout() flushes
    // it: a write that fails there names its cause ("No space left on device"), where a write
    // failing inside printf, once the default 4 KiB buffer fills, leaves no errno behind.
    static char stdout_buffer[1 << 20];
    if (!::isatty(STDOUT_FILENO)) std::setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
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
                std::fprintf(stderr, "%s: error: PARTIKEL_DEVICE: must be auto, cpu, cuda or cuda:N (got '%s')\n",
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
        std::fprintf(stderr, "%s: error: %s (see %s --help)\n", name_.c_str(), usage_text(e, app_).c_str(), name_.c_str());
        return kExitUsage;
    }
    log_.set_format(options_.log_format == "json" ? LogFormat::json : LogFormat::text);
    // --threads, once for the whole program: OpenMP loops, the CPU backend and the stream codec.
    // Without it OpenMP takes OMP_NUM_THREADS, bounded as --threads is, before any thread starts
    // (100000 threads make the runtime fail inside a parallel region, out of reach of a message).
    if (options_.threads > 0) {
        omp_set_num_threads(options_.threads);
    } else if (const std::string problem = check_omp_num_threads(); !problem.empty()) {
        std::fprintf(stderr, "%s: error: %s\n", name_.c_str(), problem.c_str());
        return kExitUsage;
    }
    log_.set_level(options_.quiet ? LogLevel::error : options_.verbose ? LogLevel::debug : LogLevel::info);
    try {
        check_files();  // before anything is written
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
