// Scalar types and physical units shared by the file formats (formats/) and the device-side
// particle state (core/fields.hpp), so that a column and the array it came from describe their
// values the same way. SI inside Partikel; a Unit records what a stored value means in SI
// (openPMD's unitSI and unitDimension).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace partikel {

enum class ScalarType : std::uint8_t { u8 = 1, i32 = 2, u32 = 3, i64 = 4, u64 = 5, f32 = 6, f64 = 7 };

std::size_t scalar_size(ScalarType type);
std::string_view scalar_name(ScalarType type);  // "u8", "f32", ...
std::optional<ScalarType> parse_scalar_type(std::string_view name);
bool is_float(ScalarType type);

template <class T> constexpr ScalarType scalar_type_of() {
    if constexpr (std::is_same_v<T, std::uint8_t>) return ScalarType::u8;
    else if constexpr (std::is_same_v<T, std::int32_t>) return ScalarType::i32;
    else if constexpr (std::is_same_v<T, std::uint32_t>) return ScalarType::u32;
    else if constexpr (std::is_same_v<T, std::int64_t>) return ScalarType::i64;
    else if constexpr (std::is_same_v<T, std::uint64_t>) return ScalarType::u64;
    else if constexpr (std::is_same_v<T, float>) return ScalarType::f32;
    else if constexpr (std::is_same_v<T, double>) return ScalarType::f64;
    else static_assert(sizeof(T) == 0, "not a Partikel scalar type");
}

// Powers of the SI base dimensions, in openPMD's order: length L, mass M, time T, current I,
// temperature theta, amount N, luminous intensity J. Velocity is {1,0,-1,0,0,0,0}.
using UnitDimension = std::array<double, 7>;

// A value's unit: multiply stored values by `si_factor` to get SI values of `dimension`.
// SI values have si_factor 1.
struct Unit {
    UnitDimension dimension{};
    double si_factor = 1.0;
    friend bool operator==(const Unit&, const Unit&) = default;
};

// The SI units Partikel's columns and tables use.
namespace units {
inline constexpr Unit none{};
inline constexpr Unit length{{1, 0, 0, 0, 0, 0, 0}, 1.0};           // m
inline constexpr Unit mass{{0, 1, 0, 0, 0, 0, 0}, 1.0};             // kg
inline constexpr Unit time{{0, 0, 1, 0, 0, 0, 0}, 1.0};             // s
inline constexpr Unit velocity{{1, 0, -1, 0, 0, 0, 0}, 1.0};        // m/s
inline constexpr Unit acceleration{{1, 0, -2, 0, 0, 0, 0}, 1.0};    // m/s^2
inline constexpr Unit force{{1, 1, -2, 0, 0, 0, 0}, 1.0};           // N
inline constexpr Unit momentum{{1, 1, -1, 0, 0, 0, 0}, 1.0};        // kg m/s, N s
inline constexpr Unit density{{-3, 1, 0, 0, 0, 0, 0}, 1.0};         // kg/m^3
inline constexpr Unit density_rate{{-3, 1, -1, 0, 0, 0, 0}, 1.0};   // kg/(m^3 s)
inline constexpr Unit pressure{{-1, 1, -2, 0, 0, 0, 0}, 1.0};       // Pa (also stress)
inline constexpr Unit rate{{0, 0, -1, 0, 0, 0, 0}, 1.0};            // 1/s (strain rate)
inline constexpr Unit energy{{2, 1, -2, 0, 0, 0, 0}, 1.0};          // J
inline constexpr Unit specific_energy{{2, 0, -2, 0, 0, 0, 0}, 1.0}; // J/kg (potential)
inline constexpr Unit angular_momentum{{2, 1, -1, 0, 0, 0, 0}, 1.0};// kg m^2/s
}  // namespace units

// "m", "m/s", "kg/m^3", "Pa" (as kg/(m s^2)), "1" for dimensionless; scaled units as "1e-3 m".
std::string unit_symbol(const Unit& unit);

}  // namespace partikel
