// The brute-force oracle: every pair tested, on the host, with the same float operations as the
// grid (Box::displacement, distance2). Tests and `frnn-build --check` compare against it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/vec.hpp"
#include "frnn/box.hpp"

namespace partikel::frnn {

// Neighbour lists on the host in CSR form: row r is indices[offsets[r], offsets[r+1]).
struct HostNeighborLists {
    std::vector<std::uint64_t> offsets{0};
    std::vector<std::uint32_t> indices;
    std::size_t rows() const { return offsets.size() - 1; }
    std::span<const std::uint32_t> row(std::size_t r) const {
        return {indices.data() + offsets[r], static_cast<std::size_t>(offsets[r + 1] - offsets[r])};
    }
};

// For each query particle q (every particle when `queries` is empty), the ascending indices j
// of all particles with distance2(box.displacement(p_q, p_j)) <= radius^2, q itself included.
// O(queries x n), OpenMP on `threads` threads (0: all).
HostNeighborLists brute_force_neighbors(std::span<const Vec3f> positions, const Box& box, float radius,
                                        std::span<const std::uint32_t> queries = {}, int threads = 0);

// Compares `got` (rows for every particle, any order inside a row) with `expected` (rows for
// `queries`, or for every particle when empty) as sets. Returns a description of the first
// difference ("particle 17: missing 4 (r = ...)" ...), or nullopt when they agree.
std::optional<std::string> first_difference(const HostNeighborLists& expected, const HostNeighborLists& got,
                                            std::span<const std::uint32_t> queries = {});

}  // namespace partikel::frnn
