#include "run/simulation.hpp"

#include "base/error.hpp"

namespace partikel::run {

fmt::Frame Simulation::build_frame(std::span<const RankFrame> ranks, const FrameCapture& capture) const {
    if (ranks.size() != 1) throw UsageError("this model does not run on several ranks");
    FrameCapture one = capture;
    one.count = ranks[0].count;
    return build_frame(ranks[0].buffers, one);
}

}  // namespace partikel::run
