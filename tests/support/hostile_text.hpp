// Hostile variants of a valid text input, for fuzz tests of the parsers of untrusted text
// (lattices, tables, camera paths, CSV particles): random bytes, single bytes damaged,
// inserted or deleted at random places, truncations, fragments repeated thousands of times
// (nesting, long lines, many fields), and numbers no type holds. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace partikel::test {

inline std::vector<std::string> hostile_texts(const std::string& valid, std::uint64_t seed, int count) {
    static const char* const fragments[] = {
        "(", ")", "{", "}", ",", ";", "=", ":=", ":", "-", "+", "^", "/", "*", "\"", "'", "#", "!", "/*", "\n",
        "\r\n", "\t", " ", "1e400", "-1e400", "nan", "inf", "1/0", "0", "-0", "18446744073709551616",
        "9223372036854775807", "1e-400", "x", "repeat 1000000000\n", "end\n", "\xEF\xBB\xBF", "\xFF\xFE", "\x80",
    };
    constexpr int kinds = 6;
    std::mt19937_64 rng(seed);
    const auto below = [&](std::size_t n) { return n == 0 ? std::size_t(0) : std::size_t(rng() % n); };
    const auto fragment = [&] { return std::string(fragments[below(std::size(fragments))]); };
    std::vector<std::string> out;
    for (int i = 0; i < count; ++i) {
        std::string text = valid;
        switch (i % kinds) {
            case 0: {  // random bytes, some of them text
                text.resize(below(512));
                for (char& c : text) c = char(rng() % 4 == 0 ? rng() : 32 + rng() % 95);
                break;
            }
            case 1:  // a few bytes changed
                for (int k = 0, n = 1 + int(below(4)); k < n && !text.empty(); ++k) text[below(text.size())] = char(rng());
                break;
            case 2:  // fragments inserted
                for (int k = 0, n = 1 + int(below(8)); k < n; ++k) text.insert(below(text.size() + 1), fragment());
                break;
            case 3:  // bytes deleted, or the text cut short
                if (rng() % 2) text.resize(below(text.size() + 1));
                else if (!text.empty()) text.erase(below(text.size()), 1 + below(16));
                break;
            case 4: {  // one fragment repeated thousands of times: nesting, long lines, many fields
                const std::string f = fragment();
                std::string run;
                for (std::size_t k = 0, n = 1000 + below(30000); k < n; ++k) run += f;
                text.insert(below(text.size() + 1), run);
                break;
            }
            case 5:  // a line repeated
                if (const auto end = text.find('\n'); end != std::string::npos) {
                    const std::string line = text.substr(0, end + 1);
                    for (std::size_t k = 0, n = below(2000); k < n; ++k) text.insert(0, line);
                }
                break;
        }
        out.push_back(std::move(text));
    }
    return out;
}

}  // namespace partikel::test
