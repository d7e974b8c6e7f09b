#include "frnn/cell_grid.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "base/error.hpp"
#include "core/dispatch.hpp"
#include "core/morton.hpp"

namespace partikel::frnn {

namespace {

constexpr std::size_t kMaxCells = std::size_t{1} << 31;

std::string axis_name(int a) { return std::string(1, "xyz"[a]); }

}  // namespace

int default_subdivision(float radius, float spacing, bool gpu, double grid_volume_m3, std::size_t particles) {
    int k = 1;
    if (gpu) {
        k = 0;
        while (k < 3 && radius / float(1 << (k + 1)) >= 0.8f * spacing) ++k;
    }
    const auto cells = [&](int kk) {
        const double edge = double(radius) / double(1 << kk);
        return grid_volume_m3 / (edge * edge * edge);
    };
    while (k > 0 && particles > 0 && cells(k) > 16.0 * double(particles)) --k;
    return k;
}

std::uint64_t searched_cells(SearchShape shape, int k) {
    if (k < 0 || k > 20) throw UsageError("searched_cells: subdivision k must be in 0..20, got " + std::to_string(k));
    const std::uint64_t K = std::uint64_t{1} << k;
    switch (shape) {
        case SearchShape::full: return (3 * K) * (3 * K) * (3 * K);
        case SearchShape::tight:
        case SearchShape::ball:
        case SearchShape::cube: return (2 * K + 1) * (2 * K + 1) * (2 * K + 1);
        case SearchShape::sphere: {
            // Cells of the cube whose box distance to the home cell is <= r = K cell edges: with
            // m(d) = max(|d| - 1, 0) cells of gap per axis, m(dx)^2 + m(dy)^2 + m(dz)^2 <= K^2.
            const auto m = [](std::int64_t d) { return std::max<std::int64_t>(std::llabs(d) - 1, 0); };
            const std::int64_t Ki = static_cast<std::int64_t>(K);
            std::uint64_t count = 0;
            for (std::int64_t dz = -Ki; dz <= Ki; ++dz)
                for (std::int64_t dy = -Ki; dy <= Ki; ++dy)
                    for (std::int64_t dx = -Ki; dx <= Ki; ++dx)
                        if (m(dx) * m(dx) + m(dy) * m(dy) + m(dz) * m(dz) <= Ki * Ki) ++count;
            return count;
        }
    }
    return 0;
}

std::vector<std::int8_t> sphere_row_table(int k) {
    if (k < 0 || k > 6) throw UsageError("sphere_row_table: subdivision k must be in 0..6, got " + std::to_string(k));
    const int K = 1 << k;
    const int side = 2 * K + 1;
    std::vector<std::int8_t> table(static_cast<std::size_t>(side * side));
    const auto m = [](int d) { return std::max(std::abs(d) - 1, 0); };
    for (int dz = -K; dz <= K; ++dz)
        for (int dy = -K; dy <= K; ++dy) {
            const int rest = K * K - m(dy) * m(dy) - m(dz) * m(dz);
            int ext = -1;
            if (rest >= 0) {
                // Largest |dx| <= K with m(dx)^2 <= rest: m(dx) <= isqrt(rest), |dx| = m + 1.
                int root = 0;
                while ((root + 1) * (root + 1) <= rest) ++root;
                ext = std::min(K, root + 1);
            }
            table[static_cast<std::size_t>((dz + K) * side + (dy + K))] = static_cast<std::int8_t>(ext);
        }
    return table;
}

Box make_box(const GridSpec& spec) {
    Box box;
    for (int a = 0; a < 3; ++a) {
        const float L = spec.domain_max[a] - spec.domain_min[a];
        box.length[a] = L;
        box.inv_length[a] = L > 0 ? 1.0f / L : 0.0f;
        if (spec.boundary[a] == Boundary::periodic) box.periodic_mask |= static_cast<std::uint8_t>(1u << a);
    }
    return box;
}

namespace {

void validate(const GridSpec& spec) {
    if (!(spec.radius > 0) || !std::isfinite(spec.radius))
        throw UsageError("frnn: search radius must be positive and finite, got " + std::to_string(spec.radius));
    if (spec.subdivision < 0 || spec.subdivision > 3)
        throw UsageError("frnn: subdivision k must be in 0..3, got " + std::to_string(spec.subdivision));
    for (int a = 0; a < 3; ++a) {
        const float lo = spec.domain_min[a], hi = spec.domain_max[a];
        if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo)
            throw UsageError("frnn: domain along " + axis_name(a) + " must be finite with min <= max, got [" +
                             std::to_string(lo) + ", " + std::to_string(hi) + "]");
        if (spec.boundary[a] == Boundary::periodic && !(hi > lo))
            throw UsageError("frnn: periodic axis " + axis_name(a) + " needs a box of positive length");
    }
}

// Geometry of the grid: dims, cell sizes, reach (see GridSpec for the margin).
CellGridView make_geometry(const GridSpec& spec, std::size_t& cells) {
    CellGridView v{};
    v.origin = spec.domain_min;
    v.box = make_box(spec);
    v.radius = spec.radius;
    v.radius2 = spec.radius * spec.radius;
    v.reach = spec.radius * (1.0f + 1.0f / 1048576.0f);
    v.subdivision = spec.subdivision;
    const double s0 = static_cast<double>(spec.radius) / static_cast<double>(1 << spec.subdivision);
    double n_longest = 1;
    for (int a = 0; a < 3; ++a)
        n_longest = std::max(n_longest, std::ceil(static_cast<double>(v.box.length[a]) / s0));
    if (n_longest > 1e7)
        throw UsageError("frnn: the domain is " + std::to_string(n_longest) +
                         " cells long at this radius; use a larger radius, a smaller domain or lower k");
    const double margin = std::max(1e-6, 6e-7 * (n_longest + 2));
    const double s = s0 * (1.0 + margin);
    double total = 1;
    for (int a = 0; a < 3; ++a) {
        const double L = v.box.length[a];
        double n;
        double size;
        if (spec.boundary[a] == Boundary::periodic) {
            n = std::max(1.0, std::floor(L / s));
            size = L / n;
        } else {
            n = std::max(1.0, std::ceil(L / s));
            size = s;
        }
        v.dims[a] = static_cast<std::int32_t>(n);
        v.cell_size[a] = static_cast<float>(size);
        v.inv_cell_size[a] = static_cast<float>(1.0 / size);
        v.reach_slack[a] = spec.boundary[a] == Boundary::periodic
                               ? static_cast<float>((L + spec.radius) * (1.0 / 524288.0))
                               : 0.0f;
        total *= n;
    }
    if (total >= static_cast<double>(kMaxCells))
        throw UsageError("frnn: the grid would have " + std::to_string(static_cast<unsigned long long>(total)) +
                         " cells (limit 2^31); use a larger radius, a smaller domain or lower k");
    cells = static_cast<std::size_t>(total);
    return v;
}

std::vector<std::uint32_t> morton_ranks(const CellGridView& v, std::size_t cells) {
    std::vector<std::uint64_t> code(cells);
    const std::size_t nx = static_cast<std::size_t>(v.dims[0]), ny = static_cast<std::size_t>(v.dims[1]);
    for (std::size_t c = 0; c < cells; ++c) {
        std::uint64_t ix = c % nx, iy = (c / nx) % ny, iz = c / (nx * ny);
        code[c] = morton_code(std::uint32_t(ix), std::uint32_t(iy), std::uint32_t(iz));
    }
    std::vector<std::uint32_t> order(cells);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return code[a] < code[b]; });
    std::vector<std::uint32_t> rank(cells);
    for (std::size_t r = 0; r < cells; ++r) rank[order[r]] = static_cast<std::uint32_t>(r);
    return rank;
}

}  // namespace

