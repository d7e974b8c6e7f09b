#include "sph/solver.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>

#include "base/error.hpp"
#include "base/log.hpp"
#include "core/dispatch.hpp"
#include "core/memory.hpp"
#include "sph/snow.hpp"
#include "sph/solver_state.hpp"

namespace partikel::sph {

namespace {

// subdivision < 0: frnn::default_subdivision for the device, the grid's volume and n particles.
frnn::GridSpec grid_spec(const SphParams& p, bool deterministic, int subdivision, bool gpu, std::size_t n) {
    frnn::GridSpec spec;
    const float support = kernel_support(p);  // also the margin beyond which particles are removed
    for (int k = 0; k < 3; ++k) {
        const bool periodic = p.faces[2 * k] == Face::periodic;
        spec.boundary[k] = periodic ? frnn::Boundary::periodic : frnn::Boundary::open;
        spec.domain_min[k] = periodic ? p.domain_min[k] : p.domain_min[k] - support;
        spec.domain_max[k] = periodic ? p.domain_max[k] : p.domain_max[k] + support;
    }
    spec.radius = search_radius(p);
    double volume = 1.0;
    for (int k = 0; k < 3; ++k) volume *= double(spec.domain_max[k]) - double(spec.domain_min[k]);
    spec.subdivision = subdivision >= 0 ? subdivision : frnn::default_subdivision(spec.radius, p.dx_m, gpu, volume, n);
    spec.sort = deterministic ? frnn::SortMethod::radix : frnn::SortMethod::counting;
    // The frame chose the domain and h: frnn gives the numbers, this says what to change.
    if (const auto why = frnn::grid_too_large(spec))
        throw UsageError("sph: the neighbour grid: " + *why + "; the domain (sph.domain_min, sph.domain_max) is too " +
                         "large for the kernel support (" + format_g(support) + " m, from sph.h): make the scene " +
                         "with a larger --dx or a smaller domain, or use fewer cells per h (sph-step --grid-subdivision 0)");
    return spec;
}

// Entries per particle of the snow models' neighbour lists: half again the neighbours of a
// simple cubic lattice of spacing dx within the search's reach h (1 + skin), (4 pi/3) (reach/dx)^3,
// at least 16 (Sandvik's pool, h = dx, compressed under its weight), at most 128 (a particle
// beyond is searched again).
std::uint32_t neighbor_list_capacity(const SphParams& p) {
    if (!is_snow_model(p)) return 0;
    const double ratio = double(p.h_m) * (1.0 + kNeighborListSkin) / double(p.dx_m);
    const double lattice = 4.0 * 3.14159265358979 / 3.0 * ratio * ratio * ratio;
    return std::uint32_t(std::clamp(std::ceil(1.5 * lattice), 16.0, 128.0));
}

// The fields the scheme uses: the state, its rates and records, and the start of the step
// (midpoint, symplectic) or the previous step (Verlet), and the SPS stress (laminar+SPS).
// Snow models: the leapfrog's half-step velocity, and the stress tensor's fields.
// WCSPH: the wall normals with mdbc only (a dbc run's frames do not carry them: 12 bytes per
// particle of every frame's staging and copies).
std::uint64_t present_fields(const SphParams& p, bool boundary_normals) {
    if (is_snow_model(p))
        return kStateFields | kRateFields | kRecordFields | field_bit(field::velocity_half) |
               (has_stress_tensor(p) ? kStressFields : 0u);
    return kStateFields | kRateFields | kRecordFields |
           (p.integrator == Integrator::verlet ? kPreviousStepFields : kStepStartFields) |
           (p.viscosity == Viscosity::laminar_sps ? field_bit(field::sps_stress) : 0u) |
           (boundary_normals ? field_bit(field::boundary_normal) | field_bit(field::virtual_layers) |
                                  field_bit(field::wall_density_gradient)
                            : 0u) |
           (boundary_normals && p.boundary_velocity != BoundaryVelocity::wall ? field_bit(field::wall_velocity_gradient)
                                                                               : 0u);
}

// Whether frames hold field f: the scheme's written fields, the stress tensor on request.
bool written(const SolverState& s, int f) {
    if (!s.fields.has(f) || !(kSphFields[f].flags & kFieldWrite)) return false;
    return f != field::stress || s.options.write_stress;
}

}  // namespace

// The snow models keep their neighbour lists over steps: the search reaches the skin too.
float search_radius(const SphParams& p) {
    return is_snow_model(p) ? kernel_support(p) * (1.0f + kNeighborListSkin) : kernel_support(p);
}

float halo_reach(const SphParams& p) { return 1.05f * search_radius(p); }

SolverState::SolverState(const Backend& backend_, const SphParams& params_, std::size_t capacity_,
                         SolverOptions options_, const RankOptions& ranks_, std::uint64_t all_particles,
                         bool boundary_normals)
    : backend(backend_),
      params(params_),
      options(options_),
      capacity(capacity_),
      grid(backend_,
           grid_spec(params_, options_.deterministic || backend_.is_cpu(), options_.grid_subdivision, backend_.is_cuda(),
                     all_particles),
           capacity_),
      fields(backend_, kSphFields, present_fields(params_, boundary_normals), capacity_),
      workspace(backend_, with_exec(backend_, [&](const auto& e) { return workspace_bytes(e, capacity_); })),
      profile(backend_, options_.profile, options_.profile_timing),
      terrain_height(backend_, params_.terrain.height_m.size()),
      neighbor_capacity(neighbor_list_capacity(params_)),
      neighbor_count(backend_, neighbor_capacity > 0 ? capacity_ : 0),
      neighbor_index(backend_, std::size_t{neighbor_capacity} * capacity_),
      listed_position(backend_, neighbor_capacity > 0 ? capacity_ : 0),
      relist(backend_, 1),
      mdbc_rows(backend_, boundary_normals ? capacity_ : 0),
      virtual_layer_rows(backend_, boundary_normals ? capacity_ : 0),
      row_offsets(backend_, boundary_normals ? capacity_ + 1 : 0),
      wall_pair_count(backend_, boundary_normals ? capacity_ : 0),
      wall_pair_index(backend_, boundary_normals && backend_.is_cuda() ? std::size_t{kWallPairCapacity} * capacity_ : 0),
      wall_pair_capacity(boundary_normals && backend_.is_cuda() ? kWallPairCapacity : 0),
      reduced_dt(backend_, 1),
      reduced_status(backend_, 1),
      reduced_wall_force(backend_, 1),
      reduced_diagnostics(backend_, 1) {
    ranks.communicator = ranks_.communicator;
    ranks.slabs = ranks_.slabs;
    ranks.balance_every = ranks_.balance_every;
    // A profile that waits for every phase overlaps nothing: the halo is built first, and its
    // phases are its own cost (the timeline shows what the overlap leaves exposed).
    ranks.overlap_halo = ranks_.overlap_halo &&
                         !(options_.profile && options_.profile_timing == PhaseProfile::Timing::synchronised);
    ranks.global_n = all_particles;
    if (!distributed()) return;
    ranks.reach = halo_reach(params_);
    // Exchange buffers, each way, for the widest exchange (migration: every field that persists;
    // halos: the records and the snow models' stress fields): a quarter of the rows (ghosts are
    // a few percent of a large rank's particles), and all of them for small ranks (256k rows),
    // whose thin slabs may send most of their particles.
    const std::uint64_t migrating = fields.fields_with(kFieldGather);
    const std::uint64_t halo =
        kRecordFields | (fields.fields_with(kFieldScratch) & (kStressFields | field_bit(field::sps_stress)));
    const std::size_t rows = std::max(capacity_ / 4, std::min<std::size_t>(capacity_, std::size_t{1} << 18));
    const std::size_t buffer = std::max(fields.packed_bytes(migrating, rows), fields.packed_bytes(halo, rows));
    ranks.exchange = std::make_unique<dist::ParticleExchange>(ranks.communicator, backend_, capacity_, buffer);
    ranks.migration_rows = rows;
    for (auto& ghost_grid : ranks.ghost_grids) ghost_grid = std::make_unique<frnn::CellGrid>(backend_, grid.spec(), capacity_);
    ranks.ghost_positions = DeviceBuffer<Vec3f>(backend_, capacity_);
    ranks.ghost_order = DeviceBuffer<std::uint32_t>(backend_, capacity_);
    // A step's neighbour passes (the first after a halo in two parts with the overlap).
    for (int k = 0; k < 16; ++k) ranks.pass_timers.emplace_back(backend_);
    if (ranks.overlap_halo) {
        ranks.halo_queue = backend_.with_own_stream(Backend::StreamPriority::high);
        ranks.rows_ready.emplace(backend_);
        ranks.ghosts_ready.emplace(backend_);
    }
}

Solver::Solver(const Backend& backend, const SphParams& params, const ParticleSet& particles, std::int64_t step,
               double time_s, SolverOptions options, const PreviousStep& previous, RankOptions ranks) {
    dist::Communicator comm = ranks.communicator;
    const std::size_t n = particles.size();
    // Checked on every rank, and agreed: one rank's bad particles end every rank.
    comm.collectively([&] {
        validate(params);
        if (particles.velocity.size() != n || particles.density.size() != n || particles.mass.size() != n ||
            particles.id.size() != n || particles.kind.size() != n)
            throw UsageError("sph: particle columns differ in length");
        if (!previous.velocity_half.empty() && previous.velocity_half.size() != n)
            throw UsageError("sph: " + std::to_string(previous.velocity_half.size()) + " half-step velocities for " +
                             std::to_string(n) + " particles");
        if (!previous.velocity.empty() && (previous.velocity.size() != n || previous.density.size() != n))
            throw UsageError("sph: the previous step's velocity and density (" +
                             std::to_string(previous.velocity.size()) + ", " + std::to_string(previous.density.size()) +
                             " values) differ in length from the " + std::to_string(n) + " particles");
        for (std::size_t i = 0; i < n; ++i)
            if (!(particles.mass[i] > 0.0f) || !std::isfinite(particles.mass[i]))
                throw UsageError("sph: particle " + std::to_string(particles.id[i]) + " has mass " +
                                 std::to_string(particles.mass[i]) + " kg; masses must be positive and finite");
        if (!particles.boundary_normal.empty() && particles.boundary_normal.size() != n)
            throw UsageError("sph: " + std::to_string(particles.boundary_normal.size()) + " boundary normals for " +
                             std::to_string(n) + " particles");
        // A ghost node lies up to 2 d past its boundary particle, beyond the halo's reach.
        if (comm.size() > 1 && params.boundary == BoundaryScheme::mdbc)
            throw UsageError("sph: --boundary mdbc runs on one rank only (its ghost nodes reach past the ranks' "
                             "halo); run without mpirun, or with --boundary dbc");
        if (comm.size() > 1 && ranks.slabs.ranks() != comm.size())
            throw UsageError("sph: " + std::to_string(ranks.slabs.ranks()) + " slabs for " +
                             std::to_string(comm.size()) + " ranks");
    });
    // Counts of every rank: the particles, the boundary particles (never removed; the snow
    // models' wall passes run when any rank has some), and the rows each rank allocates.
    std::uint64_t counts[2] = {n, n - particles.count(ParticleKind::fluid)};
    comm.allreduce(std::span<std::uint64_t>(counts), dist::ReduceOp::sum);
    if (counts[0] == 0) throw UsageError("sph: no particles to simulate");
    std::size_t capacity = n;
    if (comm.size() > 1) {
        const double share = ranks.capacity_factor * double(counts[0]) / double(comm.size());
        capacity = comm.allreduce<std::uint64_t>(std::uint64_t(std::ceil(std::max({share, 1.25 * double(n), 1024.0}))),
                                                 dist::ReduceOp::max);
    }
    // Verlet continues from the previous step's v and rho (its first step is then a Verlet
    // step, as in an uninterrupted run); without them it starts with an Euler step.
    // The snow models' leapfrog continues from v_{n-1/2}; without it its first step starts
    // from v_0 - a_0 dt/2. Every rank continues the same way (a rank without particles agrees).
    bool restore_previous = is_snow_model(params) ? !previous.velocity_half.empty()
                                                  : params.integrator == Integrator::verlet && !previous.velocity.empty();
    if (comm.size() > 1) restore_previous = comm.any(restore_previous && n > 0) && comm.all(restore_previous || n == 0);
    // The device path first: the exchange's staging is sized for it.
    if (comm.size() > 1) comm.bind_device(backend);
    const bool normals_given = comm.any(!particles.boundary_normal.empty());
    const bool mdbc = params.boundary == BoundaryScheme::mdbc && !is_snow_model(params);
    comm.collectively([&] {
        state_ = std::make_unique<SolverState>(backend, params, capacity, options, ranks, counts[0], mdbc);
    });
    SolverState& s = *state_;
    s.n = n;
    s.step = step;
    s.time = time_s;
    s.fields.upload(field::position, particles.position.data(), n);
    s.fields.upload(field::velocity, particles.velocity.data(), n);
    s.fields.upload(field::density, particles.density.data(), n);
    s.fields.upload(field::mass, particles.mass.data(), n);
    s.fields.upload(field::id, particles.id.data(), n);
    std::vector<std::uint8_t> kinds(n);
    for (std::size_t i = 0; i < n; ++i) kinds[i] = static_cast<std::uint8_t>(particles.kind[i]);
    s.boundary_count = counts[1];
    s.fields.upload(field::kind, kinds.data(), n);
    if (s.fields.has(field::boundary_normal)) {
        const std::vector<Vec3f> none(particles.boundary_normal.empty() ? n : 0, Vec3f{0.0f, 0.0f, 0.0f});
        s.fields.upload(field::boundary_normal, particles.boundary_normal.empty() ? none.data() : particles.boundary_normal.data(), n);
    }
    if (!params.terrain.empty())
        s.terrain_height.copy_from_host(std::span<const float>(params.terrain.height_m.data(), params.terrain.height_m.size()));
    if (is_snow_model(params)) {
        s.fields.upload(field::velocity_half,
                        restore_previous ? previous.velocity_half.data() : particles.velocity.data(), n);
        if (has_stress_tensor(params)) {
            // Defined values before the first stress pass (frames written at step 0).
            const std::vector<float> zero(n, 0.0f);
            const std::vector<std::uint8_t> none(n, 0);
            const std::vector<SymTensor> no_stress(n, SymTensor{});
            s.fields.upload(field::strain_rate, zero.data(), n);
            s.fields.upload(field::yielded, none.data(), n);
            s.fields.upload(field::stress, no_stress.data(), n);
        }
    } else if (params.integrator == Integrator::verlet) {
        std::vector<Vec3f> v(n, Vec3f{0.0f, 0.0f, 0.0f});
        std::vector<float> d(n, 0.0f);
        s.fields.upload(field::velocity_previous, restore_previous ? previous.velocity.data() : v.data(), n);
        s.fields.upload(field::density_previous, restore_previous ? previous.density.data() : d.data(), n);
    }
    with_exec(backend, [&](const auto& e) {
        sort_by_cell(e, s, false);
        if (mdbc && !normals_given) estimate_boundary_normals(e, s);
        if (mdbc) scan_virtual_layers(e, s);
    });
    s.previous_valid = restore_previous;
    backend.synchronize();
}

Solver::~Solver() = default;

void Solver::step() {
    with_exec(state_->backend, [&](const auto& e) { advance(e, *state_); });
    if (state_->options.profile && state_->options.profile_timing == PhaseProfile::Timing::synchronised)
        state_->backend.synchronize();
}

std::int32_t Solver::step(const std::function<std::int32_t()>& vote) {
    if (!state_->distributed()) {
        step();
        return vote();
    }
    state_->stop_vote = &vote;
    try {
        step();
    } catch (...) {
        state_->stop_vote = nullptr;
        throw;
    }
    state_->stop_vote = nullptr;
    return state_->agreed_stop;
}

std::int64_t Solver::step_count() const { return state_->step; }
double Solver::time() const { return state_->time; }
double Solver::last_dt() const { return state_->dt; }
std::size_t Solver::size() const { return state_->n; }
std::uint64_t Solver::removed() const { return state_->removed; }
std::uint64_t Solver::global_size() const { return state_->ranks.global_n; }
const dist::Communicator& Solver::communicator() const { return state_->ranks.communicator; }
const dist::SlabDecomposition& Solver::slabs() const { return state_->ranks.slabs; }
std::size_t Solver::ghosts() const { return state_->ranks.ghosts; }
std::uint64_t Solver::migrated_rows() const {
    return state_->ranks.exchange ? state_->ranks.exchange->migrated_rows() : 0;
}
std::uint64_t Solver::bytes_sent() const { return state_->ranks.exchange ? state_->ranks.exchange->bytes_sent() : 0; }
const SphParams& Solver::params() const { return state_->params; }
const Backend& Solver::backend() const { return state_->backend; }
PhaseProfile& Solver::profile() { return state_->profile; }

const SolverOptions& Solver::options() const { return state_->options; }

ParticleSet Solver::download() const {
    state_->lists_valid = false;  // a restart point (SolverState::lists_valid)
    const SolverState& s = *state_;
    ParticleSet out;
    const std::size_t n = s.n;
    out.position.resize(n);
    out.velocity.resize(n);
    out.density.resize(n);
    out.mass.resize(n);
    out.id.resize(n);
    std::vector<std::uint8_t> kinds(n);
    s.fields.download(field::position, out.position.data(), n);
    s.fields.download(field::velocity, out.velocity.data(), n);
    s.fields.download(field::density, out.density.data(), n);
    s.fields.download(field::mass, out.mass.data(), n);
    s.fields.download(field::id, out.id.data(), n);
    s.fields.download(field::kind, kinds.data(), n);
    out.kind.resize(n);
    for (std::size_t i = 0; i < n; ++i) out.kind[i] = static_cast<ParticleKind>(kinds[i]);
    if (s.fields.has(field::boundary_normal)) {
        out.boundary_normal.resize(n);
        s.fields.download(field::boundary_normal, out.boundary_normal.data(), n);
    }
    return out;
}

PreviousStep Solver::download_previous() const {
    const SolverState& s = *state_;
    PreviousStep out;
    if (!s.previous_valid) return out;
    if (is_snow_model(s.params)) {
        out.velocity_half.resize(s.n);
        s.fields.download(field::velocity_half, out.velocity_half.data(), s.n);
        return out;
    }
    if (s.params.integrator != Integrator::verlet) return out;
    out.velocity.resize(s.n);
    out.density.resize(s.n);
    s.fields.download(field::velocity_previous, out.velocity.data(), s.n);
    s.fields.download(field::density_previous, out.density.data(), s.n);
    return out;
}

void Solver::download_field(int f, void* host) const {
    state_->lists_valid = false;  // a restart point (SolverState::lists_valid)
    const SolverState& s = *state_;
    if (!s.fields.has(f)) throw UsageError("sph: the scheme has no field " + std::to_string(f));
    s.fields.download(f, host, s.n);
}

SolverFrame Solver::download_frame() const {
    SolverFrame f;
    f.particles = download();
    f.previous = download_previous();
    f.step = state_->step;
    f.time_s = state_->time;
    f.dt_s = state_->dt;
    f.removed = state_->removed;
    return f;
}

Diagnostics Solver::diagnostics() {
    return with_exec(state_->backend, [&](const auto& e) { return compute_diagnostics(e, *state_); });
}

std::vector<FieldBuffer> Solver::written_fields() const {
    state_->lists_valid = false;  // a restart point (SolverState::lists_valid)
    const SolverState& s = *state_;
    std::vector<FieldBuffer> out;
    for (int f = 0; f < field::count; ++f) {
        if (!written(s, f)) continue;
        const bool previous = ((kPreviousStepFields | field_bit(field::velocity_half)) >> f) & 1u;
        const std::size_t bytes = previous && !s.previous_valid ? 0 : s.n * field_element_bytes(kSphFields[f]);
        out.push_back({f, {s.fields.raw(f, field_element_bytes(kSphFields[f])), bytes}});
    }
    return out;
}

std::vector<std::size_t> Solver::written_field_capacity() const {
    const SolverState& s = *state_;
    std::vector<std::size_t> out;
    for (int f = 0; f < field::count; ++f)
        if (written(s, f))
            out.push_back(s.capacity * field_element_bytes(kSphFields[f]));
    return out;
}

std::size_t Solver::device_bytes() const {
    const SolverState& s = *state_;
    std::size_t bytes = s.grid.memory_bytes() + s.workspace.size() + s.fields.device_bytes() + s.terrain_height.bytes() +
                        s.neighbor_count.bytes() + s.neighbor_index.bytes() + s.listed_position.bytes();
    if (s.distributed())
        bytes += s.ranks.exchange->device_bytes() + s.ranks.ghost_grids[0]->memory_bytes() +
                 s.ranks.ghost_grids[1]->memory_bytes() + s.ranks.ghost_positions.bytes() + s.ranks.ghost_order.bytes();
    return bytes;
}

}  // namespace partikel::sph
