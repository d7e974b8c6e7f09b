#include "run/simulation.hpp"

#include "base/error.hpp"

namespace partikel::run {

std::int32_t Simulation::step_and_vote(const std::function<std::int32_t()>& vote) {
    step();
    return communicator().allreduce<std::int32_t>(vote(), dist::ReduceOp::max);
}

fmt::Frame Simulation::build_frame(std::span<const RankFrame> ranks, const FrameCapture& capture) const {
    if (ranks.size() != 1) throw UsageError("this model does not run on several ranks");
    FrameCapture one = capture;
    one.count = ranks[0].count;
    return build_frame(ranks[0].buffers, one);
}

}  // namespace partikel::run
