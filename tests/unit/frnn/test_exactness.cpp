// Every search shape, subdivision, numbering, sort and list layout returns exactly the
// brute-force neighbour sets (frnn/brute_force.hpp), open and periodic, on every backend.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/buffer.hpp"
#include "core/dispatch.hpp"
#include "frnn/brute_force.hpp"
#include "frnn/cell_grid.hpp"
#include "frnn/neighbor_list.hpp"
#include "frnn/search_stats.hpp"
#include "inputs.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::frnn;
using partikel::frnn::testing::Input;

// The exhaustive sweeps are cheap on a GPU and slow on a small CPU: CPU runs the default suite
// on one backend with fewer combinations (`thorough` false), the "slow" suite runs them all
// on every CPU backend, and the "gpu" suite runs them all on CUDA.
#define FRNN_SWEEP_TEST(name, body)                                                       \
    TEST_CASE(name " [cpu]") { body(Backend::cpu(3), false); }                            \
    TEST_CASE(name " [cpu, every combination]" * doctest::test_suite("slow")) {           \
        for (const auto& backend : ::partikel::test::cpu_backends()) {                    \
            CAPTURE(backend.describe());                                                  \
            body(backend, true);                                                          \
        }                                                                                 \
    }                                                                                     \
    TEST_CASE(name " [cuda]" * doctest::test_suite("gpu")) { body(::partikel::test::cuda_backend(), true); }

