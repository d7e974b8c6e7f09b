// The cell grid itself: the searched-cell table of Nitta (2019), the Sphere row table, the sort
// invariants of both builds, Morton numbering, the registration order, no allocation in the
// loop, and the errors for impossible specs.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include "core/buffer.hpp"
#include "base/error.hpp"
#include "core/memory.hpp"
#include "frnn/brute_force.hpp"
#include "frnn/cell_grid.hpp"
#include "frnn/neighbor_list.hpp"
#include "frnn/search_stats.hpp"
#include "inputs.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::frnn;
using partikel::frnn::testing::Input;

TEST_CASE("frnn.cells: searched cells reproduce the table of Nitta (2019)") {
    const std::uint64_t full[] = {27, 216, 1728, 13824};
    const std::uint64_t cube[] = {27, 125, 729, 4913};
    const std::uint64_t sphere[] = {27, 125, 613, 3449};
    for (int k = 0; k <= 3; ++k) {
        CAPTURE(k);
        CHECK(searched_cells(SearchShape::full, k) == full[k]);
        CHECK(searched_cells(SearchShape::cube, k) == cube[k]);
        CHECK(searched_cells(SearchShape::sphere, k) == sphere[k]);
    }
    // Beyond the seed's table: the Sphere approaches (4/3) pi (K + 1)^3-ish, always below the cube.
    CHECK(searched_cells(SearchShape::sphere, 4) < searched_cells(SearchShape::cube, 4));
    CHECK_THROWS_AS(searched_cells(SearchShape::cube, -1), UsageError);
}

TEST_CASE("frnn.cells: the Sphere row table is symmetric and sums to the Sphere count") {
    for (int k = 0; k <= 5; ++k) {
        CAPTURE(k);
        const int K = 1 << k, side = 2 * K + 1;
        const auto t = sphere_row_table(k);
        REQUIRE(t.size() == static_cast<std::size_t>(side * side));
        std::uint64_t cells = 0;
        for (int dz = -K; dz <= K; ++dz)
            for (int dy = -K; dy <= K; ++dy) {
                const int e = t[(dz + K) * side + (dy + K)];
                CHECK(e == t[(-dz + K) * side + (-dy + K)]);
                CHECK(e == t[(dy + K) * side + (dz + K)]);
                CHECK(e <= K);
                if (e >= 0) cells += 2 * e + 1;
            }
        CHECK(cells == searched_cells(SearchShape::sphere, k));
        CHECK(t[K * side + K] == K);  // the home row is the full cube row
    }
    // k = 2 (the thesis's hard-coded case): the corner rows (|dy| = |dz| = 4) are empty, the
    // row (dz, dy) = (-4, -3) keeps |dx| <= 2, and (-4, 0) keeps |dx| <= 3 (a gap of 3 cells in z
    // leaves 16 - 9 = 7 for x, isqrt 2, so |dx| - 1 <= 2).
    const auto t2 = sphere_row_table(2);
    CHECK(t2[0] == -1);
    CHECK(t2[1] == 2);
    CHECK(t2[4] == 3);
}

