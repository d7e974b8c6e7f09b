// The symmetric tensor of the stress fields (the snow models' stress, the SPS turbulence stress
// of viscosity.hpp) and the general 3 x 3 matrix (velocity gradients, the snow models' corrected
// stress), defined below every header that stores or sums one.
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

// A 3 x 3 matrix by rows: a velocity gradient (row i is grad v_i), a stress multiplied by the
// kernel-gradient correction (SnowStress).
struct Mat3f {
    Vec3f x, y, z;  // rows
    PK_DEVICE_INLINE Vec3f times(Vec3f g) const { return {dot(x, g), dot(y, g), dot(z, g)}; }
};
PK_DEVICE_INLINE Mat3f operator*(float s, const Mat3f& m) { return {s * m.x, s * m.y, s * m.z}; }
PK_DEVICE_INLINE Mat3f operator+(const Mat3f& a, const Mat3f& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }

}  // namespace partikel::sph
