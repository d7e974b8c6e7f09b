#include "run/cadence.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "base/error.hpp"
#include "base/log.hpp"

namespace partikel::run {

namespace {
// Simulated times are compared with a relative slack, so that a run meant to end at 1.5 does not
// take one more step because accumulated time steps land 1e-15 short of it.
constexpr double kTimeSlack = 1e-12;
}  // namespace

Cadence::Cadence(const CadenceOptions& o, std::int64_t start_step, double start_time)
    : until_(o.until), steps_(o.steps), every_(o.every), every_steps_(o.every_steps), start_step_(start_step),
      start_time_(start_time) {
    if (until_.has_value() == steps_.has_value()) throw UsageError("give exactly one of --until and --steps");
    if (every_ && every_steps_) throw UsageError("give at most one of --every and --every-steps");
    if (until_) {
        if (!std::isfinite(*until_)) throw UsageError("--until must be a finite time (got " + format_g(*until_) + ")");
        if (*until_ < start_time * (1.0 - kTimeSlack) - 1e-300)
            throw UsageError("--until " + format_g(*until_) + " lies before the start frame's time " + format_g(start_time) +
                             " (the run would take no step)");
    }
    if (steps_ && *steps_ < 0) throw UsageError("--steps must be >= 0 (got " + std::to_string(*steps_) + ")");
    if (every_ && !(std::isfinite(*every_) && *every_ > 0))
        throw UsageError("--every must be a positive finite time (got " + format_g(*every_) + ")");
    if (every_steps_ && *every_steps_ <= 0)
        throw UsageError("--every-steps must be > 0 (got " + std::to_string(*every_steps_) + ")");
    if (every_) next_output_ = (std::floor(start_time / *every_ + 1e-9) + 1.0) * *every_;
}

bool Cadence::done(std::int64_t step, double time) const {
    // start + steps saturates at the largest step number instead of wrapping to a negative one
    // (which ended a run of --steps 9223372036854775807 before its first step).
    if (steps_) return step >= (start_step_ > 0 && *steps_ > INT64_MAX - start_step_ ? INT64_MAX : start_step_ + *steps_);
    return time >= *until_ * (1.0 - kTimeSlack);
}

bool Cadence::frame_due(std::int64_t step, double time) {
    if (every_steps_) return step % *every_steps_ == 0;
    if (every_ && time >= next_output_ * (1.0 - kTimeSlack)) {
        next_output_ = (std::floor(time / *every_ + 1e-9) + 1.0) * *every_;
        return true;
    }
    return false;
}

double Cadence::progress(std::int64_t step, double time) const {
    return steps_ ? double(step - start_step_) : time - start_time_;
}

double Cadence::total() const { return steps_ ? double(*steps_) : std::max(0.0, *until_ - start_time_); }

}  // namespace partikel::run
