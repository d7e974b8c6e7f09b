// Small fixed-size vectors for kernel code (both backends). Plain aggregates: a column of
// f32 x 3 values can be viewed as an array of Vec3<float>.
#pragma once

#include <cmath>

#include "base/hd.hpp"

namespace partikel {

template <class T> struct Vec3 {
    T x, y, z;
    PK_DEVICE_INLINE T& operator[](int k) { return k == 0 ? x : (k == 1 ? y : z); }
    PK_DEVICE_INLINE const T& operator[](int k) const { return k == 0 ? x : (k == 1 ? y : z); }
};
static_assert(sizeof(Vec3<float>) == 12, "Vec3<float> must match an f32 x 3 column");

using Vec3f = Vec3<float>;
using Vec3d = Vec3<double>;

// The largest coordinate and length (a search radius, a softening) of the programs that square
// distances in float (neighbour search, gravity, rendering): the difference of two such
// coordinates, squared and summed over three axes, is at most 3 (2e18)^2 = 1.2e37, below
// FLT_MAX (3.4e38). They refuse what lies beyond instead of comparing infinite squares.
inline constexpr double kMaxCoordinate = 1e18;

template <class T> PK_DEVICE_INLINE Vec3<T> operator+(Vec3<T> a, Vec3<T> b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class T> PK_DEVICE_INLINE Vec3<T> operator-(Vec3<T> a, Vec3<T> b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class T> PK_DEVICE_INLINE Vec3<T> operator-(Vec3<T> a) { return {-a.x, -a.y, -a.z}; }
template <class T> PK_DEVICE_INLINE Vec3<T> operator*(T s, Vec3<T> a) { return {s * a.x, s * a.y, s * a.z}; }
template <class T> PK_DEVICE_INLINE Vec3<T> operator*(Vec3<T> a, T s) { return {s * a.x, s * a.y, s * a.z}; }
template <class T> PK_DEVICE_INLINE Vec3<T> operator/(Vec3<T> a, T s) { return {a.x / s, a.y / s, a.z / s}; }
template <class T> PK_DEVICE_INLINE Vec3<T>& operator+=(Vec3<T>& a, Vec3<T> b) { a.x += b.x; a.y += b.y; a.z += b.z; return a; }
template <class T> PK_DEVICE_INLINE Vec3<T>& operator-=(Vec3<T>& a, Vec3<T> b) { a.x -= b.x; a.y -= b.y; a.z -= b.z; return a; }
template <class T> PK_DEVICE_INLINE Vec3<T>& operator*=(Vec3<T>& a, T s) { a.x *= s; a.y *= s; a.z *= s; return a; }
template <class T> PK_DEVICE_INLINE T dot(Vec3<T> a, Vec3<T> b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> PK_DEVICE_INLINE Vec3<T> cross(Vec3<T> a, Vec3<T> b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> PK_DEVICE_INLINE T norm2(Vec3<T> a) { return dot(a, a); }
template <class T> PK_DEVICE_INLINE T norm(Vec3<T> a) { using std::sqrt; return sqrt(dot(a, a)); }

// Four floats on a 16-byte boundary, read with one 128-bit load on the GPU: neighbour records
// pack a position or a velocity with one more per-particle value in w.
struct alignas(16) Vec4f {
    float x, y, z, w;
    PK_DEVICE_INLINE Vec3f xyz() const { return {x, y, z}; }
};

}  // namespace partikel
