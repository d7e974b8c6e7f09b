// Binary operators for reductions, usable on both backends.
#pragma once

#include <limits>

#include "base/hd.hpp"

namespace partikel {

struct SumOp {
    template <class T> PK_DEVICE_INLINE T operator()(const T& a, const T& b) const { return a + b; }
    template <class T> static constexpr T identity() { return T(0); }
};
struct MinOp {
    template <class T> PK_DEVICE_INLINE T operator()(const T& a, const T& b) const { return b < a ? b : a; }
    template <class T> static constexpr T identity() {
        if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
        else return std::numeric_limits<T>::max();
    }
};
struct MaxOp {
    template <class T> PK_DEVICE_INLINE T operator()(const T& a, const T& b) const { return a < b ? b : a; }
    template <class T> static constexpr T identity() {
        if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
        else return std::numeric_limits<T>::lowest();
    }
};

// Reduces values of a struct type T with T::combine(a, b) (identity: T::identity()): several
// quantities in one pass over the particles and one read-back, e.g. a step's diagnostics
// (sums, minima and maxima together) or a beam's moments.
struct CombineOp {
    template <class T> PK_DEVICE_INLINE T operator()(const T& a, const T& b) const { return T::combine(a, b); }
    template <class T> static T identity() { return T::identity(); }
};

// The union of two axis-aligned boxes given by their corners `lo` and `hi` (3 values each),
// into r: the combine step of a bounds reduction (N-body's bounding box, a beam's extent).
template <class Box> PK_DEVICE_INLINE void merge_box_corners(const Box& a, const Box& b, Box& r) {
    for (int k = 0; k < 3; ++k) {
        r.lo[k] = MinOp{}(a.lo[k], b.lo[k]);
        r.hi[k] = MaxOp{}(a.hi[k], b.hi[k]);
    }
}

// Reads element i of an array converted to Acc: the value functor of a plain array reduction.
template <class T, class Acc> struct LoadAs {
    const T* data;
    PK_DEVICE_INLINE Acc operator()(std::size_t i) const { return static_cast<Acc>(data[i]); }
};

}  // namespace partikel
