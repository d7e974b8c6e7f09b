// Typed record views of a column: a scalar per value, or Vec3<T> per row of a 3-component
// column, without copying (the column's storage is the array kernels and writers read).
#pragma once

#include <span>
#include <string>

#include "base/vec.hpp"
#include "formats/frame.hpp"

namespace partikel::fmt {

namespace detail {
// A record type E: a scalar (one value of any column, count x components of them), or Vec3<T>
// (one row of a 3-component column).
template <class E> struct RecordTraits {
    using scalar = E;
    static constexpr std::uint32_t components = 0;  // any
};
template <class T> struct RecordTraits<Vec3<T>> {
    static_assert(sizeof(Vec3<T>) == 3 * sizeof(T), "Vec3 must be three packed scalars");
    using scalar = T;
    static constexpr std::uint32_t components = 3;
};
}  // namespace detail

// The column as records of E; throws UsageError when the type or component count differs.
template <class E> std::span<E> records(Column& column) {
    using Traits = detail::RecordTraits<E>;
    auto values = column.values<typename Traits::scalar>();
    if constexpr (Traits::components == 0) {
        return values;
    } else {
        if (column.components() != Traits::components)
            throw UsageError("column \"" + column.name() + "\" has " + std::to_string(column.components()) +
                             " components, not " + std::to_string(Traits::components));
        return {reinterpret_cast<E*>(values.data()), static_cast<std::size_t>(column.count())};
    }
}

template <class E> std::span<const E> records(const Column& column) {
    return records<E>(const_cast<Column&>(column));
}

}  // namespace partikel::fmt
