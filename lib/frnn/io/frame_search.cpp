#include "frnn/io/frame_search.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <iomanip>
#include <numeric>
#include <random>
#include <sstream>
#include <variant>

#include "base/error.hpp"
#include "base/log.hpp"
#include "formats/attributes.hpp"
#include "core/buffer.hpp"

namespace partikel::frnn {

namespace {

const fmt::Group& pick_group(const fmt::Frame& frame, const std::string& name) {
    if (!name.empty()) {
        const fmt::Group* g = frame.find_group(name);
        if (!g) throw UsageError("--group " + name + ": no such group in the input");
        if (!g->find("position")) throw UsageError("group " + name + " has no position column");
        return *g;
    }
    for (const auto& g : frame.groups())
        if (g.find("position")) return g;
    throw FormatError("the input frame has no group with a position column");
}

std::vector<Vec3f> read_positions(const fmt::Group& g) {
    const fmt::Column& c = g.at("position");
    if (c.components() != 3) throw FormatError("column position has " + std::to_string(c.components()) + " components, not 3");
    std::vector<Vec3f> p(g.count());
    const double scale = c.unit().si_factor;
    for (std::uint64_t i = 0; i < g.count(); ++i)
        for (std::uint32_t a = 0; a < 3; ++a) p[i][static_cast<int>(a)] = static_cast<float>(c.as_double(i, a) * scale);
    return p;
}

// r = factor * the largest value of the named column, or of the frame attribute of that name
// (SPH frames hold their smoothing length as the attribute sph.h).
float resolve_radius(const FrameSearchOptions& o, const fmt::Frame& frame, const fmt::Group& g) {
    if (o.radius_column.empty()) return o.radius_m;
    double h = 0;
    if (const fmt::Column* c = g.find(o.radius_column)) {
        if (c->components() != 1) throw UsageError("--radius-column " + o.radius_column + " must have one component");
        for (std::uint64_t i = 0; i < g.count(); ++i) h = std::max(h, c->as_double(i) * c->unit().si_factor);
    } else if (frame.attributes.count(o.radius_column)) {
        h = *fmt::real_attribute(frame, o.radius_column, -DBL_MAX, DBL_MAX);
    } else {
        throw UsageError("--radius-column " + o.radius_column + ": no such column in group " + g.name() +
                         " and no such attribute in the frame");
    }
    if (!(h > 0) || !std::isfinite(h)) throw UsageError("--radius-column " + o.radius_column + ": no positive value");
    if (!(o.factor * h <= kMaxCoordinate))
        throw FormatError("--radius-column " + o.radius_column + ": a radius of " + format_g(o.factor * h) +
                          " m, beyond 1e18 m, where its square overflows float");
    return static_cast<float>(o.factor * h);
}

// Domain: the options', else the frame's domain.min/domain.max attributes, else the bounding box.
void resolve_domain(const FrameSearchOptions& o, const fmt::Frame& frame, const std::vector<Vec3f>& p, GridSpec& spec) {
    if (!o.domain.empty()) {
        for (int a = 0; a < 3; ++a) {
            spec.domain_min[a] = static_cast<float>(o.domain[static_cast<std::size_t>(a)]);
            spec.domain_max[a] = static_cast<float>(o.domain[static_cast<std::size_t>(a) + 3]);
        }
        return;
    }
    // What the frame says, and where its particles are, is data: beyond the coordinates whose
    // squared distances fit a float (base/vec.hpp) it is refused as such, not as a flag.
    const auto lo = fmt::vector_attribute(frame, "domain.min", 3, -kMaxCoordinate, kMaxCoordinate);
    const auto hi = fmt::vector_attribute(frame, "domain.max", 3, -kMaxCoordinate, kMaxCoordinate);
    if (lo && hi) {
        for (int a = 0; a < 3; ++a) {
            spec.domain_min[a] = static_cast<float>((*lo)[static_cast<std::size_t>(a)]);
            spec.domain_max[a] = static_cast<float>((*hi)[static_cast<std::size_t>(a)]);
        }
        return;
    }
    if (!o.periodic.empty()) throw UsageError("--periodic needs a box: give --domain or an input with domain.min/max");
    Vec3f lo_v{0, 0, 0}, hi_v{0, 0, 0};
    bool first = true;
    for (const Vec3f& q : p) {
        if (!std::isfinite(q.x) || !std::isfinite(q.y) || !std::isfinite(q.z)) continue;
        for (int a = 0; a < 3; ++a) {
            lo_v[a] = first ? q[a] : std::min(lo_v[a], q[a]);
            hi_v[a] = first ? q[a] : std::max(hi_v[a], q[a]);
        }
        first = false;
    }
    for (int a = 0; a < 3; ++a)
        if (std::fabs(lo_v[a]) > kMaxCoordinate || std::fabs(hi_v[a]) > kMaxCoordinate)
            throw FormatError("positions along " + std::string(1, char('x' + a)) + " reach [" + format_g(lo_v[a]) + ", " +
                              format_g(hi_v[a]) + "] m, beyond +-1e18 m, where squared distances overflow float");
    spec.domain_min = lo_v;
    spec.domain_max = hi_v;
}

bool same_geometry(const GridSpec& a, const GridSpec& b) {
    for (int k = 0; k < 3; ++k)
        if (a.domain_min[k] != b.domain_min[k] || a.domain_max[k] != b.domain_max[k] || a.boundary[k] != b.boundary[k])
            return false;
    return a.radius == b.radius && a.subdivision == b.subdivision && a.morton == b.morton && a.sort == b.sort;
}

std::string ms(double s) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(3) << s * 1e3;
    return out.str();
}

}  // namespace