namespace {

constexpr SearchShape kShapes[] = {SearchShape::tight, SearchShape::full, SearchShape::cube, SearchShape::sphere,
                                   SearchShape::ball};
constexpr int kMasks[] = {0, 7, 5};  // open, periodic, periodic in x and z only

std::string mask_name(int mask) { return mask == 0 ? "open" : mask == 7 ? "periodic" : "periodic-xz"; }

// The list of every particle, as CSR in original indices, on the host.
HostNeighborLists list_on(const Backend& b, const Input& in, const GridSpec& spec, ListOptions options) {
    const std::size_t n = in.positions.size();
    DeviceBuffer<Vec3f> pos(b, std::max<std::size_t>(n, 1));
    if (n) pos.copy_from_host(in.positions);
    CellGrid grid(b, spec, n);
    grid.build(pos.data(), n);
    NeighborList probe(b, n, 1, options.layout == ListLayout::strided ? options : ListOptions{});
    const std::uint64_t need = probe.count(grid);  // entries (CSR) or the largest row (strided)
    NeighborList list(b, n, std::max<std::uint64_t>(need, 1), options);
    list.build(grid);
    HostNeighborLists out;
    list.copy_to_host(out.offsets, out.indices);
    if (options.indices == IndexSpace::sorted) {
        // Translate rows and entries back to original indices.
        std::vector<std::uint32_t> tmp(n);
        if (n) copy_bytes(b, tmp.data(), grid.sorted_to_original(), n * sizeof(std::uint32_t), CopyDirection::device_to_host);
        HostNeighborLists orig;
        orig.offsets.assign(n + 1, 0);
        std::vector<std::uint32_t> row_of(n);
        for (std::size_t k = 0; k < n; ++k) row_of[tmp[k]] = static_cast<std::uint32_t>(k);
        for (std::size_t i = 0; i < n; ++i) orig.offsets[i + 1] = orig.offsets[i] + out.row(row_of[i]).size();
        for (std::size_t i = 0; i < n; ++i)
            for (auto j : out.row(row_of[i])) orig.indices.push_back(tmp[j]);
        return orig;
    }
    return out;
}

void check_same(const HostNeighborLists& expected, const HostNeighborLists& got) {
    auto diff = first_difference(expected, got);
    INFO((diff ? *diff : std::string("equal")));
    CHECK(!diff);
    CHECK(got.rows() == expected.rows());
}

void every_shape_and_k_body(const Backend& b, bool thorough) {
    for (const Input& in : testing::all_inputs()) {
        for (int mask : kMasks) {
            if (!thorough && mask == 5) continue;
            CAPTURE(in.name);
            CAPTURE(mask_name(mask));
            const GridSpec base = testing::spec_for(in, 0, mask);
            const auto expected = brute_force_neighbors(in.positions, make_box(base), in.radius);
            for (int k = 0; k <= 3; ++k) {
                CAPTURE(k);
                for (SearchShape shape : kShapes) {
                    // k = 3 "full" visits 13824 cells per particle: GPU and slow suite only.
                    if (!thorough && k == 3 && shape == SearchShape::full) continue;
                    CAPTURE(shape_name(shape));
                    ListOptions o;
                    o.shape = shape;
                    check_same(expected, list_on(b, in, testing::spec_for(in, k, mask), o));
                }
            }
        }
    }
}

void numbering_sort_layout_body(const Backend& b, bool thorough) {
    const Input inputs[] = {testing::random_input(thorough ? 900 : 400, 11, true), testing::clustered(12),
                            testing::borders(), testing::tiny_box(13)};
    for (const Input& in : inputs) {
        for (int mask : kMasks) {
            if (!thorough && mask == 5) continue;
            CAPTURE(in.name);
            CAPTURE(mask_name(mask));
            const auto expected = brute_force_neighbors(in.positions, make_box(testing::spec_for(in, 0, mask)), in.radius);
            for (int k : {0, 1, 2}) {
                CAPTURE(k);
                for (bool morton : {false, true})
                    for (SortMethod sort : {SortMethod::counting, SortMethod::radix}) {
                        CAPTURE(morton);
                        CAPTURE(sort == SortMethod::radix);
                        for (SearchShape shape : {SearchShape::tight, SearchShape::sphere}) {
                            CAPTURE(shape_name(shape));
                            ListOptions o;
                            o.shape = shape;
                            check_same(expected, list_on(b, in, testing::spec_for(in, k, mask, morton, sort), o));
                        }
                    }
                ListOptions strided;
                strided.layout = ListLayout::strided;
                check_same(expected, list_on(b, in, testing::spec_for(in, k, mask), strided));
                ListOptions sorted;
                sorted.indices = IndexSpace::sorted;
                sorted.shape = SearchShape::cube;
                check_same(expected, list_on(b, in, testing::spec_for(in, k, mask), sorted));
                for (SearchShape shape : {SearchShape::full, SearchShape::cube, SearchShape::sphere}) {
                    ListOptions grouped;
                    grouped.shape = shape;
                    grouped.order = ListOrder::shared_first;
                    check_same(expected, list_on(b, in, testing::spec_for(in, k, mask), grouped));
                    grouped.group_log2 = k + 1;
                    grouped.layout = ListLayout::strided;
                    check_same(expected, list_on(b, in, testing::spec_for(in, k, mask), grouped));
                }
            }
        }
    }
}

// Pairs at distance r across the grid's own cell borders, for every k, shape and boundary.
void cell_border_body(const Backend& b, bool /*thorough*/) {
    for (const Input& base : {testing::random_input(1, 81), testing::tiny_box(82), testing::exact_lattice()}) {
        for (int mask : kMasks)
            for (int k = 0; k <= 3; ++k) {
                const GridSpec spec = testing::spec_for(base, k, mask);
                CellGrid probe(Backend::cpu(1), spec, 1);
                const Input in = testing::border_pairs(base, probe.view());
                CAPTURE(base.name);
                CAPTURE(mask_name(mask));
                CAPTURE(k);
                const auto expected = brute_force_neighbors(in.positions, make_box(spec), in.radius);
                REQUIRE(expected.indices.size() > in.positions.size());
                for (SearchShape shape : kShapes) {
                    CAPTURE(shape_name(shape));
                    ListOptions o;
                    o.shape = shape;
                    check_same(expected, list_on(b, in, spec, o));
                }
            }
    }
}

// for_each_neighbor itself (not through a list), with the statistics kernel: neighbours per
// particle equal the brute-force counts, and candidates >= neighbours.
void callback_counts_body(const Backend& b, bool thorough) {
    for (const Input& in : {thorough ? testing::jittered_lattice(14, 12, 10, 21) : testing::jittered_lattice(9, 8, 7, 21),
                            testing::random_input(thorough ? 800 : 400, 22, true)}) {
        for (int mask : kMasks) {
            CAPTURE(in.name);
            CAPTURE(mask_name(mask));
            const std::size_t n = in.positions.size();
            const auto expected = brute_force_neighbors(in.positions, make_box(testing::spec_for(in, 0, mask)), in.radius);
            DeviceBuffer<Vec3f> pos(b, n);
            pos.copy_from_host(in.positions);
            for (int k = 0; k <= 3; ++k) {
                CellGrid grid(b, testing::spec_for(in, k, mask), n);
                grid.build(pos.data(), n);
                std::vector<std::uint32_t> s2o(n);
                copy_bytes(b, s2o.data(), grid.sorted_to_original(), n * 4, CopyDirection::device_to_host);
                for (SearchShape shape : kShapes) {
                    CAPTURE(k);
                    CAPTURE(shape_name(shape));
                    DeviceBuffer<std::uint32_t> counts(b, n), nb(b, n), cand(b, n);
                    count_neighbors(grid, shape, counts.data());
                    with_exec(b, [&](const auto& e) { search_stats_per_particle(e, grid.view(), shape, nb.data(), cand.data(), nullptr); });
                    const auto h_counts = counts.to_vector(), h_nb = nb.to_vector(), h_cand = cand.to_vector();
                    bool ok = true;
                    for (std::size_t s = 0; s < n; ++s) {
                        const auto want = expected.row(s2o[s]).size();
                        ok = ok && h_counts[s] == want && h_nb[s] == want && h_cand[s] >= want;
                    }
                    CHECK(ok);
                }
            }
        }
    }
}

// for_each_neighbor_record (batched and warp-synchronous on the GPU) visits exactly the
// neighbours of for_each_neighbor, in the same order, for every k, numbering and boundary.
void record_traversal_body(const Backend& b, bool thorough) {
    for (const Input& in : testing::all_inputs()) {
        for (int mask : kMasks) {
            if (!thorough && mask == 5) continue;
            CAPTURE(in.name);
            CAPTURE(mask_name(mask));
            const std::size_t n = in.positions.size();
            if (n == 0) continue;
            DeviceBuffer<Vec3f> pos(b, n);
            pos.copy_from_host(in.positions);
            DeviceBuffer<std::uint64_t> plain(b, n), records(b, n);
            for (int k = 0; k <= 3; ++k)
                for (bool morton : {false, true}) {
                    CAPTURE(k);
                    CAPTURE(morton);
                    CellGrid grid(b, testing::spec_for(in, k, mask, morton), n);
                    grid.build(pos.data(), n);
                    neighbor_visit_digests(grid, false, plain.data());
                    neighbor_visit_digests(grid, true, records.data());
                    const auto expected = plain.to_vector(), got = records.to_vector();
                    std::size_t differ = 0;
                    for (std::size_t i = 0; i < n; ++i) differ += expected[i] != got[i];
                    CHECK(differ == 0);
                }
        }
    }
}

}  // namespace

FRNN_SWEEP_TEST("frnn.exact: every shape and k equals brute force (open, periodic)", every_shape_and_k_body)
FRNN_SWEEP_TEST("frnn.exact: Morton, radix sort, strided, sorted and shared-first lists", numbering_sort_layout_body)
FRNN_SWEEP_TEST("frnn.exact: pairs at distance r across cell borders", cell_border_body)
FRNN_SWEEP_TEST("frnn.exact: for_each_neighbor counts equal brute force", callback_counts_body)
FRNN_SWEEP_TEST("frnn.exact: for_each_neighbor_record visits the same neighbours in the same order", record_traversal_body)
