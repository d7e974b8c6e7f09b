#include "sph/io/frame_io.hpp"

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <numeric>

#include "base/error.hpp"
#include "sph/eos.hpp"
#include "sph/io/params_io.hpp"
#include "sph/rates.hpp"
#include "sph/snow.hpp"

namespace partikel::sph {

namespace {

// The "stress" column is SymTensor's bytes, so its members must lie in the order the format names
// a symmetric tensor's components.
constexpr bool sym_tensor_in_format_order() {
    constexpr auto slot = [](std::string_view c) {
        return c == "xx"   ? offsetof(SymTensor, xx)
               : c == "yy" ? offsetof(SymTensor, yy)
               : c == "zz" ? offsetof(SymTensor, zz)
               : c == "yz" ? offsetof(SymTensor, yz)
               : c == "xz" ? offsetof(SymTensor, xz)
               : c == "xy" ? offsetof(SymTensor, xy)
                           : std::size_t(-1);
    };
    for (std::size_t k = 0; k < fmt::kSymmetricTensorComponents.size(); ++k)
        if (slot(fmt::kSymmetricTensorComponents[k]) != k * sizeof(float)) return false;
    return sizeof(SymTensor) == 6 * sizeof(float);
}
static_assert(sym_tensor_in_format_order(), "SymTensor's members must follow fmt::kSymmetricTensorComponents");
static_assert(kSphFields[field::stress].components == fmt::kSymmetricTensorComponents.size());

// Rows of the solver's order that go to each group: fluid, and every kind of boundary.
struct GroupRows {
    std::vector<std::uint32_t> fluid, boundary;
};

// `order`: the rows in the order they are written (nullptr: 0, 1, ..., n - 1).
GroupRows split_rows(const std::uint8_t* kind, std::size_t n, const std::uint32_t* order = nullptr) {
    // Counted per chunk, then filled per chunk in order: the rows keep the solver's order.
    const int threads = omp_get_max_threads();
    const std::size_t chunk = (n + std::size_t(threads) - 1) / std::size_t(threads);
    std::vector<std::size_t> fluid_before(std::size_t(threads) + 1, 0), boundary_before(std::size_t(threads) + 1, 0);
    auto row = [&](std::size_t i) { return order ? order[i] : static_cast<std::uint32_t>(i); };
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        const std::size_t begin = std::min(n, chunk * std::size_t(t)), end = std::min(n, begin + chunk);
        std::size_t fluid = 0;
        for (std::size_t i = begin; i < end; ++i) fluid += kind[row(i)] == kFluidKind;
        fluid_before[std::size_t(t) + 1] = fluid;
        boundary_before[std::size_t(t) + 1] = (end - begin) - fluid;
    }
    for (int t = 0; t < threads; ++t) {
        fluid_before[std::size_t(t) + 1] += fluid_before[std::size_t(t)];
        boundary_before[std::size_t(t) + 1] += boundary_before[std::size_t(t)];
    }
    GroupRows rows;
    rows.fluid.resize(fluid_before.back());
    rows.boundary.resize(boundary_before.back());
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        const std::size_t begin = std::min(n, chunk * std::size_t(t)), end = std::min(n, begin + chunk);
        std::size_t f = fluid_before[std::size_t(t)], b = boundary_before[std::size_t(t)];
        for (std::size_t i = begin; i < end; ++i) {
            const std::uint32_t r = row(i);
            (kind[r] == kFluidKind ? rows.fluid[f++] : rows.boundary[b++]) = r;
        }
    }
    return rows;
}

// The rows in increasing id: placed through a table when the ids are dense (a run's usual case),
// else sorted.
std::vector<std::uint32_t> rows_by_id(const std::uint64_t* id, std::size_t n) {
    std::vector<std::uint32_t> out(n);
    if (n == 0) return out;
    const auto [lo, hi] = std::minmax_element(id, id + n);
    const std::uint64_t span = *hi - *lo;
    if (span < 2 * std::uint64_t(n) + 1024) {
        constexpr std::uint32_t kNone = 0xffffffffu;
        std::vector<std::uint32_t> slot(std::size_t(span) + 1, kNone);
        const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
        for (std::int64_t i = 0; i < count; ++i) slot[std::size_t(id[i] - *lo)] = static_cast<std::uint32_t>(i);
        std::size_t k = 0;
        for (const std::uint32_t r : slot)
            if (r != kNone && k < n) out[k++] = r;
        if (k == n) return out;  // else a repeated id: sort, keeping every row
    }
    std::iota(out.begin(), out.end(), 0u);
    std::stable_sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) { return id[a] < id[b]; });
    return out;
}

