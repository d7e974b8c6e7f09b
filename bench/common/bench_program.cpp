#include "bench_program.hpp"

#include <omp.h>

#include <cstdio>

#include "base/error.hpp"
#include "base/log.hpp"

namespace partikel::bench {

BenchProgram::BenchProgram(std::string name, std::string description)
    : name_(std::move(name)), app_(std::move(description), name_) {
    app_.add_option("--device", device_, "auto, cpu, cuda or cuda:N")->capture_default_str();
    app_.add_option("--threads", threads_, "CPU threads (0: all cores)")->check(CLI::NonNegativeNumber);
    app_.add_option("--json", json_path_, "Append JSON lines here");
}

Backend BenchProgram::open_backend() {
    Log log(name_);
    return select_backend(device_, threads_, &log);
}

int BenchProgram::run(int argc, char** argv, const std::function<int()>& body) {
    try {
        app_.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app_.exit(e);
    }
    if (threads_ > 0) omp_set_num_threads(threads_);
    try {
        return body();
    } catch (const UsageError& e) {
        std::fprintf(stderr, "%s: error: %s\n", name_.c_str(), e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: error: %s\n", name_.c_str(), e.what());
        return 1;
    }
}

}  // namespace partikel::bench
