// Tracking passes: each particle is loaded once, given the space-charge kick of the node at the
// segment's start (if any), taken through the segment's operations in registers, and stored
// once; losses are flagged on the particle and counted per lattice element.
#pragma once

#include <cstdint>

#include "pic/beam.hpp"
#include "pic/field_map.hpp"
#include "pic/track_ops.hpp"

namespace partikel::pic {

struct TrackPassArgs {
    BeamView beam;
    const TrackOp* ops = nullptr;       // backend memory
    int op_count = 0;
    std::uint64_t* losses = nullptr;    // per lattice element, cumulative
    std::int32_t turn = 0;
    FieldMapView kick{};                // ex and ez null: no kick
    double wrap_period_m = 0.0;         // > 0: z wrapped into [-period/2, period/2) at the end
};

template <class Exec> void track_pass(const Exec& exec, const TrackPassArgs& args);

// history[t * count + p] = the coordinates of particle probes[p], for tune measurement.
template <class Exec>
void record_probes(const Exec& exec, const BeamView& beam, const std::uint32_t* probes, std::size_t count,
                   Coordinates* history);

}  // namespace partikel::pic
