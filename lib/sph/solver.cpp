#include "sph/solver.hpp"

#include <numeric>

#include "core/dispatch.hpp"
#include "core/error.hpp"
#include "core/exec_cpu.hpp"
#include "sph/solver_impl.hpp"

namespace partikel::sph {

namespace {

frnn::GridSpec grid_spec(const SphParams& p, bool deterministic, int subdivision) {
    frnn::GridSpec spec;
    const float margin = 2.0f * p.h_m;  // particles this far outside are removed (ParticleStatus)
    for (int k = 0; k < 3; ++k) {
        const bool periodic = p.faces[2 * k] == Face::periodic;
        spec.boundary[k] = periodic ? frnn::Boundary::periodic : frnn::Boundary::open;
        spec.domain_min[k] = periodic ? p.domain_min[k] : p.domain_min[k] - margin;
        spec.domain_max[k] = periodic ? p.domain_max[k] : p.domain_max[k] + margin;
    }
    spec.radius = 2.0f * p.h_m;  // kernel support
    spec.subdivision = subdivision;
    spec.sort = deterministic ? frnn::SortMethod::radix : frnn::SortMethod::counting;
    return spec;
}

template <class T> void upload(DeviceBuffer<T>& buffer, const std::vector<T>& values) {
    buffer.copy_from_host(std::span<const T>(values.data(), values.size()));
}

}  // namespace

std::size_t workspace_bytes(const Backend& backend, std::size_t capacity) {
    if (backend.is_cuda()) {
        PK_CUDA_ONLY(return workspace_bytes_cuda(backend, capacity);)
    }
    return workspace_bytes_impl(CpuExec(backend), capacity);
}
void sort_by_cell(SolverState& s, bool with_step_start) {
    if (s.backend.is_cuda()) {
        PK_CUDA_ONLY(return sort_by_cell_cuda(s, with_step_start);)
    }
    sort_by_cell_impl(CpuExec(s.backend), s, with_step_start);
}
void advance(SolverState& s) {
    if (s.backend.is_cuda()) {
        PK_CUDA_ONLY(return advance_cuda(s);)
    }
    advance_impl(CpuExec(s.backend), s);
}
Diagnostics compute_diagnostics(SolverState& s) {
    if (s.backend.is_cuda()) {
        PK_CUDA_ONLY(return compute_diagnostics_cuda(s);)
    }
    return compute_diagnostics_impl(CpuExec(s.backend), s);
}

SolverState::SolverState(const Backend& backend_, const SphParams& params_, std::size_t capacity_,
                         SolverOptions options_)
    : backend(backend_),
      params(params_),
      options(options_),
      capacity(capacity_),
      grid(backend_,
           grid_spec(params_, options_.deterministic || backend_.is_cpu(),
                     options_.grid_subdivision >= 0 ? options_.grid_subdivision : 1),
           capacity_),
      workspace(backend_, workspace_bytes(backend_, capacity_)),
      profile(backend_, options_.profile),
      pos(backend_, capacity_),
      vel(backend_, capacity_),
      pos_t(backend_, capacity_),
      vel_t(backend_, capacity_),
      acc(backend_, capacity_),
      xsph(backend_, capacity_),
      rho(backend_, capacity_),
      rho_t(backend_, capacity_),
      drho(backend_, capacity_),
      mass(backend_, capacity_),
      dt_candidate(backend_, capacity_),
      id(backend_, capacity_),
      kind(backend_, capacity_),
      pos_mass(backend_, capacity_),
      vel_rho(backend_, capacity_),
      p_over_rho2(backend_, capacity_),
      spare_vec3(backend_, capacity_),
      spare_float(backend_, capacity_),
      spare_u64(backend_, capacity_),
      spare_u8(backend_, capacity_),
      keep(backend_, capacity_),
      keep_offset(backend_, capacity_),
      terrain_height(backend_, params_.terrain.height_m.size()),
      reduced_float(backend_, 4),
      reduced_double(backend_, 4),
      reduced_u64(backend_, 2) {}

Solver::Solver(const Backend& backend, const SphParams& params, const ParticleSet& particles, std::int64_t step,
               double time_s, SolverOptions options) {
    validate(params);
    const std::size_t n = particles.size();
    if (n == 0) throw UsageError("sph: no particles to simulate");
    if (particles.velocity.size() != n || particles.density.size() != n || particles.mass.size() != n ||
        particles.id.size() != n || particles.kind.size() != n)
        throw UsageError("sph: particle columns differ in length");
    state_ = std::make_unique<SolverState>(backend, params, n, options);
    SolverState& s = *state_;
    s.n = n;
    s.step = step;
    s.time = time_s;
    upload(s.pos, particles.position);
    upload(s.vel, particles.velocity);
    upload(s.rho, particles.density);
    upload(s.mass, particles.mass);
    upload(s.id, particles.id);
    std::vector<std::uint8_t> kinds(n);
    for (std::size_t i = 0; i < n; ++i) kinds[i] = static_cast<std::uint8_t>(particles.kind[i]);
    upload(s.kind, kinds);
    if (!params.terrain.empty()) upload(s.terrain_height, params.terrain.height_m);
    s.pos_t.fill_zero();
    s.vel_t.fill_zero();
    s.rho_t.fill_zero();
    sort_by_cell(s, false);
    backend.synchronize();
}

Solver::~Solver() = default;

void Solver::step() {
    advance(*state_);
    if (state_->options.profile) state_->backend.synchronize();
}

std::int64_t Solver::step_count() const { return state_->step; }
double Solver::time() const { return state_->time; }
double Solver::last_dt() const { return state_->dt; }
std::size_t Solver::size() const { return state_->n; }
std::uint64_t Solver::removed() const { return state_->removed; }
const SphParams& Solver::params() const { return state_->params; }
const Backend& Solver::backend() const { return state_->backend; }
PhaseProfile& Solver::profile() { return state_->profile; }

ParticleSet Solver::download() const {
    const SolverState& s = *state_;
    ParticleSet out;
    const std::size_t n = s.n;
    out.position.resize(n);
    out.velocity.resize(n);
    out.density.resize(n);
    out.mass.resize(n);
    out.id.resize(n);
    std::vector<std::uint8_t> kinds(n);
    s.pos.copy_to_host(std::span<Vec3f>(out.position));
    s.vel.copy_to_host(std::span<Vec3f>(out.velocity));
    s.rho.copy_to_host(std::span<float>(out.density));
    s.mass.copy_to_host(std::span<float>(out.mass));
    s.id.copy_to_host(std::span<std::uint64_t>(out.id));
    s.kind.copy_to_host(std::span<std::uint8_t>(kinds));
    out.kind.resize(n);
    for (std::size_t i = 0; i < n; ++i) out.kind[i] = static_cast<ParticleKind>(kinds[i]);
    return out;
}

Diagnostics Solver::diagnostics() { return compute_diagnostics(*state_); }

std::size_t Solver::device_bytes() const {
    const SolverState& s = *state_;
    std::size_t bytes = s.grid.memory_bytes() + s.workspace.size();
    auto add = [&](const auto&... buffers) { ((bytes += buffers.bytes()), ...); };
    add(s.pos, s.vel, s.pos_t, s.vel_t, s.acc, s.xsph, s.rho, s.rho_t, s.drho, s.mass, s.dt_candidate, s.id, s.kind,
        s.pos_mass, s.vel_rho, s.p_over_rho2, s.spare_vec3, s.spare_float, s.spare_u64, s.spare_u8, s.keep, s.keep_offset, s.terrain_height);
    return bytes;
}

}  // namespace partikel::sph
