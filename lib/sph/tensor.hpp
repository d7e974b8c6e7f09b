// The symmetric tensor of the stress fields (the snow models' stress, the SPS turbulence stress
// of viscosity.hpp), defined below every header that stores or sums one.
#pragma once

#include "base/hd.hpp"
#include "base/vec.hpp"

namespace partikel::sph {

// A symmetric tensor's six components (Pa for a stress), as the field "stress" stores them and
// frames carry them: the Voigt order xx, yy, zz, yz, xz, xy of formats/SPEC.md §1, which names
// the components by position (sph/io/frame_io.cpp checks the two agree at compile time).
// Build one with designated initializers, never by position.
struct SymTensor {
    float xx, yy, zz, yz, xz, xy;
};

PK_DEVICE_INLINE SymTensor operator+(const SymTensor& a, const SymTensor& b) {
    return {.xx = a.xx + b.xx, .yy = a.yy + b.yy, .zz = a.zz + b.zz, .yz = a.yz + b.yz, .xz = a.xz + b.xz, .xy = a.xy + b.xy};
}
// The tensor applied to a vector, t g.
PK_DEVICE_INLINE Vec3f operator*(const SymTensor& t, Vec3f g) {
    return {t.xx * g.x + t.xy * g.y + t.xz * g.z, t.xy * g.x + t.yy * g.y + t.yz * g.z,
            t.xz * g.x + t.yz * g.y + t.zz * g.z};
}

}  // namespace partikel::sph
