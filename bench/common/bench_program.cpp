#include "bench_program.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "base/error.hpp"
#include "base/log.hpp"
#include "dist/communicator.hpp"

namespace partikel::bench {

BenchProgram::BenchProgram(std::string name, std::string description)
    : name_(std::move(name)), app_(std::move(description), name_) {
    app_.add_option("--device", device_, "auto, cpu, cuda or cuda:N")->capture_default_str();
    app_.add_option("--threads", threads_, "CPU threads (0: all cores)")->check(CLI::NonNegativeNumber);
    app_.add_option("--json", json_path_, "Append JSON lines here");
}

Backend BenchProgram::open_backend(int local_rank, int local_ranks) {
    Log log(name_);
    const RankPlacement place = place_rank(device_, threads_, local_rank, local_ranks);
    return select_backend(place.device, place.threads, &log);
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
    } catch (...) {
        // Several ranks: the failure every rank reports, printed by rank 0.
        const bool ranks = dist::Communicator::world_started() && dist::Communicator::world().size() > 1;
        const dist::Communicator world = ranks ? dist::Communicator::world() : dist::Communicator::single();
        const dist::Failure failure = world.fail(std::current_exception());
        if (world.root()) std::fprintf(stderr, "%s: error: %s\n", name_.c_str(), failure.describe(world.size()).c_str());
        return failure.kind == dist::FailureKind::usage ? 2 : 1;
    }
}

}  // namespace partikel::bench
