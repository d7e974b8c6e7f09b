#include "frnn/cell_grid.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/dispatch.hpp"
#include "core/error.hpp"
#include "core/exec_cpu.hpp"
#include "core/timer.hpp"
#include "frnn/cell_grid_impl.hpp"

namespace partikel::frnn {

namespace {

constexpr std::size_t kMaxCells = std::size_t{1} << 31;

std::string axis_name(int a) { return std::string(1, "xyz"[a]); }

// Spread the low 21 bits of v so that bit b lands at bit 3b (Morton interleave).
std::uint64_t spread_bits(std::uint64_t v) {
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
}

}  // namespace

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
        code[c] = spread_bits(ix) | spread_bits(iy) << 1 | spread_bits(iz) << 2;
    }
    std::vector<std::uint32_t> order(cells);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return code[a] < code[b]; });
    std::vector<std::uint32_t> rank(cells);
    for (std::size_t r = 0; r < cells; ++r) rank[order[r]] = static_cast<std::uint32_t>(r);
    return rank;
}

void run_phase(CellGrid::Impl& g, const Vec3f* positions, std::size_t n, int phase) {
    if (g.backend.is_cuda()) { PK_CUDA_ONLY(return cuda_side::cell_grid_build_phase(g, positions, n, phase);) }
    cell_grid_build_phase(CpuExec(g.backend), g, positions, n, phase);
}

}  // namespace

CellGrid::CellGrid(const Backend& backend, const GridSpec& spec, std::size_t max_particles)
    : impl_(std::make_unique<Impl>(backend)) {
    validate(spec);
    if (max_particles >= (std::size_t{1} << 32) - 1)
        throw UsageError("frnn: at most 2^32 - 2 particles, got " + std::to_string(max_particles));
    Impl& g = *impl_;
    g.spec = spec;
    g.max_particles = max_particles;
    g.base = make_geometry(spec, g.cells);
    const std::size_t slots = std::max<std::size_t>(max_particles, 1);
    g.cell_start = DeviceBuffer<std::uint32_t>(backend, g.cells + 1);
    g.cell_start.fill_zero();
    g.particle_cell = DeviceBuffer<std::uint32_t>(backend, slots);
    g.particle_rank = DeviceBuffer<std::uint32_t>(backend, slots);
    g.sorted_cells = DeviceBuffer<std::uint32_t>(backend, slots);
    g.sorted_to_original = DeviceBuffer<std::uint32_t>(backend, slots);
    g.sorted_positions = DeviceBuffer<Vec3f>(backend, slots);
    if (spec.morton) {
        g.morton_rank = DeviceBuffer<std::uint32_t>(backend, g.cells);
        g.morton_rank.copy_from_host(morton_ranks(g.base, g.cells));
    }
    const auto rows = sphere_row_table(spec.subdivision);
    g.sphere_rows = DeviceBuffer<std::int8_t>(backend, rows.size());
    g.sphere_rows.copy_from_host(rows);
    std::size_t scratch = 0;
    if (backend.is_cuda()) {
        PK_CUDA_ONLY(scratch = cuda_side::cell_grid_scratch_bytes(backend, g.cells, slots);)
    } else {
        scratch = cell_grid_scratch_bytes(CpuExec(backend), g.cells, slots);
    }
    g.workspace.reserve(backend, std::max<std::size_t>(scratch, 256));
}

CellGrid::~CellGrid() = default;
CellGrid::CellGrid(CellGrid&&) noexcept = default;
CellGrid& CellGrid::operator=(CellGrid&&) noexcept = default;

void CellGrid::build(const Vec3f* positions, std::size_t n) {
    Impl& g = *impl_;
    if (n > g.max_particles)
        throw UsageError("frnn: build of " + std::to_string(n) + " particles exceeds the grid's capacity of " +
                         std::to_string(g.max_particles));
    g.n = n;
    if (!g.timing) {
        for (int phase = 0; phase < 3; ++phase) run_phase(g, positions, n, phase);
        return;
    }
    DeviceTimer timer(g.backend);
    double* slots[3] = {&g.times.count_s, &g.times.scan_s, &g.times.permute_s};
    for (int phase = 0; phase < 3; ++phase) {
        timer.start();
        run_phase(g, positions, n, phase);
        timer.stop();
        *slots[phase] = timer.seconds();
    }
}

CellGridView CellGrid::view() const {
    const Impl& g = *impl_;
    CellGridView v = g.base;
    v.morton_rank = g.morton_rank.empty() ? nullptr : g.morton_rank.data();
    v.sphere_rows = g.sphere_rows.data();
    v.cell_start = g.cell_start.data();
    v.positions = g.sorted_positions.data();
    v.count = static_cast<std::uint32_t>(g.n);
    return v;
}

const std::uint32_t* CellGrid::sorted_to_original() const { return impl_->sorted_to_original.data(); }
const std::uint32_t* CellGrid::sorted_cells() const { return impl_->sorted_cells.data(); }
std::size_t CellGrid::size() const { return impl_->n; }
const GridSpec& CellGrid::spec() const { return impl_->spec; }
std::size_t CellGrid::cell_count() const { return impl_->cells; }
std::array<int, 3> CellGrid::dims() const { return {impl_->base.dims[0], impl_->base.dims[1], impl_->base.dims[2]}; }
std::size_t CellGrid::max_particles() const { return impl_->max_particles; }
const Backend& CellGrid::backend() const { return impl_->backend; }
std::size_t CellGrid::memory_bytes() const {
    const Impl& g = *impl_;
    return g.cell_start.bytes() + g.particle_cell.bytes() + g.particle_rank.bytes() + g.sorted_cells.bytes() +
           g.sorted_to_original.bytes() + g.sorted_positions.bytes() + g.morton_rank.bytes() + g.sphere_rows.bytes() +
           g.workspace.size();
}
void CellGrid::enable_timing(bool on) { impl_->timing = on; }
const CellGrid::BuildTimes& CellGrid::last_build_times() const { return impl_->times; }

}  // namespace partikel::frnn