SearchMethod parse_search_method(const std::string& name) {
    if (name == "cell") return SearchMethod::cell;
    if (name == "verlet") return SearchMethod::verlet;
    if (name == "subcell") return SearchMethod::subcell;
    throw UsageError("--method: expected cell, verlet or subcell, got '" + name + "'");
}

std::string method_name(SearchMethod method) {
    switch (method) {
        case SearchMethod::cell: return "cell";
        case SearchMethod::verlet: return "verlet";
        case SearchMethod::subcell: return "subcell";
    }
    return "?";
}

SearchShape parse_search_shape(const std::string& s) {
    for (SearchShape shape : {SearchShape::tight, SearchShape::ball, SearchShape::full, SearchShape::cube, SearchShape::sphere})
        if (shape_name(shape) == s) return shape;
    throw UsageError("--search: expected tight, ball, full, cube or sphere, got '" + s + "'");
}

SearchPlan make_plan(const FrameSearchOptions& o) {
    SearchPlan p;
    if (o.radius_column.empty() && !(o.radius_m > 0 && std::isfinite(o.radius_m)))
        throw UsageError("give --radius R (a positive length) or --radius-column NAME");
    if (o.radius_column.empty() && o.radius_m > kMaxCoordinate)  // its square must fit a float
        throw UsageError("--radius must be <= 1e18 m (got " + format_g(o.radius_m) + ")");
    if (o.method == SearchMethod::subcell) {
        p.k = o.k < 0 ? 2 : o.k;
        p.shape = o.shape.value_or(SearchShape::sphere);
    } else {
        if (o.method == SearchMethod::cell && o.k > 0)
            throw UsageError("--k applies to --method subcell (or verlet); cell is k = 0");
        p.k = o.k < 0 ? 0 : o.k;
        p.shape = o.shape.value_or(SearchShape::tight);
        p.verlet = o.method == SearchMethod::verlet;
    }
    if (o.order == ListOrder::shared_first && (p.shape == SearchShape::tight || p.shape == SearchShape::ball))
        throw UsageError("--order shared-first needs --search full, cube or sphere");
    if (o.method != SearchMethod::verlet && o.skin_m >= 0) throw UsageError("--skin applies to --method verlet");
    for (char c : o.periodic)
        if (c != 'x' && c != 'y' && c != 'z') throw UsageError("--periodic must be axes among x, y and z, e.g. xz (got '" + o.periodic + "')");
    if (!o.domain.empty() && o.domain.size() != 6) throw UsageError("--domain takes 6 numbers");
    return p;
}

FrameSearch::FrameSearch(const Backend& backend, FrameSearchOptions options)
    : backend_(backend), options_(std::move(options)), plan_(make_plan(options_)) {}

