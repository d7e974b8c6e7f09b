// Columns on a backend: typed record views of a column, and transfers between a column's own
// storage and backend memory (DeviceBuffer) with no staging copy on the host. Header-only and
// free of CUDA headers (the backend does the copies).
#pragma once

#include <span>
#include <type_traits>

#include "core/buffer.hpp"
#include "core/vec.hpp"
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

// A new buffer on `backend` holding the column's records.
template <class E> DeviceBuffer<E> upload(const Backend& backend, const Column& column) {
    const auto src = records<E>(column);
    DeviceBuffer<E> buffer(backend, src.size());
    if (!src.empty()) buffer.copy_from_host(src);
    return buffer;
}

// The column's records into the start of `buffer` (which may be larger: reused across frames).
template <class E> void upload(const Column& column, DeviceBuffer<E>& buffer) {
    const auto src = records<E>(column);
    if (!src.empty()) buffer.copy_from_host(src);
}

// The first records of `buffer` into the column (as many as the column holds).
template <class E> void download(const DeviceBuffer<E>& buffer, Column& column) {
    const auto dst = records<E>(column);
    if (!dst.empty()) buffer.copy_to_host(dst);
}

}  // namespace partikel::fmt
