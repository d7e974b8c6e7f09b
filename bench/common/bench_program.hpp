// What every benchmark program shares: --device and --threads, --json FILE (JSON lines appended),
// and one error line with a non-zero status. Benchmarks stand beside the programs, not on them
// (tools/ is above every library; nothing includes it).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "core/backend.hpp"

namespace partikel::bench {

class BenchProgram {
public:
    BenchProgram(std::string name, std::string description);
    CLI::App& app() { return app_; }
    const std::string& json_path() const { return json_path_; }
    // The backend from --device (auto, cpu, cuda, cuda:N) and --threads. Several ranks on a host
    // (mpirun; `local_rank`, `local_ranks` from dist::Communicator): auto and cuda take GPU
    // local_rank, and the CPU without --threads its share of the cores.
    Backend open_backend(int local_rank = 0, int local_ranks = 1);
    // Parse and run `body`: 0 on success, 1 on an error, 2 on a usage error, each with one line
    // (on several ranks, rank 0's; the others hear of a rank's error at their next wait).
    int run(int argc, char** argv, const std::function<int()>& body);

private:
    std::string name_;
    CLI::App app_;
    std::string device_ = "auto";
    int threads_ = 0;
    std::string json_path_;
};

}  // namespace partikel::bench