FrameSearchResult FrameSearch::search(const fmt::Frame& frame, bool stats, std::optional<std::size_t> check_sample,
                                      std::uint64_t seed) {
    const fmt::Group& group = pick_group(frame, options_.group);
    const std::vector<Vec3f> positions = read_positions(group);
    const std::size_t n = positions.size();
    FrameSearchResult r;
    r.group = group.name();
    r.particles = n;
    GridSpec spec;
    spec.radius = resolve_radius(options_, frame, group);
    r.interaction_radius_m = spec.radius;
    if (plan_.verlet) spec.radius += options_.skin_m >= 0 ? options_.skin_m : 0.1f * r.interaction_radius_m;
    spec.subdivision = plan_.k;
    spec.morton = options_.morton;
    spec.sort = options_.sort;
    for (char c : options_.periodic) spec.boundary[static_cast<std::size_t>(c - 'x')] = Boundary::periodic;
    resolve_domain(options_, frame, positions, spec);
    r.spec = spec;

    // One grid for all frames while the geometry and capacity allow (no reallocation).
    if (!grid_ || grid_capacity_ < n || !same_geometry(grid_->spec(), spec)) {
        if (const auto why = grid_too_large(spec))
            throw UsageError(*why + "; use a larger --radius, a smaller --domain or a lower -k");
        grid_.reset();
        grid_.emplace(backend_, spec, n);
        grid_capacity_ = n;
    }
    grid_->enable_timing(true);
    DeviceBuffer<Vec3f> d_positions(backend_, std::max<std::size_t>(n, 1));
    if (n) d_positions.copy_from_host(positions);
    r.dims = grid_->dims();

    ListOptions lo;
    lo.shape = plan_.shape;
    lo.order = options_.order;
    grid_->build(d_positions.data(), n);
    NeighborList probe(backend_, n, 1, lo);
    const std::uint64_t entries = probe.count(*grid_);
    NeighborList list(backend_, n, std::max<std::uint64_t>(entries, 1), lo);
    list.enable_timing(true);
    list.build(*grid_);
    if (stats) {
        // Steady-state phase times: the first build also paid for first touches of memory and
        // thread start-up; time a second one.
        grid_->build(d_positions.data(), n);
        list.build(*grid_);
    }
    r.grid_times = grid_->last_build_times();
    r.list_times = list.last_build_times();
    r.entries = list.total();
    if (!stats || check_sample) list.copy_to_host(r.lists.offsets, r.lists.indices);
    if (check_sample) {
        std::vector<std::uint32_t> queries(n);
        std::iota(queries.begin(), queries.end(), 0u);
        if (*check_sample < n) {
            std::mt19937_64 rng(seed);
            std::shuffle(queries.begin(), queries.end(), rng);
            queries.resize(*check_sample);
            std::sort(queries.begin(), queries.end());
        }
        const auto expected = brute_force_neighbors(positions, make_box(spec), spec.radius, queries);
        if (auto diff = first_difference(expected, r.lists, queries))
            throw Error("--check: the neighbour list differs from brute force: " + *diff);
        r.checked = queries.size();
    }
    if (stats) r.stats = search_stats(*grid_, plan_.shape);
    return r;
}

void FrameSearch::attach_lists(fmt::Frame& frame, const FrameSearchResult& r) const {
    fmt::Group& group = frame.group(r.group);
    const std::size_t n = r.particles;
    for (const char* name : {"neighbor_count", "neighbor_offset"})
        if (group.find(name)) group.remove_column(name);
    auto count = group.add_well_known("neighbor_count").values<std::uint32_t>();
    auto offset = group.add_column("neighbor_offset", ScalarType::u64, 1).values<std::uint64_t>();
    for (std::size_t i = 0; i < n; ++i) {
        count[i] = static_cast<std::uint32_t>(r.lists.offsets[i + 1] - r.lists.offsets[i]);
        offset[i] = r.lists.offsets[i];
    }
    if (frame.find_group("neighbors")) frame.remove_group("neighbors");
    fmt::Group& nb = frame.add_group("neighbors", r.lists.indices.size());
    auto index_values = nb.add_column("index", ScalarType::u32, 1).values<std::uint32_t>();
    std::copy(r.lists.indices.begin(), r.lists.indices.end(), index_values.begin());
    frame.attributes["frnn.group"] = r.group;
    frame.attributes["frnn.radius"] = static_cast<double>(r.interaction_radius_m);
    frame.attributes["frnn.list_radius"] = static_cast<double>(r.spec.radius);
    frame.attributes["frnn.method"] = method_name(options_.method);
    frame.attributes["frnn.k"] = static_cast<std::int64_t>(plan_.k);
    frame.attributes["frnn.search"] = shape_name(plan_.shape);
    frame.attributes["frnn.order"] = std::string(options_.order == ListOrder::shared_first ? "shared-first" : "cell");
}