namespace {

// An interior particle of a large open grid visits exactly the nominal number of cells.
void interior_cells_body(const Backend& b) {
    for (int k = 0; k <= 3; ++k) {
        CAPTURE(k);
        GridSpec spec;
        spec.domain_min = {0, 0, 0};
        spec.domain_max = {8, 8, 8};
        spec.radius = 1;
        spec.subdivision = k;
        const std::vector<Vec3f> one = {{4.1f, 3.9f, 4.05f}};
        DeviceBuffer<Vec3f> pos(b, 1);
        pos.copy_from_host(one);
        CellGrid grid(b, spec, 1);
        grid.build(pos.data(), 1);
        for (SearchShape shape : {SearchShape::full, SearchShape::cube, SearchShape::sphere}) {
            CAPTURE(shape_name(shape));
            CHECK(search_stats(grid, shape).cells == searched_cells(shape, k));
        }
        const auto tight = search_stats(grid, SearchShape::tight).cells;
        CHECK(tight <= searched_cells(SearchShape::cube, k));
        CHECK(tight >= static_cast<std::uint64_t>((2 << k) * (2 << k) * (2 << k)));
    }
}

void build_invariants_body(const Backend& b) {
    const Input in = testing::random_input(3000, 31, true);
    const std::size_t n = in.positions.size();
    DeviceBuffer<Vec3f> pos(b, n);
    pos.copy_from_host(in.positions);
    for (bool morton : {false, true})
        for (SortMethod sort : {SortMethod::counting, SortMethod::radix})
            for (int mask : {0, 7}) {
                CAPTURE(morton);
                CAPTURE(sort == SortMethod::radix);
                CAPTURE(mask);
                CellGrid grid(b, testing::spec_for(in, 1, mask, morton, sort), n + 10);
                grid.build(pos.data(), n);
                REQUIRE(grid.size() == n);
                const std::size_t cells = grid.cell_count();
                const auto d = grid.dims();
                CHECK(cells == static_cast<std::size_t>(d[0]) * d[1] * d[2]);
                const CellGridView v = grid.view();
                std::vector<std::uint32_t> start(cells + 1), s2o(n), sc(n);
                std::vector<Vec3f> sp(n);
                copy_bytes(b, start.data(), v.cell_start, start.size() * 4, CopyDirection::device_to_host);
                copy_bytes(b, s2o.data(), grid.sorted_to_original(), n * 4, CopyDirection::device_to_host);
                copy_bytes(b, sc.data(), grid.sorted_cells(), n * 4, CopyDirection::device_to_host);
                copy_bytes(b, sp.data(), v.positions, n * sizeof(Vec3f), CopyDirection::device_to_host);
                CHECK(start[0] == 0);
                CHECK(start[cells] == n);
                CHECK(std::is_sorted(start.begin(), start.end()));
                CHECK(std::is_sorted(sc.begin(), sc.end()));
                std::vector<std::uint32_t> perm = s2o;
                std::sort(perm.begin(), perm.end());
                std::vector<std::uint32_t> iota(n);
                std::iota(iota.begin(), iota.end(), 0u);
                CHECK(perm == iota);
                bool ok = true, stable = true;
                // The view's geometry, with host copies of the tables, places each particle.
                std::vector<std::uint32_t> mr;
                if (morton) {
                    mr.resize(cells);
                    copy_bytes(b, mr.data(), v.morton_rank, cells * 4, CopyDirection::device_to_host);
                    std::vector<std::uint32_t> sorted_mr = mr;
                    std::sort(sorted_mr.begin(), sorted_mr.end());
                    std::vector<std::uint32_t> ids(cells);
                    std::iota(ids.begin(), ids.end(), 0u);
                    CHECK(sorted_mr == ids);
                }
                CellGridView host = v;
                host.morton_rank = morton ? mr.data() : nullptr;
                for (std::size_t k = 0; k < n; ++k) {
                    const Vec3f p = in.positions[s2o[k]];
                    ok = ok && sp[k].x == p.x && sp[k].y == p.y && sp[k].z == p.z;
                    ok = ok && cell_of(host, p) == sc[k] && start[sc[k]] <= k && k < start[sc[k] + 1];
                    if (k > 0 && sc[k] == sc[k - 1]) stable = stable && s2o[k] > s2o[k - 1];
                }
                CHECK(ok);
                if (sort == SortMethod::radix) CHECK(stable);
            }
}

// Morton numbering: cells nearby in space get nearby ids (the Z-order of a 4x4x4 block).
// The ball examines the same neighbours as the tight box from fewer candidates: about 2/3 of
// them at k = 1 and 0.6 at k = 2 in the bulk (a Monte Carlo estimate over positions in a cell
// gives 0.67 and 0.61), never more.
TEST_CASE("frnn.cells: the ball finds the tight box's neighbours from about 2/3 of its candidates") {
    const Input in = testing::jittered_lattice(24, 24, 24, 5);
    const std::size_t n = in.positions.size();
    const Backend b = Backend::cpu(1);
    DeviceBuffer<Vec3f> pos(b, n);
    pos.copy_from_host(in.positions);
    const double bulk_ratio[] = {0.9, 0.72, 0.66, 0.64};
    for (int k = 0; k <= 3; ++k) {
        CAPTURE(k);
        CellGrid grid(b, testing::spec_for(in, k, 0), n);
        grid.build(pos.data(), n);
        const SearchStats tight = search_stats(grid, SearchShape::tight), ball = search_stats(grid, SearchShape::ball);
        CHECK(ball.neighbors == tight.neighbors);
        CHECK(ball.candidates <= tight.candidates);
        CHECK(ball.cells <= tight.cells);
        const double ratio = double(ball.candidates) / double(tight.candidates);
        CAPTURE(ratio);
        CHECK(ratio <= bulk_ratio[k]);
    }
}

TEST_CASE("frnn.cells: Morton ranks follow the Z-order") {
    const Backend b = Backend::cpu(1);
    GridSpec spec;
    spec.domain_min = {0, 0, 0};
    spec.domain_max = {3.9f, 3.9f, 3.9f};
    spec.radius = 1;
    spec.morton = true;
    CellGrid grid(b, spec, 1);
    REQUIRE(grid.dims() == std::array<int, 3>{4, 4, 4});
    const CellGridView v = grid.view();
    CHECK(cell_id(v, 0, 0, 0) == 0);
    CHECK(cell_id(v, 1, 0, 0) == 1);
    CHECK(cell_id(v, 0, 1, 0) == 2);
    CHECK(cell_id(v, 1, 1, 0) == 3);
    CHECK(cell_id(v, 0, 0, 1) == 4);
    CHECK(cell_id(v, 2, 0, 0) == 8);
    CHECK(cell_id(v, 3, 3, 3) == 63);
}

// the registration order of Nitta (2019): in each row, the entries from the cells that the whole
// x group searches come first, and particles of one group list their common neighbours from
// those cells in the same relative order.
void registration_order_body(const Backend& b) {
    const Input in = testing::jittered_lattice(16, 8, 8, 41);
    const std::size_t n = in.positions.size();
    DeviceBuffer<Vec3f> pos(b, n);
    pos.copy_from_host(in.positions);
    for (int k : {1, 2}) {
        CAPTURE(k);
        const int K = 1 << k;
        CellGrid grid(b, testing::spec_for(in, k, 0), n);
        grid.build(pos.data(), n);
        ListOptions o;
        o.shape = SearchShape::cube;
        o.order = ListOrder::shared_first;
        o.indices = IndexSpace::sorted;
        NeighborList list(b, n, n * 200, o);
        list.build(grid);
        HostNeighborLists L;
        list.copy_to_host(L.offsets, L.indices);
        std::vector<std::uint32_t> sc(n);
        copy_bytes(b, sc.data(), grid.sorted_cells(), n * 4, CopyDirection::device_to_host);
        const auto d = grid.dims();
        auto ix_of = [&](std::uint32_t c) { return static_cast<int>(c % static_cast<std::uint32_t>(d[0])); };
        auto row_of = [&](std::uint32_t c) { return c / static_cast<std::uint32_t>(d[0]); };
        auto in_shared = [&](std::uint32_t home, std::uint32_t j) {
            const int hx = ix_of(home);
            const int gb = hx / K * K, ge = std::min(gb + K - 1, d[0] - 1);
            const int x = ix_of(sc[j]);
            return x >= std::max(ge - K, 0) && x <= std::min(gb + K, d[0] - 1);
        };
        bool prefix = true, same_order = true;
        std::size_t compared = 0;
        for (std::size_t a = 0; a < n; ++a) {
            auto row = L.row(a);
            bool outside_seen = false;
            for (auto j : row) {
                const bool s = in_shared(sc[a], j);
                if (s && outside_seen) prefix = false;
                if (!s) outside_seen = true;
            }
            // Compare with the first particle of the next cell in the same group.
            const std::uint32_t ca = sc[a];
            const int hx = ix_of(ca);
            if (hx % K == K - 1 || hx + 1 >= d[0]) continue;
            const auto next = std::lower_bound(sc.begin(), sc.end(), ca + 1) - sc.begin();
            if (next >= static_cast<long>(n) || sc[next] != ca + 1 || row_of(sc[next]) != row_of(ca)) continue;
            auto other = L.row(static_cast<std::size_t>(next));
            std::set<std::uint32_t> in_other(other.begin(), other.end()), in_mine(row.begin(), row.end());
            std::vector<std::uint32_t> mine_common, other_common;
            for (auto j : row)
                if (in_shared(ca, j) && in_other.count(j)) mine_common.push_back(j);
            for (auto j : other)
                if (in_shared(ca, j) && in_mine.count(j)) other_common.push_back(j);
            same_order = same_order && mine_common == other_common;
            ++compared;
        }
        CHECK(prefix);
        CHECK(same_order);
        CHECK(compared > 100);
    }
}

void no_allocation_body(const Backend& b) {
    const Input in = testing::jittered_lattice(14, 14, 14, 51);
    const std::size_t n = in.positions.size();
    DeviceBuffer<Vec3f> pos(b, n);
    pos.copy_from_host(in.positions);
    for (SortMethod sort : {SortMethod::counting, SortMethod::radix}) {
        GridSpec spec = testing::spec_for(in, 1, 7, true, sort);
        CellGrid grid(b, spec, n);
        NeighborList csr(b, n, n * 150, {});
        ListOptions so;
        so.layout = ListLayout::strided;
        NeighborList strided(b, n, 150, so);
        grid.build(pos.data(), n);
        csr.build(grid);
        const auto before = device_allocation_count();
        for (int step = 0; step < 3; ++step) {
            grid.build(pos.data(), n);
            csr.build(grid);
            strided.build(grid);
        }
        CHECK(device_allocation_count() == before);
        CHECK(csr.total() == strided.total());
        CHECK(csr.total() > n * 60);
    }
}

// CSR rows start at multiples of 8 entries and the padding after a row holds 0xffffffff, so
// the fill writes whole 32-byte sectors; the view's size() is the true count.
void row_padding_body(const Backend& b) {
    const Input in = testing::random_input(2000, 71);
    const std::size_t n = in.positions.size();
    DeviceBuffer<Vec3f> pos(b, n);
    pos.copy_from_host(in.positions);
    CellGrid grid(b, testing::spec_for(in, 1, 0), n);
    grid.build(pos.data(), n);
    NeighborList probe(b, n, 1, {});
    const std::uint64_t padded = probe.count(grid);
    NeighborList list(b, n, padded, {});
    list.build(grid);
    const NeighborListView v = list.view();
    std::vector<std::uint64_t> offsets(n + 1);
    std::vector<std::uint32_t> counts(n), entries(padded);
    copy_bytes(b, offsets.data(), v.offsets, (n + 1) * 8, CopyDirection::device_to_host);
    copy_bytes(b, counts.data(), v.counts, n * 4, CopyDirection::device_to_host);
    copy_bytes(b, entries.data(), v.indices, padded * 4, CopyDirection::device_to_host);
    CHECK(offsets[n] == padded);
    std::uint64_t total = 0;
    bool aligned = true, padding = true, valid = true;
    for (std::size_t i = 0; i < n; ++i) {
        total += counts[i];
        aligned = aligned && offsets[i] % 8 == 0 && offsets[i + 1] - offsets[i] == (counts[i] + 7) / 8 * 8;
        for (std::uint64_t e = offsets[i]; e < offsets[i + 1]; ++e) {
            if (e < offsets[i] + counts[i]) valid = valid && entries[e] < n;
            else padding = padding && entries[e] == 0xffffffffu;
        }
    }
    CHECK(aligned);
    CHECK(padding);
    CHECK(valid);
    CHECK(list.total() == total);
    CHECK(padded - total < 8 * n);
    NeighborList too_small(b, n, padded - 1, {});
    CHECK_THROWS_AS(too_small.build(grid), UsageError);
}

void capacity_errors_body(const Backend& b) {
    const Input in = testing::jittered_lattice(8, 8, 8, 61);
    const std::size_t n = in.positions.size();
    DeviceBuffer<Vec3f> pos(b, n);
    pos.copy_from_host(in.positions);
    CellGrid grid(b, testing::spec_for(in, 0, 0), n);
    CHECK_THROWS_AS(grid.build(pos.data(), n + 1), UsageError);
    grid.build(pos.data(), n);
    NeighborList small(b, n, 10, {});
    CHECK_THROWS_AS(small.build(grid), UsageError);
    CHECK(small.rows() == 0);
    ListOptions so;
    so.layout = ListLayout::strided;
    NeighborList shallow(b, n, 5, so);
    CHECK_THROWS_AS(shallow.build(grid), UsageError);
    NeighborList too_few_rows(b, n - 1, n * 200, {});
    CHECK_THROWS_AS(too_few_rows.build(grid), UsageError);
}

}  // namespace