void copy_bytes_in_parallel(std::byte* dst, const std::byte* src, std::size_t bytes) {
    constexpr std::size_t kPiece = std::size_t(1) << 20;
    const auto pieces = static_cast<std::int64_t>((bytes + kPiece - 1) / kPiece);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < pieces; ++i) {
        const std::size_t at = std::size_t(i) * kPiece;
        std::memcpy(dst + at, src + at, std::min(kPiece, bytes - at));
    }
}

// dst[k] = src[rows[k]] for records of `bytes` bytes, in parallel.
template <std::size_t Bytes> void gather_records(std::byte* dst, const std::byte* src, std::span<const std::uint32_t> rows) {
    const auto n = static_cast<std::int64_t>(rows.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < n; ++k)
        std::memcpy(dst + std::size_t(k) * Bytes, src + std::size_t(rows[std::size_t(k)]) * Bytes, Bytes);
}

void gather_records(std::byte* dst, const std::byte* src, std::span<const std::uint32_t> rows, std::size_t bytes) {
    switch (bytes) {
        case 1: return gather_records<1>(dst, src, rows);
        case 4: return gather_records<4>(dst, src, rows);
        case 8: return gather_records<8>(dst, src, rows);
        case 12: return gather_records<12>(dst, src, rows);
        case 16: return gather_records<16>(dst, src, rows);
        case 24: return gather_records<24>(dst, src, rows);
    }
    throw UsageError("make_frame: no record copy for " + std::to_string(bytes) + "-byte records");
}

void add_group(fmt::Frame& frame, const char* name, const HostState& state, std::span<const std::uint32_t> rows,
               const SphParams& params, bool boundary) {
    const std::size_t n = rows.size();
    fmt::Group& g = frame.add_group(name, n);
    auto add_field = [&](int f) {
        const FieldSpec& spec = kSphFields[f];
        const auto values = state.fields[std::size_t(f)];
        if (values.empty() && state.count > 0) return;
        auto column = fmt::Column::uninitialized(std::string(spec.name), spec.type, spec.components, n, spec.unit);
        gather_records(column.raw().data(), values.data(), rows, field_element_bytes(spec));
        g.add_column(std::move(column));
    };
    // Column order: the state, with the derived pressure after the density and the solver
    // slot after the identity; then Verlet's previous step.
    for (int f : {field::position, field::velocity, field::density}) add_field(f);
    auto pressure = fmt::Column::uninitialized("pressure", ScalarType::f32, 1, n, units::pressure);
    {
        float* p = pressure.values<float>().data();
        const auto* rho = reinterpret_cast<const float*>(state.fields[field::density].data());
        const auto count = static_cast<std::int64_t>(n);
        if (is_snow_model(params)) {
            const ClampedLinearEos eos{params.rheology.gas_constant, params.rho0};
#pragma omp parallel for schedule(static)
            for (std::int64_t k = 0; k < count; ++k) p[k] = eos.pressure(rho[rows[std::size_t(k)]]);
        } else {
            const TaitEos eos = TaitEos::from_sound_speed(params.rho0, params.c0, params.gamma);
#pragma omp parallel for schedule(static)
            for (std::int64_t k = 0; k < count; ++k) p[k] = eos.pressure(rho[rows[std::size_t(k)]]);
        }
    }
    g.add_column(std::move(pressure));
    for (int f : {field::mass, field::id}) add_field(f);
    if (boundary) add_field(field::kind);  // the fluid group's kind is implied
    auto order = fmt::Column::uninitialized("order", ScalarType::u32, 1, n);
    if (n) std::memcpy(order.raw().data(), rows.data(), n * sizeof(std::uint32_t));
    g.add_column(std::move(order));
    // Then the scheme's own: Verlet's previous step, the snow models' half-step velocity, strain
    // rate, yielded flag and (on request) stress.
    // The wall normals only where they mean something, in the boundary group.
    for (int f = field::kind + 1; f < field::count; ++f)
        if ((kSphFields[f].flags & kFieldWrite) && !state.fields[std::size_t(f)].empty() &&
            (boundary || f != field::boundary_normal))
            add_field(f);
}

