// Little-endian encoding of the stream format's fields (SPEC.md §2.1): appending to a byte
// vector, and a bounds-checked cursor over a record body.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace partikel::fmt {

static_assert(std::endian::native == std::endian::little,
              "the stream codec copies little-endian fields directly; add byte swaps for this target");

class ByteWriter {
public:
    std::vector<std::byte>& bytes() { return bytes_; }
    void u8(std::uint8_t v) { put(&v, 1); }
    void u16(std::uint16_t v) { put(&v, 2); }
    void u32(std::uint32_t v) { put(&v, 4); }
    void u64(std::uint64_t v) { put(&v, 8); }
    void i64(std::int64_t v) { put(&v, 8); }
    void f64(double v) { put(&v, 8); }
    void string(std::string_view s) {
        u32(static_cast<std::uint32_t>(s.size()));
        put(s.data(), s.size());
    }
    void put(const void* data, std::size_t n) {
        const auto* p = static_cast<const std::byte*>(data);
        bytes_.insert(bytes_.end(), p, p + n);
    }

private:
    std::vector<std::byte> bytes_;
};

// Thrown by ByteReader when a field runs past the end of its body; the codec turns it into a
// FormatError with the file and frame.
struct ShortBody {
    std::string field;
};

class ByteReader {
public:
    explicit ByteReader(std::span<const std::byte> body) : body_(body) {}
    std::size_t remaining() const { return body_.size() - pos_; }
    std::uint8_t u8(const char* field) { return get<std::uint8_t>(field); }
    std::uint16_t u16(const char* field) { return get<std::uint16_t>(field); }
    std::uint32_t u32(const char* field) { return get<std::uint32_t>(field); }
    std::uint64_t u64(const char* field) { return get<std::uint64_t>(field); }
    std::int64_t i64(const char* field) { return get<std::int64_t>(field); }
    double f64(const char* field) { return get<double>(field); }
    std::string string(const char* field) {
        const std::uint32_t n = u32(field);
        need(n, field);
        std::string s(reinterpret_cast<const char*>(body_.data() + pos_), n);
        pos_ += n;
        return s;
    }

private:
    template <class T> T get(const char* field) {
        need(sizeof(T), field);
        T v;
        std::memcpy(&v, body_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }
    void need(std::size_t n, const char* field) const {
        if (n > remaining()) throw ShortBody{field};
    }

    std::span<const std::byte> body_;
    std::size_t pos_ = 0;
};

}  // namespace partikel::fmt
