// Fixed-radius neighbour search: the evaluation Nitta (2019) left empty (Nitta 2019).
// For each case (a jittered lattice of spacing dx = 1 with N particles and radius r) it times,
// as medians of repeated runs after a warm-up (DeviceTimer: CUDA events on the GPU):
//   - the grid build (counting sort vs radix sort; per subdivision k),
//   - the count-only callback query (for_each_neighbor counting neighbours) per k and shape,
//   - the full CSR neighbour list (grid build + count pass + scan + fill pass, kept on the
//     device) per k and shape, and the single-pass strided list,
//   - the Verlet list: build at r + skin and one reuse step (query through the list),
// with candidates examined per neighbour found for every (k, shape). Prints a table and writes
// JSON lines (--json FILE).
//
//   bench_frnn --device cuda --json frnn.jsonl              # the whole sweep (a few minutes, H100)
//   bench_frnn --device cpu --sizes 100000 --quick          # a small CPU run
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.hpp"
#include "bench_program.hpp"
#include "core/buffer.hpp"
#include "core/dispatch.hpp"
#include "core/timer.hpp"
#include "frnn/cell_grid.hpp"
#include "frnn/neighbor_list.hpp"
#include "frnn/search_stats.hpp"
#include "frnn/verlet_list.hpp"
#include "partikel_config.hpp"

using namespace partikel;
using frnn::SearchShape;

namespace {

struct Case {
    std::string name;
    int side = 0;          // lattice side: N = side^3
    float radius = 3.0f;   // in lattice spacings (dx = 1 m)
};

// A jittered lattice of spacing 1 m (jitter +-0.25 m per axis), particles in random order (as
// a simulation that has not sorted them yet), domain [0, side]^3 with open faces.
std::vector<Vec3f> jittered_lattice(int side, std::uint32_t seed) {
    const std::size_t n = static_cast<std::size_t>(side) * side * side;
    std::vector<Vec3f> p(n);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-0.25f, 0.25f);
    std::size_t i = 0;
    for (int z = 0; z < side; ++z)
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x) p[i++] = {x + 0.5f + u(rng), y + 0.5f + u(rng), z + 0.5f + u(rng)};
    std::shuffle(p.begin(), p.end(), rng);
    return p;
}

class Report {
public:
    Report(const std::string& json_path, std::string device) : device_(std::move(device)) {
        if (!json_path.empty()) json_.open(json_path, std::ios::app);
    }
    // One result row; `extra` is pre-formatted JSON members (",\"a\":1").
    void row(const Case& c, std::size_t n, const std::string& what, int k, const std::string& shape, double seconds,
             double cand_per_nb, double mean_nb, const std::string& extra = "") {
        std::printf("%-10s %9zu %-22s %2d %-7s %10.3f %8.1f %9.2f %8.1f\n", c.name.c_str(), n, what.c_str(), k,
                    shape.c_str(), seconds * 1e3, n / seconds / 1e6, cand_per_nb, mean_nb);
        std::fflush(stdout);
        if (json_)
            json_ << "{\"bench\":\"frnn\",\"commit\":\"" << PARTIKEL_GIT_COMMIT << "\",\"device\":\"" << device_
                  << "\",\"case\":\"" << c.name << "\",\"particles\":" << n << ",\"radius_dx\":" << c.radius
                  << ",\"what\":\"" << what << "\",\"k\":" << k << ",\"shape\":\"" << shape << "\",\"seconds\":"
                  << seconds << ",\"mparticles_per_s\":" << n / seconds / 1e6 << ",\"candidates_per_neighbor\":"
                  << cand_per_nb << ",\"neighbors_mean\":" << mean_nb << extra << "}\n"
                  << std::flush;
    }

private:
    std::string device_;
    std::ofstream json_;
};

}  // namespace

