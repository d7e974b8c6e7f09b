// When a run stops and when it writes: the decisions of the run loop, kept apart so that they
// can be tested without a simulation.
#pragma once

#include <cstdint>
#include <optional>

namespace partikel::run {

struct CadenceOptions {
    std::optional<double> until;          // simulated time to reach (model time unit)
    std::optional<std::int64_t> steps;    // steps to take from the start
    std::optional<double> every;          // a frame each time simulated time passes a multiple of this
    std::optional<std::int64_t> every_steps;  // a frame at every step number divisible by this
};

class Cadence {
public:
    // Validates (UsageError): exactly one of until/steps, at most one of every/every_steps, finite
    // positive intervals, an `until` after the start time, steps >= 0.
    Cadence(const CadenceOptions& options, std::int64_t start_step, double start_time);

    bool done(std::int64_t step, double time) const;
    // After a step: is a frame due at (step, time)? Advances the next output time when it is.
    bool frame_due(std::int64_t step, double time);
    // Fraction of the run done, and its total, in the unit progress is reported in.
    double progress(std::int64_t step, double time) const;
    double total() const;
    bool counts_steps() const { return steps_.has_value(); }

private:
    std::optional<double> until_;
    std::optional<std::int64_t> steps_;
    std::optional<double> every_;
    std::optional<std::int64_t> every_steps_;
    std::int64_t start_step_;
    double start_time_;
    double next_output_ = 0.0;
};

}  // namespace partikel::run
