// A small, fully specified random number generator for initial conditions and sampling, so that
// a seed gives the same bodies on every machine and for any thread count: xoshiro256** (Blackman
// & Vigna, "Scrambled linear pseudorandom number generators", 2021), its state filled by
// splitmix64 from (seed, stream). Generators for different streams (one per body) are
// independent, so bodies are generated in parallel.
#pragma once

#include <cmath>
#include <cstdint>

namespace partikel::nbody {

class Random {
public:
    Random(std::uint64_t seed, std::uint64_t stream) {
        std::uint64_t x = seed ^ (0x9e3779b97f4a7c15ULL * (stream + 1));
        for (auto& word : state_) word = splitmix64(x);
    }

    std::uint64_t next() {
        const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
        const std::uint64_t t = state_[1] << 17;
        state_[2] ^= state_[0];
        state_[3] ^= state_[1];
        state_[1] ^= state_[2];
        state_[0] ^= state_[3];
        state_[2] ^= t;
        state_[3] = rotl(state_[3], 45);
        return result;
    }

    // Uniform in [0, 1), 53 random bits.
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    // Uniform in (0, 1].
    double uniform_positive() { return double((next() >> 11) + 1) * 0x1.0p-53; }
    // Uniform integer in [0, n), n >= 1.
    std::uint64_t below(std::uint64_t n) {
        const auto k = static_cast<std::uint64_t>(uniform() * double(n));
        return k < n ? k : n - 1;
    }
    // Standard normal deviate (Box-Muller, the cosine branch).
    double normal() {
        const double r = std::sqrt(-2.0 * std::log(uniform_positive()));
        return r * std::cos(6.283185307179586 * uniform());
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    static std::uint64_t splitmix64(std::uint64_t& x) {
        std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::uint64_t state_[4];
};

}  // namespace partikel::nbody
