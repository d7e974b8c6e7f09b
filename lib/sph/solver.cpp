#include "sph/solver.hpp"

#include <atomic>
#include <numeric>

#include "base/error.hpp"
#include "core/dispatch.hpp"
#include "core/event.hpp"
#include "core/memory.hpp"
#include "sph/solver_state.hpp"

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

// The finest cells whose edge 2h / 2^k is still at least 0.8 dx: k = 1 for h = 1.5 dx, k = 2
// for h = sqrt(3) dx. Measured on an H100 (docs/PERFORMANCE.md): smaller cells leave too few
// candidates per row to fill the 32-candidate chunks of the GPU traversal, larger ones test
// too many candidates per neighbour. The CPU is fastest at k = 1 for both.
int default_subdivision(const SphParams& p, const Backend& backend) {
    if (!backend.is_cuda()) return 1;
    int k = 0;
    while (k < 3 && 2.0f * p.h_m / float(1 << (k + 1)) >= 0.8f * p.dx_m) ++k;
    return k;
}

template <class T> void upload(DeviceBuffer<T>& buffer, const std::vector<T>& values) {
    buffer.copy_from_host(std::span<const T>(values.data(), values.size()));
}

}  // namespace

SolverState::SolverState(const Backend& backend_, const SphParams& params_, std::size_t capacity_,
                         SolverOptions options_)
    : backend(backend_),
      params(params_),
      options(options_),
      capacity(capacity_),
      grid(backend_,
           grid_spec(params_, options_.deterministic || backend_.is_cpu(),
                     options_.grid_subdivision >= 0 ? options_.grid_subdivision : default_subdivision(params_, backend_)),
           capacity_),
      workspace(backend_, with_exec(backend_, [&](const auto& e) { return workspace_bytes(e, capacity_); })),
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
               double time_s, SolverOptions options, const PreviousStep& previous) {
    validate(params);
    const std::size_t n = particles.size();
    if (n == 0) throw UsageError("sph: no particles to simulate");
    if (particles.velocity.size() != n || particles.density.size() != n || particles.mass.size() != n ||
        particles.id.size() != n || particles.kind.size() != n)
        throw UsageError("sph: particle columns differ in length");
    if (!previous.empty() && (previous.velocity.size() != n || previous.density.size() != n))
        throw UsageError("sph: the previous step's velocity and density (" + std::to_string(previous.velocity.size()) +
                         ", " + std::to_string(previous.density.size()) + " values) differ in length from the " +
                         std::to_string(n) + " particles");
    // Verlet continues from the previous step's v and rho (its first step is then a Verlet
    // step, as in an uninterrupted run); without them it starts with an Euler step.
    const bool restore_previous = params.integrator == Integrator::verlet && !previous.empty();
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
    if (restore_previous) {
        upload(s.vel_t, previous.velocity);
        upload(s.rho_t, previous.density);
    } else {
        s.vel_t.fill_zero();
        s.rho_t.fill_zero();
    }
    with_exec(backend, [&](const auto& e) { sort_by_cell(e, s, restore_previous); });  // Verlet: gathers vel_t and rho_t too
    s.previous_valid = restore_previous;
    backend.synchronize();
}

Solver::~Solver() = default;

