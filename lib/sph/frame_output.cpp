#include "sph/frame_output.hpp"

#include <exception>
#include <utility>

#include "sph/frame_io.hpp"

namespace partikel::sph {

FrameOutput::FrameOutput(const Solver& solver, fmt::FrameWriter& writer,
                         std::map<std::string, fmt::AttributeValue, std::less<>> attributes)
    : writer_(writer), params_(solver.params()), attributes_(std::move(attributes)), snapshot_(solver) {}

FrameOutput::~FrameOutput() {
    try {
        finish();
    } catch (...) {
        // Destruction during unwinding: the caller's error is the one that matters.
    }
}

void FrameOutput::write(Solver& solver) {
    if (released_.valid()) released_.get();  // rethrows a writer's failure
    snapshot_.capture(solver);
    std::promise<void> release;
    released_ = release.get_future();
    // What the task reads (snapshot, writer, parameters, attributes) lives in this object,
    // whose destructor waits for the task.
    auto task = [this, previous = std::move(writing_), release = std::move(release)]() mutable {
        bool taken = false;
        try {
            if (previous.valid()) previous.get();
            const SolverFrame state = snapshot_.wait();
            release.set_value();
            taken = true;
            fmt::Frame frame = make_frame(state, params_);
            for (const auto& [key, value] : attributes_) frame.attributes[key] = value;
            frame.attributes["sph.removed"] = static_cast<std::int64_t>(state.removed);
            writer_.write(frame);
        } catch (...) {
            if (!taken) release.set_exception(std::current_exception());
            throw;
        }
    };
    writing_ = std::async(std::launch::async, std::move(task));
    last_step_ = solver.step_count();
}

void FrameOutput::finish() {
    if (released_.valid()) released_.get();
    if (writing_.valid()) writing_.get();
}

}  // namespace partikel::sph
