#pragma once

#include <algorithm>

#include "core/exec.hpp"
#include "core/reduce_ops.hpp"
#include "pic/moments.hpp"

namespace partikel::pic {

struct ParticleMoments {
    BeamView b;
    PK_DEVICE_INLINE BeamMoments operator()(std::size_t i) const {
        BeamMoments m;
        if (b.status[i] != kAlive) return m;
        m.n = 1.0;
        m.mean[0] = b.x[i];
        m.mean[1] = b.xp[i];
        m.mean[2] = b.y[i];
        m.mean[3] = b.yp[i];
        m.mean[4] = b.z[i];
        m.mean[5] = b.delta[i];
        return m;
    }
};

struct ParticleBounds {
    BeamView b;
    PK_DEVICE_INLINE BeamBounds operator()(std::size_t i) const {
        BeamBounds r;
        if (b.status[i] != kAlive) {
            for (int k = 0; k < 3; ++k) {
                r.lo[k] = 1e300;
                r.hi[k] = -1e300;
            }
            return r;
        }
        r.lo[0] = r.hi[0] = b.x[i];
        r.lo[1] = r.hi[1] = b.y[i];
        r.lo[2] = r.hi[2] = b.z[i];
        r.alive = 1.0;
        return r;
    }
};

struct CombineBounds {
    PK_DEVICE_INLINE BeamBounds operator()(const BeamBounds& a, const BeamBounds& b) const {
        BeamBounds r;
        merge_box_corners(a, b, r);
        r.alive = a.alive + b.alive;
        return r;
    }
};

template <class Exec> std::size_t moments_scratch_bytes(const Exec& exec, std::size_t n) {
    return std::max(exec.template reduce_scratch_bytes<BeamMoments, CombineMoments>(n),
                    exec.template reduce_scratch_bytes<BeamBounds, CombineBounds>(n));
}

template <class Exec> void beam_moments(const Exec& exec, Workspace& ws, const BeamView& beam, BeamMoments* out) {
    exec.transform_reduce(ws, beam.n, ParticleMoments{beam}, CombineMoments{}, BeamMoments{}, out);
}

template <class Exec> void beam_bounds(const Exec& exec, Workspace& ws, const BeamView& beam, BeamBounds* out) {
    BeamBounds empty;
    for (int k = 0; k < 3; ++k) {
        empty.lo[k] = 1e300;
        empty.hi[k] = -1e300;
    }
    exec.transform_reduce(ws, beam.n, ParticleBounds{beam}, CombineBounds{}, empty, out);
}

#define PK_PIC_MOMENTS_INSTANTIATE(Exec)                                                          \
    template std::size_t moments_scratch_bytes(const Exec&, std::size_t);                         \
    template void beam_moments(const Exec&, Workspace&, const BeamView&, BeamMoments*);           \
    template void beam_bounds(const Exec&, Workspace&, const BeamView&, BeamBounds*);

}  // namespace partikel::pic