template <class T> std::span<const T> optional_column(const fmt::Group& g, std::string_view name, std::size_t comps) {
    const fmt::Column* c = g.find(name);
    if (!c) return {};
    if (c->type() != fmt::scalar_type_of<T>() || c->components() != comps)
        throw FormatError("group \"" + g.name() + "\": column \"" + std::string(name) + "\" has type " +
                          std::string(fmt::scalar_name(c->type())) + " x " + std::to_string(c->components()) +
                          ", expected " + std::string(fmt::scalar_name(fmt::scalar_type_of<T>())) + " x " +
                          std::to_string(comps));
    return c->values<T>();
}

}  // namespace

fmt::Frame make_frame(const HostState& state, const SphParams& params, std::int64_t step, double time_s, double dt_s) {
    for (int f : {field::position, field::velocity, field::density, field::mass, field::id, field::kind})
        if (state.fields[std::size_t(f)].size() != state.count * field_element_bytes(kSphFields[f]))
            throw UsageError("make_frame: field \"" + std::string(kSphFields[f].name) + "\" holds " +
                             std::to_string(state.fields[std::size_t(f)].size()) + " bytes for " +
                             std::to_string(state.count) + " particles");
    fmt::Frame frame;
    frame.step = step;
    frame.time = time_s;
    frame.dt = dt_s;
    write_attributes(params, frame);
    const auto rows = split_rows(reinterpret_cast<const std::uint8_t*>(state.fields[field::kind].data()), state.count);
    add_group(frame, "fluid", state, rows.fluid, params, false);
    if (!rows.boundary.empty()) add_group(frame, "boundary", state, rows.boundary, params, true);
    return frame;
}

fmt::Frame make_frame(std::span<const HostState> ranks, const SphParams& params, std::int64_t step, double time_s,
                      double dt_s) {
    if (ranks.size() == 1) {
        fmt::Frame frame = make_frame(ranks[0], params, step, time_s, dt_s);
        return frame;
    }
    // Every rank's rows one after the other, field by field (a field another rank has rows of
    // but not this one is missing: Verlet's previous step before the first step everywhere).
    // (Uninitialised storage, copied in parallel: at 64M particles these are gigabytes, and a
    // zero fill and one core's copy took most of the frame's build time.)
    HostState all;
    std::array<std::unique_ptr<std::byte[]>, field::count> storage;
    for (const HostState& r : ranks) all.count += r.count;
    for (int f = 0; f < field::count; ++f) {
        const std::size_t bytes = field_element_bytes(kSphFields[f]);
        bool present = all.count > 0;
        for (const HostState& r : ranks)
            if (r.count > 0 && r.fields[std::size_t(f)].size() != r.count * bytes) present = false;
        if (!present) continue;
        auto& out = storage[std::size_t(f)];
        out.reset(new std::byte[all.count * bytes]);
        std::size_t at = 0;
        for (const HostState& r : ranks) {
            copy_bytes_in_parallel(out.get() + at, r.fields[std::size_t(f)].data(), r.count * bytes);
            at += r.count * bytes;
        }
        all.fields[std::size_t(f)] = std::span<const std::byte>(out.get(), all.count * bytes);
    }
    for (int f : {field::position, field::velocity, field::density, field::mass, field::id, field::kind})
        if (all.fields[std::size_t(f)].size() != all.count * field_element_bytes(kSphFields[f]))
            throw UsageError("make_frame: a rank's field \"" + std::string(kSphFields[f].name) + "\" is missing");
    fmt::Frame frame;
    frame.step = step;
    frame.time = time_s;
    frame.dt = dt_s;
    write_attributes(params, frame);
    const auto order = rows_by_id(reinterpret_cast<const std::uint64_t*>(all.fields[field::id].data()), all.count);
    const auto rows = split_rows(reinterpret_cast<const std::uint8_t*>(all.fields[field::kind].data()), all.count,
                                 order.data());
    add_group(frame, "fluid", all, rows.fluid, params, false);
    if (!rows.boundary.empty()) add_group(frame, "boundary", all, rows.boundary, params, true);
    return frame;
}