std::string format_search_stats(std::uint64_t index, const FrameSearchResult& r, const SearchPlan& plan,
                                SearchMethod method, const std::string& device, bool json, bool checked) {
    std::ostringstream out;
    const auto& s = r.stats;
    const double sort_s = r.grid_times.count_s + r.grid_times.permute_s;
    const double scan_s = r.grid_times.scan_s + r.list_times.scan_s;
    const double query_s = r.list_times.count_s + r.list_times.fill_s;
    const double mean_cells = s.particles ? double(s.cells) / double(s.particles) : 0.0;
    const double mean_cand = s.particles ? double(s.candidates) / double(s.particles) : 0.0;
    if (json) {
        out << std::setprecision(9) << "{\"frame\":" << index << ",\"particles\":" << r.particles << ",\"radius_m\":"
            << r.spec.radius << ",\"method\":\"" << method_name(method) << "\",\"k\":" << plan.k << ",\"search\":\""
            << shape_name(plan.shape) << "\",\"device\":\"" << device << "\",\"cells\":[" << r.dims[0] << ","
            << r.dims[1] << "," << r.dims[2] << "],\"searched_cells_nominal\":" << searched_cells(plan.shape, plan.k)
            << ",\"searched_cells_mean\":" << mean_cells << ",\"neighbors_mean\":" << s.mean_neighbors()
            << ",\"neighbors_min\":" << s.min_neighbors << ",\"neighbors_max\":" << s.max_neighbors
            << ",\"candidates_mean\":" << mean_cand << ",\"candidates_per_neighbor\":" << s.candidates_per_neighbor()
            << ",\"list_entries\":" << r.entries << ",\"time_s\":{\"sort\":" << sort_s << ",\"scan\":" << scan_s
            << ",\"query\":" << query_s << ",\"grid_count\":" << r.grid_times.count_s << ",\"grid_scan\":"
            << r.grid_times.scan_s << ",\"grid_permute\":" << r.grid_times.permute_s << ",\"list_count\":"
            << r.list_times.count_s << ",\"list_scan\":" << r.list_times.scan_s << ",\"list_fill\":"
            << r.list_times.fill_s << "},\"histogram\":[";
        for (std::size_t c = 0; c < s.histogram.size(); ++c) out << (c ? "," : "") << s.histogram[c];
        out << "]";
        if (checked) out << ",\"checked\":" << r.checked;
        out << "}\n";
        return out.str();
    }
    out << "frame " << index << ": " << r.particles << " particles, radius " << r.spec.radius << " m, method "
        << method_name(method) << ", k " << plan.k << ", search " << shape_name(plan.shape) << ", " << device << "\n";
    out << std::fixed << std::setprecision(2);
    out << "  cells:       " << r.dims[0] << " x " << r.dims[1] << " x " << r.dims[2] << ", searched per particle "
        << mean_cells << " (nominal " << searched_cells(plan.shape, plan.k) << ")\n";
    out << "  neighbours:  mean " << s.mean_neighbors() << ", min " << s.min_neighbors << ", max " << s.max_neighbors
        << " (each particle counts itself)\n";
    out << "  candidates:  " << mean_cand << " per particle, " << s.candidates_per_neighbor() << " per neighbour found\n";
    out << "  time (ms):   sort " << ms(sort_s) << ", scan " << ms(scan_s) << ", query " << ms(query_s)
        << "  [grid: count " << ms(r.grid_times.count_s) << ", scan " << ms(r.grid_times.scan_s) << ", permute "
        << ms(r.grid_times.permute_s) << "; list: count " << ms(r.list_times.count_s) << ", scan "
        << ms(r.list_times.scan_s) << ", fill " << ms(r.list_times.fill_s) << "]\n";
    if (checked) out << "  check:       " << r.checked << " particles equal to brute force\n";
    out << "  histogram (neighbours: particles):\n";
    if (s.histogram.empty()) return out.str();
    const std::uint32_t lo = s.min_neighbors, hi = s.max_neighbors;
    const std::uint32_t width = std::max<std::uint32_t>(1, (hi - lo + 16) / 16);
    for (std::uint32_t b = lo; b <= hi; b += width) {
        std::uint64_t count = 0;
        const std::uint32_t e = std::min<std::uint32_t>(hi, b + width - 1);
        for (std::uint32_t c = b; c <= e; ++c) count += s.histogram[c];
        out << "    " << std::setw(5) << b;
        if (e != b) out << "-" << std::left << std::setw(5) << e << std::right;
        else out << "      ";
        out << " " << count << "\n";
    }
    return out.str();
}

std::string searched_cells_table() {
    std::ostringstream out;
    out << "k  cell_edge  full   cube   sphere  (cells searched per particle; Nitta 2019)\n";
    for (int k = 0; k <= 3; ++k)
        out << k << "  r/" << std::left << std::setw(7) << (1 << k) << "  " << std::setw(6)
            << searched_cells(SearchShape::full, k) << " " << std::setw(6) << searched_cells(SearchShape::cube, k) << " "
            << searched_cells(SearchShape::sphere, k) << "\n";
    return out.str();
}

std::string searched_cells_for(int k) {
    std::ostringstream out;
    out << "k " << k << ": full " << searched_cells(SearchShape::full, k) << ", cube "
        << searched_cells(SearchShape::cube, k) << ", sphere " << searched_cells(SearchShape::sphere, k) << "\n";
    return out.str();
}

}  // namespace partikel::frnn
