#pragma once

#include <cmath>

#include "core/atomics.hpp"
#include "core/exec.hpp"
#include "pic/track.hpp"

namespace partikel::pic {

struct TrackPass {
    TrackPassArgs a;
    PK_DEVICE_INLINE void operator()(std::size_t i) const {
        const BeamView& b = a.beam;
        if (b.status[i] != kAlive) return;
        Coordinates c{b.x[i], b.xp[i], b.y[i], b.yp[i], b.z[i], b.delta[i]};
        if (a.kick.active()) a.kick.kick(c);
        for (int k = 0; k < a.op_count; ++k) {
            const TrackOp& op = a.ops[k];
            switch (op.kind) {
                case OpKind::linear: apply_linear(op.p, c); break;
                case OpKind::multipole: apply_multipole(op.p, c); break;
                case OpKind::rf: apply_rf(op.p, c); break;
                case OpKind::aperture:
                    if (outside_aperture(op.p, c)) {
                        b.status[i] = kLost;
                        b.lost_turn[i] = a.turn;
                        b.lost_element[i] = op.element;
                        atomic_add(&a.losses[op.element], std::uint64_t{1});
                        k = a.op_count;  // stop here; the coordinates are those at the loss
                    }
                    break;
            }
        }
        if (a.wrap_period_m > 0.0) c.z -= a.wrap_period_m * floor(c.z / a.wrap_period_m + 0.5);
        b.x[i] = c.x;
        b.xp[i] = c.xp;
        b.y[i] = c.y;
        b.yp[i] = c.yp;
        b.z[i] = c.z;
        b.delta[i] = c.delta;
    }
};

struct RecordProbes {
    BeamView b;
    const std::uint32_t* probes;
    Coordinates* history;
    PK_DEVICE_INLINE void operator()(std::size_t p) const {
        const std::uint32_t i = probes[p];
        history[p] = {b.x[i], b.xp[i], b.y[i], b.yp[i], b.z[i], b.delta[i]};
    }
};

template <class Exec> void track_pass(const Exec& exec, const TrackPassArgs& args) {
    exec.for_each(args.beam.n, TrackPass{args}, "pic.track_pass");
}

template <class Exec>
void record_probes(const Exec& exec, const BeamView& beam, const std::uint32_t* probes, std::size_t count,
                   Coordinates* history) {
    exec.for_each(count, RecordProbes{beam, probes, history}, "pic.record_probes");
}

#define PK_PIC_TRACK_INSTANTIATE(Exec)                                    \
    template void track_pass(const Exec&, const TrackPassArgs&);          \
    template void record_probes(const Exec&, const BeamView&, const std::uint32_t*, std::size_t, Coordinates*);

}  // namespace partikel::pic