CellGrid::CellGrid(const Backend& backend, const GridSpec& spec, std::size_t max_particles)
    : backend_(backend), spec_(spec), max_particles_(max_particles) {
    validate(spec);
    if (max_particles >= (std::size_t{1} << 32) - 1)
        throw UsageError("frnn: at most 2^32 - 2 particles, got " + std::to_string(max_particles));
    base_ = make_geometry(spec, cells_);
    whole_ = base_;
    whole_cells_ = cells_;
    const std::size_t slots = std::max<std::size_t>(max_particles, 1);
    cell_start_ = DeviceBuffer<std::uint32_t>(backend, cells_ + 1);
    cell_start_.fill_zero();
    particle_cell_ = DeviceBuffer<std::uint32_t>(backend, slots);
    particle_rank_ = DeviceBuffer<std::uint32_t>(backend, slots);
    sorted_cells_ = DeviceBuffer<std::uint32_t>(backend, slots);
    sorted_to_original_ = DeviceBuffer<std::uint32_t>(backend, slots);
    sorted_positions_ = DeviceBuffer<Vec3f>(backend, slots);
    if (spec.morton) {
        morton_rank_ = DeviceBuffer<std::uint32_t>(backend, cells_);
        morton_rank_.copy_from_host(morton_ranks(base_, cells_));
    }
    const auto rows = sphere_row_table(spec.subdivision);
    sphere_rows_ = DeviceBuffer<std::int8_t>(backend, rows.size());
    sphere_rows_.copy_from_host(rows);
    const std::size_t scratch = with_exec(backend, [&](const auto& e) { return scratch_bytes(e, cells_, slots); });
    workspace_.reserve(backend, std::max<std::size_t>(scratch, 256));
}