fmt::Frame make_frame(const ParticleSet& particles, const SphParams& params, std::int64_t step, double time_s,
                      double dt_s, const PreviousStep& previous) {
    const std::size_t n = particles.size();
    if (!previous.velocity_half.empty() && previous.velocity_half.size() != n)
        throw UsageError("make_frame: " + std::to_string(previous.velocity_half.size()) + " half-step velocities for " +
                         std::to_string(n) + " particles");
    if (!previous.velocity.empty() && (previous.velocity.size() != n || previous.density.size() != n))
        throw UsageError("make_frame: the previous step has " + std::to_string(previous.velocity.size()) +
                         " velocities and " + std::to_string(previous.density.size()) + " densities for " +
                         std::to_string(n) + " particles");
    static_assert(sizeof(ParticleKind) == 1, "ParticleKind is the u8 of the kind field");
    HostState state;
    state.count = n;
    auto bytes = [](const auto& v) { return std::as_bytes(std::span(v.data(), v.size())); };
    state.fields[field::position] = bytes(particles.position);
    state.fields[field::velocity] = bytes(particles.velocity);
    state.fields[field::density] = bytes(particles.density);
    state.fields[field::mass] = bytes(particles.mass);
    state.fields[field::id] = bytes(particles.id);
    state.fields[field::kind] = bytes(particles.kind);
    if (!previous.velocity_half.empty()) state.fields[field::velocity_half] = bytes(previous.velocity_half);
    if (!particles.boundary_normal.empty()) {
        if (particles.boundary_normal.size() != n)
            throw UsageError("make_frame: " + std::to_string(particles.boundary_normal.size()) + " boundary normals for " +
                             std::to_string(n) + " particles");
        state.fields[field::boundary_normal] = bytes(particles.boundary_normal);
    }
    if (!previous.velocity.empty()) {
        state.fields[field::velocity_previous] = bytes(previous.velocity);
        state.fields[field::density_previous] = bytes(previous.density);
    }
    return make_frame(state, params, step, time_s, dt_s);
}

fmt::Frame make_frame(const SolverFrame& state, const SphParams& params) {
    return make_frame(state.particles, params, state.step, state.time_s, state.dt_s, state.previous);
}

