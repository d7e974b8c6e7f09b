#include "formats/stream/filters.hpp"

#include <cstring>

namespace partikel::fmt {
namespace {

// Shuffling is a byte-matrix transpose (n rows of W bytes <-> W planes of n bytes). It runs
// in tiles of `tile` rows so that the strided side stays in L1; the width is a template
// parameter for the common record sizes so that the inner loops unroll.
constexpr std::size_t tile = 256;

template <std::size_t W>
void shuffle_fixed(const std::byte* in, std::byte* out, std::size_t n) {
    for (std::size_t r0 = 0; r0 < n; r0 += tile) {
        const std::size_t r1 = r0 + tile < n ? r0 + tile : n;
        for (std::size_t j = 0; j < W; ++j) {
            std::byte* plane = out + j * n;
            for (std::size_t r = r0; r < r1; ++r) plane[r] = in[r * W + j];
        }
    }
}

template <std::size_t W>
void unshuffle_fixed(const std::byte* in, std::byte* out, std::size_t n) {
    for (std::size_t r0 = 0; r0 < n; r0 += tile) {
        const std::size_t r1 = r0 + tile < n ? r0 + tile : n;
        for (std::size_t j = 0; j < W; ++j) {
            const std::byte* plane = in + j * n;
            for (std::size_t r = r0; r < r1; ++r) out[r * W + j] = plane[r];
        }
    }
}

void shuffle_any(const std::byte* in, std::byte* out, std::size_t n, std::size_t w) {
    for (std::size_t r0 = 0; r0 < n; r0 += tile) {
        const std::size_t r1 = r0 + tile < n ? r0 + tile : n;
        for (std::size_t j = 0; j < w; ++j)
            for (std::size_t r = r0; r < r1; ++r) out[j * n + r] = in[r * w + j];
    }
}

void unshuffle_any(const std::byte* in, std::byte* out, std::size_t n, std::size_t w) {
    for (std::size_t r0 = 0; r0 < n; r0 += tile) {
        const std::size_t r1 = r0 + tile < n ? r0 + tile : n;
        for (std::size_t j = 0; j < w; ++j)
            for (std::size_t r = r0; r < r1; ++r) out[r * w + j] = in[j * n + r];
    }
}

template <class U>
void delta_encode_t(std::byte* data, std::size_t values, std::size_t components) {
    for (std::size_t i = values; i-- > components;) {
        U v, prev;
        std::memcpy(&v, data + i * sizeof(U), sizeof(U));
        std::memcpy(&prev, data + (i - components) * sizeof(U), sizeof(U));
        v = static_cast<U>(v - prev);
        std::memcpy(data + i * sizeof(U), &v, sizeof(U));
    }
}

template <class U>
void delta_decode_t(std::byte* data, std::size_t values, std::size_t components) {
    for (std::size_t i = components; i < values; ++i) {
        U v, prev;
        std::memcpy(&v, data + i * sizeof(U), sizeof(U));
        std::memcpy(&prev, data + (i - components) * sizeof(U), sizeof(U));
        v = static_cast<U>(v + prev);
        std::memcpy(data + i * sizeof(U), &v, sizeof(U));
    }
}

}  // namespace

void shuffle_bytes(const std::byte* in, std::byte* out, std::size_t n, std::size_t width) {
    switch (width) {
    case 1: std::memcpy(out, in, n); return;
    case 4: shuffle_fixed<4>(in, out, n); return;
    case 8: shuffle_fixed<8>(in, out, n); return;
    case 12: shuffle_fixed<12>(in, out, n); return;
    case 24: shuffle_fixed<24>(in, out, n); return;
    default: shuffle_any(in, out, n, width);
    }
}

void unshuffle_bytes(const std::byte* in, std::byte* out, std::size_t n, std::size_t width) {
    switch (width) {
    case 1: std::memcpy(out, in, n); return;
    case 4: unshuffle_fixed<4>(in, out, n); return;
    case 8: unshuffle_fixed<8>(in, out, n); return;
    case 12: unshuffle_fixed<12>(in, out, n); return;
    case 24: unshuffle_fixed<24>(in, out, n); return;
    default: unshuffle_any(in, out, n, width);
    }
}

void delta_encode(std::byte* data, std::size_t values, std::size_t width, std::size_t components) {
    switch (width) {
    case 1: delta_encode_t<std::uint8_t>(data, values, components); return;
    case 4: delta_encode_t<std::uint32_t>(data, values, components); return;
    case 8: delta_encode_t<std::uint64_t>(data, values, components); return;
    }
}

void delta_decode(std::byte* data, std::size_t values, std::size_t width, std::size_t components) {
    switch (width) {
    case 1: delta_decode_t<std::uint8_t>(data, values, components); return;
    case 4: delta_decode_t<std::uint32_t>(data, values, components); return;
    case 8: delta_decode_t<std::uint64_t>(data, values, components); return;
    }
}

}  // namespace partikel::fmt
