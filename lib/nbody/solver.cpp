#include "nbody/solver.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "base/error.hpp"
#include "core/dispatch.hpp"
#include "nbody/direct.hpp"
#include "nbody/random.hpp"
#include "nbody/solver_state.hpp"

namespace partikel::nbody {

HybridState::HybridState(const Backend& backend, std::size_t bodies, std::size_t max_nodes, const HybridParams& params,
                         int cpu_threads)
    : copy_queue(backend.with_own_stream()),
      tree_ready(backend),
      tree_copied(backend),
      results_uploaded(backend),
      gpu_timer(backend),
      threads(cpu_threads, params.initial_cpu_share, params.c_inc, params.c_dec),
      load_prefix(backend, group_count(bodies) + 1),
      first_gpu_group(backend, 1),
      bodies(backend, bodies),
      com_mass(backend, max_nodes),
      cube(backend, max_nodes),
      quad(backend, max_nodes),
      accel(backend, bodies),
      links(backend, max_nodes),
      quad_yz(backend, max_nodes),
      load_prefix_host(backend, group_count(bodies) + 1),
      first_gpu_group_host(backend, 1),
      cells(backend, group_count(bodies)),
      pairs(backend, group_count(bodies)) {}

SolverState::SolverState(const Backend& b, const NbodyParams& p, SolverOptions o, std::size_t count)
    : backend(b),
      params(p),
      options(o),
      n(count),
      fields(b, kNbodyFields, kAllFields, count),
      box(b, 1),
      moments(b, 1),
      group_cells(b, group_count(count)),
      group_pairs(b, group_count(count)),
      interaction_sums(b, 2),
      radius_key(b, count),
      radius_key_sorted(b, count),
      radius_index(b, count),
      radius_order(b, count),
      cumulative_mass(b, count + 1),
      lagrangian(b, 3),
      profile(b, o.profile) {
    with_exec(b, [&](const auto& e) {
        workspace.reserve(b, workspace_bytes(e, count));
        if (p.method == ForceMethod::direct) {
            const std::size_t partial = direct_partial_capacity(e, count);
            if (partial) direct_partial = DeviceBuffer<Vec4f>(b, partial);
        }
    });
    if (p.method != ForceMethod::direct) tree.emplace(b, count, p.leaf_capacity, p.max_depth);
    if (p.method == ForceMethod::hybrid) {
        const int threads = p.hybrid.cpu_threads > 0 ? p.hybrid.cpu_threads : default_cpu_threads();
        hybrid.emplace(b, count, Octree::max_nodes(count, p.leaf_capacity, p.max_depth), p.hybrid, threads);
    }
}

Solver::Solver(const Backend& backend, const NbodyParams& params, const Bodies& bodies, std::int64_t step, double time,
               SolverOptions options) {
    validate(params);
    validate(bodies);
    const std::size_t n = bodies.size();
    state_ = std::make_unique<SolverState>(backend, params, options, n);
    SolverState& s = *state_;
    s.step = step;
    s.time = time;
    std::vector<float> mass(n);
    std::vector<Vec4f> packed(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Vec3d x = bodies.position[i];
        mass[i] = float(bodies.mass[i]);
        packed[i] = Vec4f{float(x.x), float(x.y), float(x.z), mass[i]};
    }
    s.fields.upload(field::position, bodies.position.data(), n);
    s.fields.upload(field::velocity, bodies.velocity.data(), n);
    s.fields.upload(field::mass, mass.data(), n);
    s.fields.upload(field::id, bodies.id.data(), n);
    s.fields.upload(field::body, packed.data(), n);
    with_exec(backend, [&](const auto& e) { compute_forces(e, s); });
}

Solver::~Solver() = default;

void Solver::step() {
    with_exec(state_->backend, [&](const auto& e) { advance(e, *state_); });
}

std::int64_t Solver::step_count() const { return state_->step; }
double Solver::time() const { return state_->time; }
double Solver::last_dt() const { return state_->last_dt; }
std::size_t Solver::size() const { return state_->n; }
const NbodyParams& Solver::params() const { return state_->params; }
const Backend& Solver::backend() const { return state_->backend; }
PhaseProfile& Solver::profile() { return state_->profile; }

Bodies Solver::download() const {
    const SolverState& s = *state_;
    Bodies b;
    b.resize(s.n);
    std::vector<float> mass(s.n);
    s.fields.download(field::position, b.position.data(), s.n);
    s.fields.download(field::velocity, b.velocity.data(), s.n);
    s.fields.download(field::mass, mass.data(), s.n);
    s.fields.download(field::id, b.id.data(), s.n);
    for (std::size_t i = 0; i < s.n; ++i) b.mass[i] = mass[i];
    return b;
}

std::vector<Vec4f> Solver::download_accelerations() const {
    std::vector<Vec4f> a(state_->n);
    state_->fields.download(field::acceleration, a.data(), state_->n);
    return a;
}

std::vector<Vec4f> Solver::download_potentials() {
    compute_potential();
    std::vector<Vec4f> a(state_->n);
    state_->fields.download(field::potential, a.data(), state_->n);
    return a;
}

void Solver::compute_potential() {
    if (state_->potential_current) return;
    with_exec(state_->backend, [&](const auto& e) { potential_pass(e, *state_); });
}

Diagnostics Solver::diagnostics() {
    return with_exec(state_->backend, [&](const auto& e) { return compute_diagnostics(e, *state_); });
}

Interactions Solver::last_interactions() {
    return with_exec(state_->backend, [&](const auto& e) { return count_interactions(e, *state_); });
}

HybridStatus Solver::hybrid_status() const { return state_->hybrid ? state_->hybrid->status : HybridStatus{}; }

ForceErrorStats Solver::force_error(std::size_t samples, std::uint64_t seed) {
    SolverState& s = *state_;
    const std::size_t k = std::min(samples, s.n);
    ForceErrorStats stats;
    if (k == 0) return stats;
    // k distinct bodies: the first k of a seeded Fisher-Yates shuffle.
    std::vector<std::uint32_t> pick(s.n);
    std::iota(pick.begin(), pick.end(), 0u);
    Random rng(seed, 0);
    for (std::size_t i = 0; i < k; ++i) {
        const std::size_t j = i + std::size_t(rng.below(s.n - i));
        std::swap(pick[i], pick[j]);
    }
    pick.resize(k);
    DeviceBuffer<std::uint32_t> chosen(s.backend, k);
    chosen.copy_from_host(pick);
    DeviceBuffer<Vec4f> targets(s.backend, k), reference(s.backend, k), values(s.backend, k), partial;
    with_exec(s.backend, [&](const auto& e) {
        const std::size_t slices = reference_partial_capacity(e, k);
        if (slices) partial = DeviceBuffer<Vec4f>(s.backend, slices);
        reference_accelerations(e, s, chosen.data(), k, targets.data(), reference.data(), values.data(),
                                partial.empty() ? nullptr : partial.data());
    });
    const std::vector<Vec4f> ref = reference.to_vector(), got = values.to_vector();
    std::vector<double> errors;
    errors.reserve(k);
    for (std::size_t i = 0; i < k; ++i) {
        const double rx = ref[i].x, ry = ref[i].y, rz = ref[i].z;
        const double norm = std::sqrt(rx * rx + ry * ry + rz * rz);
        if (!(norm > 0.0)) continue;
        const double ex = got[i].x - rx, ey = got[i].y - ry, ez = got[i].z - rz;
        errors.push_back(std::sqrt(ex * ex + ey * ey + ez * ez) / norm);
    }
    if (errors.empty()) return stats;
    std::sort(errors.begin(), errors.end());
    auto rank = [&](double q) {  // nearest rank
        const std::size_t r = static_cast<std::size_t>(std::ceil(q * double(errors.size())));
        return errors[std::min(errors.size(), std::max<std::size_t>(r, 1)) - 1];
    };
    stats.samples = errors.size();
    stats.median = rank(0.5);
    stats.p90 = rank(0.9);
    stats.p99 = rank(0.99);
    stats.max = errors.back();
    stats.mean = std::accumulate(errors.begin(), errors.end(), 0.0) / double(errors.size());
    return stats;
}

std::size_t Solver::device_bytes() const {
    const SolverState& s = *state_;
    std::size_t bytes = s.fields.device_bytes() + s.direct_partial.bytes() + s.group_cells.bytes() + s.group_pairs.bytes() +
                        s.radius_key.bytes() + s.radius_key_sorted.bytes() + s.radius_index.bytes() +
                        s.radius_order.bytes() + s.cumulative_mass.bytes() + s.workspace.size();
    if (s.tree) bytes += s.tree->device_bytes();
    return bytes;
}

DeviceBytes Solver::field_bytes(int field) const {
    const SolverState& s = *state_;
    const std::size_t record = field_element_bytes(s.fields.spec(field));
    return DeviceBytes{s.fields.raw(field, record), s.n * record};
}

}  // namespace partikel::nbody