int main(int argc, char** argv) {
    bench::BenchProgram tool("bench_frnn", "Benchmark fixed-radius neighbour search (grid, queries, lists, Verlet)");
    std::vector<std::size_t> sizes;
    int repeats = 5;
    bool quick = false;
    double dense_radius = 4.6;  // lattice spacings: about 400 neighbours
    std::vector<int> ks = {0, 1, 2, 3};
    tool.app().add_option("--sizes", sizes, "Particle counts (cube lattices; default 1M,4M,8M,16M)")->delimiter(',');
    tool.app().add_option("--ks", ks, "Subdivisions to sweep (default 0,1,2,3)")->delimiter(',');
    tool.app().add_option("--dense-radius", dense_radius, "Radius of the high-density case [dx]")->capture_default_str();
    tool.app().add_option("--repeats", repeats, "Timed repetitions (median reported)")->capture_default_str();
    tool.app().add_flag("--quick", quick, "Fewer variants (tight and sphere only, no k = 3 lists)");
    return tool.run(argc, argv, [&]() {
        const Backend b = tool.open_backend();
        if (sizes.empty()) sizes = {1000000, 4000000, 8000000, 16000000};
        std::vector<Case> cases;
        for (std::size_t n : sizes) {
            const int side = static_cast<int>(std::lround(std::cbrt(static_cast<double>(n))));
            cases.push_back({"r3dx", side, 3.0f});
        }
        {
            // High density: the smallest size at ~400 neighbours.
            const int side = static_cast<int>(std::lround(std::cbrt(static_cast<double>(sizes.front()))));
            cases.push_back({"dense", side, static_cast<float>(dense_radius)});
        }
        Report report(tool.json_path(), b.describe());
        std::printf("# %s, commit %s, median of %d\n", b.describe().c_str(), PARTIKEL_GIT_COMMIT, repeats);
        std::printf("%-10s %9s %-22s %2s %-7s %10s %8s %9s %8s\n", "case", "N", "what", "k", "shape", "ms", "Mpart/s",
                    "cand/nb", "nb/part");

        for (const Case& c : cases) {
            const auto host = jittered_lattice(c.side, 12345);
            const std::size_t n = host.size();
            DeviceBuffer<Vec3f> pos(b, n);
            pos.copy_from_host(host);
            DeviceBuffer<std::uint32_t> counts(b, n);
            DeviceBuffer<Vec3f> sorted_pos(b, n);
            const std::vector<SearchShape> shapes =
                quick ? std::vector<SearchShape>{SearchShape::tight, SearchShape::ball, SearchShape::sphere}
                      : std::vector<SearchShape>{SearchShape::tight, SearchShape::ball, SearchShape::full,
                                                 SearchShape::cube, SearchShape::sphere};
            for (int k : ks) {
                frnn::GridSpec spec;
                spec.domain_min = {0, 0, 0};
                spec.domain_max = {float(c.side), float(c.side), float(c.side)};
                spec.radius = c.radius;
                spec.subdivision = k;
                std::optional<frnn::CellGrid> grid;
                try {
                    grid.emplace(b, spec, n);
                } catch (const Error& e) {
                    std::printf("%-10s %9zu skip k=%d: %s\n", c.name.c_str(), n, k, e.what());
                    continue;
                }
                // Grid build: counting sort (the default) and, at k = 0, the radix sort.
                const double t_grid = median_device_seconds(b, repeats, [&] { grid->build(pos.data(), n); });
                grid->enable_timing(true);
                grid->build(pos.data(), n);
                const auto gt = grid->last_build_times();
                grid->enable_timing(false);
                std::ostringstream phases;
                phases << ",\"count_s\":" << gt.count_s << ",\"scan_s\":" << gt.scan_s << ",\"permute_s\":" << gt.permute_s
                       << ",\"cells\":" << grid->cell_count();
                report.row(c, n, "grid-build-counting", k, "-", t_grid, 0, 0, phases.str());
                // A simulation keeps its particles in (nearly) cell order: build from sorted input.
                copy_bytes(b, sorted_pos.data(), grid->view().positions, n * sizeof(Vec3f), CopyDirection::device_to_device);
                const double t_presorted = median_device_seconds(b, repeats, [&] { grid->build(sorted_pos.data(), n); });
                report.row(c, n, "grid-build-presorted", k, "-", t_presorted, 0, 0);
                if (k == 0) {
                    frnn::GridSpec radix = spec;
                    radix.sort = frnn::SortMethod::radix;
                    frnn::CellGrid rgrid(b, radix, n);
                    const double t_radix = median_device_seconds(b, repeats, [&] { rgrid.build(pos.data(), n); });
                    report.row(c, n, "grid-build-radix", k, "-", t_radix, 0, 0);
                    frnn::GridSpec morton = spec;
                    morton.morton = true;
                    frnn::CellGrid mgrid(b, morton, n);
                    mgrid.build(pos.data(), n);
                    const double t_morton = median_device_seconds(
                        b, repeats, [&] { frnn::count_neighbors(mgrid, SearchShape::tight, counts.data()); });
                    const auto ms = frnn::search_stats(mgrid, SearchShape::tight);
                    report.row(c, n, "query-count-morton", k, "tight", t_morton, ms.candidates_per_neighbor(),
                               ms.mean_neighbors());
                }
                grid->build(pos.data(), n);
                for (SearchShape shape : shapes) {
                    // k = 3 full is 13824 cells per particle: only at the smallest size.
                    if (shape == SearchShape::full && k == 3 && n > 2000000) continue;
                    const auto st = frnn::search_stats(*grid, shape);
                    const double t_count = median_device_seconds(b, repeats, [&] { frnn::count_neighbors(*grid, shape, counts.data()); });
                    std::ostringstream cells;
                    cells << ",\"cells_mean\":" << double(st.cells) / double(std::max<std::uint64_t>(st.particles, 1))
                          << ",\"cells_nominal\":" << frnn::searched_cells(shape, k);
                    report.row(c, n, "query-count", k, frnn::shape_name(shape), t_count, st.candidates_per_neighbor(),
                               st.mean_neighbors(), cells.str());
                    if (quick && k == 3) continue;
                    if (shape == SearchShape::full && k >= 2) continue;
                    // Full CSR list kept on the device (grid build + count + scan + fill), rows in
                    // cell order (a solver keeping its particles sorted) and in original order.
                    for (frnn::IndexSpace space : {frnn::IndexSpace::sorted, frnn::IndexSpace::original}) {
                        if (quick && space == frnn::IndexSpace::original) continue;
                        frnn::ListOptions lo;
                        lo.shape = shape;
                        lo.indices = space;
                        frnn::NeighborList list(b, n, st.neighbors + 8 * n, lo);  // + row padding
                        const double t_list = median_device_seconds(b, repeats, [&] {
                            grid->build(pos.data(), n);
                            list.build(*grid);
                        });
                        list.enable_timing(true);
                        list.build(*grid);
                        const auto lt = list.last_build_times();
                        std::ostringstream extra;
                        extra << ",\"list_count_s\":" << lt.count_s << ",\"list_scan_s\":" << lt.scan_s
                              << ",\"list_fill_s\":" << lt.fill_s << ",\"entries\":" << list.total()
                              << ",\"list_bytes\":" << list.total() * 4 + (n + 1) * 8;
                        report.row(c, n, space == frnn::IndexSpace::sorted ? "list-csr-sorted" : "list-csr-original", k,
                                   frnn::shape_name(shape), t_list, st.candidates_per_neighbor(), st.mean_neighbors(),
                                   extra.str());
                        if (space == frnn::IndexSpace::sorted &&
                            (shape == SearchShape::tight || shape == SearchShape::ball || shape == SearchShape::sphere)) {
                            const double t_pre = median_device_seconds(b, repeats, [&] {
                                grid->build(sorted_pos.data(), n);
                                list.build(*grid);
                            });
                            report.row(c, n, "list-csr-presorted", k, frnn::shape_name(shape), t_pre,
                                       st.candidates_per_neighbor(), st.mean_neighbors());
                            grid->build(pos.data(), n);
                        }
                    }
                    if (shape == SearchShape::tight || shape == SearchShape::ball || shape == SearchShape::sphere) {
                        // Strided (warp-friendly) list in one pass, depth = the largest row.
                        frnn::ListOptions lo;
                        lo.shape = shape;
                        lo.indices = frnn::IndexSpace::sorted;
                        lo.layout = frnn::ListLayout::strided;
                        frnn::NeighborList list(b, n, st.max_neighbors, lo);
                        const double t_list = median_device_seconds(b, repeats, [&] {
                            grid->build(pos.data(), n);
                            list.build(*grid);
                        });
                        report.row(c, n, "list-strided-sorted", k, frnn::shape_name(shape), t_list,
                                   st.candidates_per_neighbor(), st.mean_neighbors());
                        if (shape == SearchShape::sphere && k >= 1) {
                            // the registration order of Nitta (2019) (groups of 2^k x cells share cells first).
                            lo.order = frnn::ListOrder::shared_first;
                            frnn::NeighborList shared(b, n, st.max_neighbors, lo);
                            const double t_shared = median_device_seconds(b, repeats, [&] {
                                grid->build(pos.data(), n);
                                shared.build(*grid);
                            });
                            report.row(c, n, "list-strided-shared", k, frnn::shape_name(shape), t_shared,
                                       st.candidates_per_neighbor(), st.mean_neighbors());
                        }
                    }
                }
                if (k <= 1) {
                    // Verlet list: registration radius r + skin (skin 0.1 r), then one reuse step
                    // (displacement check + a count-only query through the list). Particles in
                    // cell order (as a simulation keeps them), so list rows are spatially coherent.
                    frnn::VerletSpec vs;
                    vs.grid = spec;
                    vs.skin = 0.1f * c.radius;
                    vs.list.shape = SearchShape::tight;
                    grid->build(pos.data(), n);
                    copy_bytes(b, sorted_pos.data(), grid->view().positions, n * sizeof(Vec3f),
                               CopyDirection::device_to_device);
                    frnn::GridSpec reg = spec;
                    reg.radius += vs.skin;
                    frnn::CellGrid probe_grid(b, reg, n);
                    probe_grid.build(sorted_pos.data(), n);
                    frnn::NeighborList probe(b, n, 1, frnn::ListOptions{});
                    const std::uint64_t need = probe.count(probe_grid);
                    frnn::VerletList verlet(b, vs, n, need + 1);
                    const double t_build = median_device_seconds(b, repeats, [&] { verlet.build(sorted_pos.data(), n); });
                    report.row(c, n, "verlet-build", k, "tight", t_build, 0, double(verlet.list().total()) / double(n));
                    const double t_reuse = median_device_seconds(b, repeats, [&] {
                        (void)verlet.update(sorted_pos.data(), n);
                        with_exec(b, [&](const auto& e) { frnn::count_neighbors(e, verlet.view(), sorted_pos.data(), n, counts.data()); });
                    });
                    const auto st = frnn::search_stats(*grid, SearchShape::tight);
                    report.row(c, n, "verlet-reuse-count", k, "list", t_reuse,
                               double(verlet.list().total()) / double(std::max<std::uint64_t>(st.neighbors, 1)),
                               st.mean_neighbors());
                }
            }
        }
        return 0;
    });
}
