// Block filters of the stream format (SPEC.md §2.6): byte shuffle and per-component delta.
// The stream shuffles whole rows (width = components x scalar size), so that each byte plane
// holds one byte of one component; delta works on scalars of `width` bytes, `components` per row.
#pragma once

#include <cstddef>
#include <cstdint>

namespace partikel::fmt {

enum FilterBits : std::uint8_t { filter_delta = 1, filter_shuffle = 2 };

// out[j*n + i] = in[i*width + j] for n elements of `width` bytes; `in` and `out` must not overlap.
void shuffle_bytes(const std::byte* in, std::byte* out, std::size_t values, std::size_t width);
void unshuffle_bytes(const std::byte* in, std::byte* out, std::size_t values, std::size_t width);

// In place; differences (and running sums) modulo 2^(8*width), per component along rows.
void delta_encode(std::byte* data, std::size_t values, std::size_t width, std::size_t components);
void delta_decode(std::byte* data, std::size_t values, std::size_t width, std::size_t components);

}  // namespace partikel::fmt