PK_BACKEND_TEST("frnn.cells: an interior particle visits the nominal cells", interior_cells_body)
PK_BACKEND_TEST("frnn.grid: counting and radix builds sort by cell (linear and Morton)", build_invariants_body)
PK_BACKEND_TEST("frnn.list: shared-first registration order", registration_order_body)
PK_BACKEND_TEST("frnn.grid: no allocation in build and list build", no_allocation_body)
PK_BACKEND_TEST("frnn.list: capacity errors are reported", capacity_errors_body)
PK_BACKEND_TEST("frnn.list: CSR rows are padded to whole sectors", row_padding_body)

TEST_CASE("frnn.grid: impossible specs are usage errors") {
    const Backend b = Backend::cpu(1);
    GridSpec s;
    s.domain_min = {0, 0, 0};
    s.domain_max = {1, 1, 1};
    s.radius = 0.1f;
    CHECK_NOTHROW(CellGrid(b, s, 10));
    GridSpec bad = s;
    bad.radius = 0;
    CHECK_THROWS_AS(CellGrid(b, bad, 10), UsageError);
    bad = s;
    bad.subdivision = 4;
    CHECK_THROWS_AS(CellGrid(b, bad, 10), UsageError);
    bad = s;
    bad.domain_max.x = -1;
    CHECK_THROWS_AS(CellGrid(b, bad, 10), UsageError);
    bad = s;
    bad.domain_max.y = 0;
    bad.boundary[1] = Boundary::periodic;
    CHECK_THROWS_AS(CellGrid(b, bad, 10), UsageError);
    bad = s;
    bad.radius = 1e-6f;
    bad.domain_max = {100, 100, 100};
    CHECK_THROWS_AS(CellGrid(b, bad, 10), UsageError);
    ListOptions o;
    o.order = ListOrder::shared_first;  // needs a block shape
    CHECK_THROWS_AS(NeighborList(b, 10, 10, o), UsageError);
    // A flat domain (zero thickness, open) is fine: one cell along that axis.
    GridSpec flat = s;
    flat.domain_max.z = 0;
    CellGrid g(b, flat, 10);
    CHECK(g.dims()[2] == 1);
}