void CellGrid::build(const Vec3f* positions, std::size_t n) {
    with_exec(backend_, [&](const auto& e) { build(e, positions, n); });
}

void CellGrid::set_window(int axis, float lo, float hi) {
    if (axis < 0 || axis > 2) throw UsageError("frnn: window axis " + std::to_string(axis));
    if (spec_.morton) throw UsageError("frnn: a window of a grid with Morton numbering");
    if (spec_.boundary[std::size_t(axis)] == Boundary::periodic)
        throw UsageError("frnn: a window along periodic axis " + axis_name(axis));
    const int n = whole_.dims[axis];
    const double cell = whole_.cell_size[axis], origin = whole_.origin[axis];
    auto cell_of = [&](float x) { return std::isfinite(x) ? std::clamp(int(std::floor((double(x) - origin) / cell)), 0, n - 1) : 0; };
    const int first = lo <= hi ? cell_of(lo) : 0;
    const int last = lo <= hi ? std::max(first, cell_of(hi)) : 0;
    base_ = whole_;
    base_.origin[axis] = static_cast<float>(origin + double(first) * cell);
    base_.dims[axis] = last - first + 1;
    cells_ = std::size_t(base_.dims[0]) * std::size_t(base_.dims[1]) * std::size_t(base_.dims[2]);
}

void CellGrid::clear_window() {
    base_ = whole_;
    cells_ = whole_cells_;
}

CellGridView CellGrid::view() const {
    CellGridView v = base_;
    v.morton_rank = morton_rank_.empty() ? nullptr : morton_rank_.data();
    v.sphere_rows = sphere_rows_.data();
    v.cell_start = cell_start_.data();
    v.positions = sorted_positions_.data();
    v.count = static_cast<std::uint32_t>(n_);
    return v;
}

std::size_t CellGrid::memory_bytes() const {
    return cell_start_.bytes() + particle_cell_.bytes() + particle_rank_.bytes() + sorted_cells_.bytes() +
           sorted_to_original_.bytes() + sorted_positions_.bytes() + morton_rank_.bytes() + sphere_rows_.bytes() +
           workspace_.size();
}

}  // namespace partikel::frnn