SimulationFrame read_frame(const fmt::Frame& frame, const SphParams& defaults) {
    SimulationFrame out;
    out.params = read_attributes(frame, defaults);
    out.step = frame.step;
    out.time_s = frame.time * frame.time_unit_si;
    const SphParams& p = out.params;
    ParticleSet& set = out.particles;
    std::vector<std::uint32_t> order;
    bool have_order = true;
    PreviousStep& previous = out.previous;
    bool have_previous = true;
    bool have_half = true;
    std::vector<Vec3f> normals;  // zero for fluid particles; kept when the boundary group has them
    bool have_normals = false;
    for (const char* name : {"fluid", "boundary"}) {
        const fmt::Group* g = frame.find_group(name);
        if (!g) {
            if (std::string_view(name) == "fluid") throw FormatError("frame has no \"fluid\" group");
            continue;
        }
        const std::size_t n = g->count();
        const fmt::Column* pos_col = g->find("position");
        if (!pos_col) throw FormatError("group \"" + g->name() + "\" has no position column");
        auto pos = optional_column<float>(*g, "position", 3);
        auto vel = optional_column<float>(*g, "velocity", 3);
        auto rho = optional_column<float>(*g, "density", 1);
        auto mass = optional_column<float>(*g, "mass", 1);
        auto ids = optional_column<std::uint64_t>(*g, "id", 1);
        auto kinds = optional_column<std::uint8_t>(*g, "kind", 1);
        auto ord = optional_column<std::uint32_t>(*g, "order", 1);
        auto vel_prev = optional_column<float>(*g, "velocity_previous", 3);
        auto rho_prev = optional_column<float>(*g, "density_previous", 1);
        auto vel_half = optional_column<float>(*g, "velocity_half", 3);
        auto normal = optional_column<float>(*g, "boundary_normal", 3);
        if (!normal.empty() && std::string_view(name) == "boundary") have_normals = true;
        have_half = have_half && !vel_half.empty();
        have_order = have_order && !ord.empty();
        have_previous = have_previous && g->find("velocity_previous") && g->find("density_previous");
        const bool fluid = std::string_view(name) == "fluid";
        for (std::size_t i = 0; i < n; ++i) {
            set.position.push_back({pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]});
            set.velocity.push_back(vel.empty() ? Vec3f{0, 0, 0} : Vec3f{vel[3 * i], vel[3 * i + 1], vel[3 * i + 2]});
            set.density.push_back(rho.empty() ? p.rho0 : rho[i]);
            set.mass.push_back(mass.empty() ? p.lattice_mass_kg() : mass[i]);
            set.id.push_back(ids.empty() ? set.id.size() : ids[i]);
            ParticleKind k = fluid ? ParticleKind::fluid : ParticleKind::boundary;
            if (!fluid && !kinds.empty() && kinds[i] == std::uint8_t(ParticleKind::moving_boundary))
                k = ParticleKind::moving_boundary;
            set.kind.push_back(k);
            if (!ord.empty()) order.push_back(ord[i]);
            normals.push_back(normal.empty() || fluid ? Vec3f{0, 0, 0}
                                                      : Vec3f{normal[3 * i], normal[3 * i + 1], normal[3 * i + 2]});
            if (have_half) previous.velocity_half.push_back({vel_half[3 * i], vel_half[3 * i + 1], vel_half[3 * i + 2]});
            if (have_previous) {
                previous.velocity.push_back({vel_prev[3 * i], vel_prev[3 * i + 1], vel_prev[3 * i + 2]});
                previous.density.push_back(rho_prev[i]);
            }
        }
    }
    if (!have_previous || previous.velocity.size() != set.size()) {
        previous.velocity.clear();
        previous.density.clear();
    }
    if (!have_half || previous.velocity_half.size() != set.size()) previous.velocity_half.clear();
    if (have_normals) set.boundary_normal = std::move(normals);
    // Put particles back in their solver slots when "order" is a permutation.
    if (have_order && order.size() == set.size()) {
        std::vector<char> seen(set.size(), 0);
        bool permutation = true;
        for (auto o : order) {
            if (o >= set.size() || seen[o]) {
                permutation = false;
                break;
            }
            seen[o] = 1;
        }
        if (permutation) {
            ParticleSet sorted;
            const std::size_t n = set.size();
            sorted.position.resize(n);
            sorted.velocity.resize(n);
            sorted.density.resize(n);
            sorted.mass.resize(n);
            sorted.id.resize(n);
            sorted.kind.resize(n);
            for (std::size_t i = 0; i < n; ++i) {
                const auto o = order[i];
                sorted.position[o] = set.position[i];
                sorted.velocity[o] = set.velocity[i];
                sorted.density[o] = set.density[i];
                sorted.mass[o] = set.mass[i];
                sorted.id[o] = set.id[i];
                sorted.kind[o] = set.kind[i];
            }
            if (!set.boundary_normal.empty()) {
                sorted.boundary_normal.resize(n);
                for (std::size_t i = 0; i < n; ++i) sorted.boundary_normal[order[i]] = set.boundary_normal[i];
            }
            set = std::move(sorted);
            if (!previous.velocity.empty()) {
                PreviousStep sorted_previous;
                sorted_previous.velocity.resize(n);
                sorted_previous.density.resize(n);
                for (std::size_t i = 0; i < n; ++i) {
                    sorted_previous.velocity[order[i]] = previous.velocity[i];
                    sorted_previous.density[order[i]] = previous.density[i];
                }
                sorted_previous.velocity_half = std::move(previous.velocity_half);
                previous = std::move(sorted_previous);
            }
            if (!previous.velocity_half.empty()) {
                std::vector<Vec3f> sorted_half(n);
                for (std::size_t i = 0; i < n; ++i) sorted_half[order[i]] = previous.velocity_half[i];
                previous.velocity_half = std::move(sorted_half);
            }
        }
    }
    return out;
}

}  // namespace partikel::sph
