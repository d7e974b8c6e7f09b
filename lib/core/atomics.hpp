// Atomics callable from kernel code on both backends. On the GPU they are CUDA's atomics; on
// the CPU, std::atomic_ref on the same plain memory. All return the value before the update.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "base/hd.hpp"

namespace partikel {

template <class T> PK_DEVICE_INLINE T atomic_add(T* address, T value) {
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(T) == 8 && !std::is_floating_point_v<T>) {
        return static_cast<T>(atomicAdd(reinterpret_cast<unsigned long long*>(address),
                                        static_cast<unsigned long long>(value)));
    } else {
        return atomicAdd(address, value);
    }
#else
    return std::atomic_ref<T>(*address).fetch_add(value, std::memory_order_relaxed);
#endif
}

template <class T> PK_DEVICE_INLINE T atomic_min(T* address, T value) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) {
        // IEEE floats order like sign-magnitude integers.
        return value >= 0.0f
                   ? __int_as_float(atomicMin(reinterpret_cast<int*>(address), __float_as_int(value)))
                   : __uint_as_float(atomicMax(reinterpret_cast<unsigned*>(address), __float_as_uint(value)));
    } else if constexpr (sizeof(T) == 8 && std::is_signed_v<T>) {
        return static_cast<T>(atomicMin(reinterpret_cast<long long*>(address), static_cast<long long>(value)));
    } else if constexpr (sizeof(T) == 8) {
        return static_cast<T>(atomicMin(reinterpret_cast<unsigned long long*>(address),
                                        static_cast<unsigned long long>(value)));
    } else {
        return atomicMin(address, value);
    }
#else
    std::atomic_ref<T> ref(*address);
    T old = ref.load(std::memory_order_relaxed);
    while (value < old && !ref.compare_exchange_weak(old, value, std::memory_order_relaxed)) {}
    return old;
#endif
}

template <class T> PK_DEVICE_INLINE T atomic_max(T* address, T value) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) {
        return value >= 0.0f
                   ? __int_as_float(atomicMax(reinterpret_cast<int*>(address), __float_as_int(value)))
                   : __uint_as_float(atomicMin(reinterpret_cast<unsigned*>(address), __float_as_uint(value)));
    } else if constexpr (sizeof(T) == 8 && std::is_signed_v<T>) {
        return static_cast<T>(atomicMax(reinterpret_cast<long long*>(address), static_cast<long long>(value)));
    } else if constexpr (sizeof(T) == 8) {
        return static_cast<T>(atomicMax(reinterpret_cast<unsigned long long*>(address),
                                        static_cast<unsigned long long>(value)));
    } else {
        return atomicMax(address, value);
    }
#else
    std::atomic_ref<T> ref(*address);
    T old = ref.load(std::memory_order_relaxed);
    while (value > old && !ref.compare_exchange_weak(old, value, std::memory_order_relaxed)) {}
    return old;
#endif
}

// Bitwise OR, for flag words that kernels raise (cell overflow, NaN found).
PK_DEVICE_INLINE std::uint32_t atomic_or(std::uint32_t* address, std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
    return atomicOr(address, bits);
#else
    return std::atomic_ref<std::uint32_t>(*address).fetch_or(bits, std::memory_order_relaxed);
#endif
}

// Adds to block-shared memory in a block-level kernel (core/exec.hpp): a shared-memory atomic
// on the GPU; a plain add on the CPU, where one thread runs all the threads of a block.
template <class T> PK_DEVICE_INLINE void block_atomic_add(T* address, T value) {
#if defined(__CUDA_ARCH__)
    atomicAdd(address, value);
#else
    *address += value;
#endif
}

}  // namespace partikel