void Solver::step() {
    with_exec(state_->backend, [&](const auto& e) { advance(e, *state_); });
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

PreviousStep Solver::download_previous() const {
    const SolverState& s = *state_;
    PreviousStep out;
    if (s.params.integrator != Integrator::verlet || !s.previous_valid) return out;
    out.velocity.resize(s.n);
    out.density.resize(s.n);
    s.vel_t.copy_to_host(std::span<Vec3f>(out.velocity));
    s.rho_t.copy_to_host(std::span<float>(out.density));
    return out;
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

std::size_t Solver::device_bytes() const {
    const SolverState& s = *state_;
    std::size_t bytes = s.grid.memory_bytes() + s.workspace.size();
    auto add = [&](const auto&... buffers) { ((bytes += buffers.bytes()), ...); };
    add(s.pos, s.vel, s.pos_t, s.vel_t, s.acc, s.xsph, s.rho, s.rho_t, s.drho, s.mass, s.dt_candidate, s.id, s.kind,
        s.pos_mass, s.vel_rho, s.p_over_rho2, s.spare_vec3, s.spare_float, s.spare_u64, s.spare_u8, s.keep, s.keep_offset, s.terrain_height);
    return bytes;
}

// --- FrameSnapshot -------------------------------------------------------------------------

struct FrameSnapshot::State {
    explicit State(const SolverState& s)
        : solver(&s),
          backend(s.backend),
          copy_queue(s.backend.with_own_stream()),
          capacity(s.capacity),
          verlet(s.params.integrator == Integrator::verlet),
          pos(backend, capacity),
          vel(backend, capacity),
          rho(backend, capacity),
          mass(backend, capacity),
          id(backend, capacity),
          kind(backend, capacity),
          vel_prev(backend, verlet ? capacity : 0),
          rho_prev(backend, verlet ? capacity : 0),
          host_pos(backend, capacity),
          host_vel(backend, capacity),
          host_rho(backend, capacity),
          host_mass(backend, capacity),
          host_id(backend, capacity),
          host_kind(backend, capacity),
          host_vel_prev(backend, verlet ? capacity : 0),
          host_rho_prev(backend, verlet ? capacity : 0),
          staged(backend),
          copied(backend) {}

    const SolverState* solver;  // the solver this snapshot was made for
    Backend backend;            // the solver's queue: device -> device copies
    Backend copy_queue;         // a second stream: device -> host copies
    std::size_t capacity;
    bool verlet;
    // Staging (device) and pinned host copies of the arrays a frame needs.
    DeviceBuffer<Vec3f> pos, vel;
    DeviceBuffer<float> rho, mass;
    DeviceBuffer<std::uint64_t> id;
    DeviceBuffer<std::uint8_t> kind;
    DeviceBuffer<Vec3f> vel_prev;
    DeviceBuffer<float> rho_prev;
    PinnedBuffer<Vec3f> host_pos, host_vel;
    PinnedBuffer<float> host_rho, host_mass;
    PinnedBuffer<std::uint64_t> host_id;
    PinnedBuffer<std::uint8_t> host_kind;
    PinnedBuffer<Vec3f> host_vel_prev;
    PinnedBuffer<float> host_rho_prev;
    Event staged;  // on the solver's queue: the staging buffers hold the captured state
    Event copied;  // on the copy queue: the pinned buffers hold it
    std::atomic<bool> pending{false};
    // The captured state's size and place in time.
    std::size_t n = 0;
    bool with_previous = false;
    std::int64_t step = 0;
    double time_s = 0.0;
    double dt_s = 0.0;
    std::uint64_t removed = 0;
};

namespace {

template <class T>
void stage(const Backend& queue, DeviceBuffer<T>& staging, const DeviceBuffer<T>& live, std::size_t n) {
    copy_bytes(queue, staging.data(), live.data(), n * sizeof(T), CopyDirection::device_to_device, true);
}

template <class T>
void fetch(const Backend& queue, PinnedBuffer<T>& host, const DeviceBuffer<T>& staging, std::size_t n) {
    copy_bytes(queue, host.data(), staging.data(), n * sizeof(T), CopyDirection::device_to_host, true);
}

template <class T> std::vector<T> to_vector(const PinnedBuffer<T>& host, std::size_t n) {
    return std::vector<T>(host.data(), host.data() + n);
}

}  // namespace

FrameSnapshot::FrameSnapshot(const Solver& solver) : state_(std::make_unique<State>(*solver.state_)) {}

FrameSnapshot::~FrameSnapshot() {
    if (state_ && state_->pending.load()) {
        try {
            state_->copied.synchronize();  // the copy must not write into freed pinned memory
        } catch (...) {
        }
    }
}

void FrameSnapshot::capture(Solver& solver) {
    State& st = *state_;
    SolverState& s = *solver.state_;
    if (&s != st.solver) throw UsageError("FrameSnapshot::capture: not the solver this snapshot was made for");
    if (st.pending.load()) throw UsageError("FrameSnapshot::capture: the previous capture has not been taken (wait())");
    auto scope = s.profile.phase("output");
    const std::size_t n = s.n;
    const bool with_previous = st.verlet && s.previous_valid;
    // The staging buffers are free once the previous device -> host copy has read them (wait()
    // has already seen it finish; this keeps the order on the device as well).
    st.copied.enqueue_wait(st.backend);
    stage(st.backend, st.pos, s.pos, n);
    stage(st.backend, st.vel, s.vel, n);
    stage(st.backend, st.rho, s.rho, n);
    stage(st.backend, st.mass, s.mass, n);
    stage(st.backend, st.id, s.id, n);
    stage(st.backend, st.kind, s.kind, n);
    if (with_previous) {
        stage(st.backend, st.vel_prev, s.vel_t, n);
        stage(st.backend, st.rho_prev, s.rho_t, n);
    }
    st.staged.record(st.backend);
    // The next step may now overwrite the live arrays; the copy queue fetches the staging.
    st.staged.enqueue_wait(st.copy_queue);
    fetch(st.copy_queue, st.host_pos, st.pos, n);
    fetch(st.copy_queue, st.host_vel, st.vel, n);
    fetch(st.copy_queue, st.host_rho, st.rho, n);
    fetch(st.copy_queue, st.host_mass, st.mass, n);
    fetch(st.copy_queue, st.host_id, st.id, n);
    fetch(st.copy_queue, st.host_kind, st.kind, n);
    if (with_previous) {
        fetch(st.copy_queue, st.host_vel_prev, st.vel_prev, n);
        fetch(st.copy_queue, st.host_rho_prev, st.rho_prev, n);
    }
    st.copied.record(st.copy_queue);
    st.n = n;
    st.with_previous = with_previous;
    st.step = s.step;
    st.time_s = s.time;
    st.dt_s = s.dt;
    st.removed = s.removed;
    st.pending.store(true);
}

bool FrameSnapshot::pending() const { return state_->pending.load(); }

SolverFrame FrameSnapshot::wait() {
    State& st = *state_;
    if (!st.pending.load()) throw UsageError("FrameSnapshot::wait: nothing captured");
    st.copied.synchronize();
    const std::size_t n = st.n;
    SolverFrame f;
    f.particles.position = to_vector(st.host_pos, n);
    f.particles.velocity = to_vector(st.host_vel, n);
    f.particles.density = to_vector(st.host_rho, n);
    f.particles.mass = to_vector(st.host_mass, n);
    f.particles.id = to_vector(st.host_id, n);
    f.particles.kind.resize(n);
    for (std::size_t i = 0; i < n; ++i) f.particles.kind[i] = static_cast<ParticleKind>(st.host_kind.data()[i]);
    if (st.with_previous) {
        f.previous.velocity = to_vector(st.host_vel_prev, n);
        f.previous.density = to_vector(st.host_rho_prev, n);
    }
    f.step = st.step;
    f.time_s = st.time_s;
    f.dt_s = st.dt_s;
    f.removed = st.removed;
    st.pending.store(false);
    return f;
}

std::size_t FrameSnapshot::device_bytes() const {
    const State& st = *state_;
    return st.pos.bytes() + st.vel.bytes() + st.rho.bytes() + st.mass.bytes() + st.id.bytes() + st.kind.bytes() +
           st.vel_prev.bytes() + st.rho_prev.bytes();
}

std::size_t FrameSnapshot::host_bytes() const {
    const State& st = *state_;
    auto bytes = [](const auto& b) { return b.size() * sizeof(*b.data()); };
    return bytes(st.host_pos) + bytes(st.host_vel) + bytes(st.host_rho) + bytes(st.host_mass) + bytes(st.host_id) +
           bytes(st.host_kind) + bytes(st.host_vel_prev) + bytes(st.host_rho_prev);
}

}  // namespace partikel::sph
