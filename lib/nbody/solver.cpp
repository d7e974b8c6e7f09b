#include "nbody/solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

#include "base/error.hpp"
#include "core/dispatch.hpp"
#include "nbody/direct.hpp"
#include "nbody/partition.hpp"
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

RankState::RankState(const Backend& b, dist::Communicator c, const NbodyParams& p,
                     std::span<const std::uint64_t> counts, std::size_t cap)
    : comm(std::move(c)),
      rank(comm.rank()),
      size(comm.size()),
      capacity(cap),
      first(std::size_t(size) + 1, 0),
      splitters(std::size_t(size) + 1, 0),
      splitters_device(b, std::size_t(size) + 1),
      split_rows(b, std::size_t(size) + 1),
      walk_timer(b),
      walk_seconds(std::size_t(size), 0.0) {
    for (int r = 0; r < size; ++r) first[std::size_t(r) + 1] = first[std::size_t(r)] + counts[std::size_t(r)];
    total = first.back();
    all_bodies = DeviceBuffer<Vec4f>(b, total);
    if (p.method == ForceMethod::direct) {
        const std::size_t most = *std::max_element(counts.begin(), counts.end());
        ring[0] = DeviceBuffer<Vec4f>(b, most);
        ring[1] = DeviceBuffer<Vec4f>(b, most);
    } else {
        all_keys = DeviceBuffer<std::uint64_t>(b, total);
        for (auto* k : {&arrived_keys, &arrived_keys_sorted, &merged_keys}) *k = DeviceBuffer<std::uint64_t>(b, capacity);
        for (auto* k : {&arrived_rows, &arrived_order, &merged_order}) *k = DeviceBuffer<std::uint32_t>(b, capacity);
    }
}

namespace {

// Bodies a rank can hold across ranks: room for its share to double while the split follows
// the cost, and for the bodies that arrive in one migration (docs/NBODY.md, "Across GPUs").
std::size_t rank_capacity(std::size_t total, int ranks) {
    if (ranks <= 1) return total;
    return std::min(total, (5 * total + 2 * std::size_t(ranks) - 1) / (2 * std::size_t(ranks)));
}

// Splitters of equal counts from every rank's keys, sampled: each rank's keys sorted, up to
// kSamples of them evenly spaced, all-gathered (docs/NBODY.md, "Across GPUs"). The first
// migration then brings each body to its rank.
std::vector<std::uint64_t> sampled_splitters(const dist::Communicator& comm, const Bodies& bodies) {
    constexpr std::size_t kSamples = 4096;
    BoundingBox box = box_of(bodies.position);
    for (const BoundingBox& other : comm.allgather(box))
        for (int a = 0; a < 3; ++a) {
            box.lo[a] = std::min(box.lo[a], other.lo[a]);
            box.hi[a] = std::max(box.hi[a], other.hi[a]);
        }
    std::vector<std::uint64_t> keys = curve_keys(bodies.position, box);
    std::sort(keys.begin(), keys.end());
    std::vector<std::uint64_t> samples;
    const std::size_t count = std::min(kSamples, keys.size());
    for (std::size_t k = 0; k < count; ++k) samples.push_back(keys[k * keys.size() / count]);
    return equal_count_splitters(comm.allgather_concat(std::span<const std::uint64_t>(samples)), comm.size());
}

}  // namespace

SolverState::SolverState(const Backend& b, const NbodyParams& p, SolverOptions o, std::size_t count,
                         const dist::Communicator& comm, std::span<const std::uint64_t> counts, std::size_t total,
                         std::size_t capacity)
    : backend(b),
      params(p),
      options(o),
      n(count),
      fields(b, kNbodyFields, kAllFields, capacity),
      box(b, 1),
      moments(b, 1),
      group_cells(b, group_count(capacity)),
      group_pairs(b, group_count(capacity)),
      interaction_sums(b, 2),
      radius_key(b, total),
      radius_key_sorted(b, total),
      radius_index(b, total),
      radius_order(b, total),
      cumulative_mass(b, total + 1),
      lagrangian(b, 3),
      profile(b, o.profile) {
    if (comm.size() > 1) ranks.emplace(b, comm, p, counts, capacity);
    with_exec(b, [&](const auto& e) {
        workspace.reserve(b, workspace_bytes(e, std::max(total, capacity)));
        if (p.method == ForceMethod::direct) {
            const std::size_t partial = direct_partial_capacity(e, capacity);
            if (partial) direct_partial = DeviceBuffer<Vec4f>(b, partial);
        }
    });
    if (p.method != ForceMethod::direct) tree.emplace(b, total, p.leaf_capacity, p.max_depth);
    if (p.method == ForceMethod::hybrid) {
        const int threads = p.hybrid.cpu_threads > 0 ? p.hybrid.cpu_threads : default_cpu_threads();
        hybrid.emplace(b, count, Octree::max_nodes(count, p.leaf_capacity, p.max_depth), p.hybrid, threads);
    }
}

Solver::Solver(const Backend& backend, const NbodyParams& params, const Bodies& bodies, std::int64_t step, double time,
               SolverOptions options, const dist::Communicator& comm) {
    const bool several = comm.size() > 1;
    comm.collectively([&] {
        validate(params);
        validate(bodies, !several);
        if (several && params.method == ForceMethod::hybrid)
            throw UsageError("nbody: the hybrid method runs on one rank (across ranks, use --method tree)");
    });
    const std::size_t n = bodies.size();
    std::size_t total = n, capacity = n;
    std::vector<std::uint64_t> counts = {n};
    if (several) {
        counts = comm.allgather(std::uint64_t(n));
        total = 0;
        for (std::uint64_t c : counts) total += c;
        double mass = 0.0;
        for (double m : bodies.mass) mass += m;
        mass = comm.allreduce(mass, dist::ReduceOp::sum);
        // The same numbers on every rank: the same error everywhere, agreed.
        comm.collectively([&] {
            if (total < std::size_t(comm.size()))
                throw UsageError("nbody: " + std::to_string(total) + " bodies cannot be split over " +
                                 std::to_string(comm.size()) + " ranks");
            if (!(mass > 0.0)) throw UsageError("nbody: the total mass is zero");
            if (total >= (std::size_t{1} << 31))
                throw UsageError("nbody: at most 2^31 - 1 bodies, got " + std::to_string(total));
        });
        // The direct sum keeps each rank's bodies where they started; the tree's ranks have room
        // for a start as uneven as it comes.
        if (params.method != ForceMethod::direct)
            capacity = std::max<std::size_t>(rank_capacity(total, comm.size()),
                                             *std::max_element(counts.begin(), counts.end()));
    }
    state_ = comm.collectively(
        [&] { return std::make_unique<SolverState>(backend, params, options, n, comm, counts, total, capacity); });
    SolverState& s = *state_;
    if (s.ranks) {
        RankState& d = *s.ranks;
        d.comm.bind_device(backend);
        // Staging for "mpi+staged" (dist/communicator.hpp), the most one exchange moves: the
        // tree's all-gather and migration, the ring's sources.
        if (s.tree) {
            const std::size_t gathered = sizeof(Vec4f) + sizeof(std::uint64_t);
            d.comm.reserve_staging(std::max(std::size_t(d.size) * gathered, migrating_bytes()) * capacity,
                                   std::max(d.total * gathered, migrating_bytes() * capacity));
            d.splitters = sampled_splitters(comm, bodies);
            d.splitters_device.copy_from_host(d.splitters);
        } else {
            std::size_t most = 0;
            for (int q = 0; q < d.size; ++q) most = std::max(most, d.first[std::size_t(q) + 1] - d.first[std::size_t(q)]);
            d.comm.reserve_staging(most * sizeof(Vec4f), most * sizeof(Vec4f));
        }
    }
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
std::size_t Solver::total_size() const { return state_->tree_size(); }
std::size_t Solver::capacity() const { return state_->fields.capacity(); }
double Solver::imbalance() const { return state_->ranks ? nbody::imbalance(state_->ranks->walk_seconds) : 1.0; }
std::uint64_t Solver::migrated() const { return state_->ranks ? state_->ranks->migrated : 0; }
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
    const std::size_t total = s.tree_size(), first = s.first_own();
    const std::size_t k = std::min(samples, total);
    ForceErrorStats stats;
    if (k == 0) return stats;
    // k distinct bodies of every rank's (along the curve): the first k of a seeded Fisher-Yates
    // shuffle; each rank measures those it holds.
    std::vector<std::uint32_t> pick(total);
    std::iota(pick.begin(), pick.end(), 0u);
    Random rng(seed, 0);
    for (std::size_t i = 0; i < k; ++i) {
        const std::size_t j = i + std::size_t(rng.below(total - i));
        std::swap(pick[i], pick[j]);
    }
    pick.resize(k);
    std::erase_if(pick, [&](std::uint32_t i) { return i < first || i >= first + s.n; });
    const std::size_t mine = pick.size(), slots = std::max<std::size_t>(mine, 1);
    DeviceBuffer<std::uint32_t> chosen(s.backend, slots);
    chosen.copy_from_host(pick);
    DeviceBuffer<Vec4f> targets(s.backend, slots), reference(s.backend, slots), values(s.backend, slots), partial;
    with_exec(s.backend, [&](const auto& e) {
        const std::size_t slices = reference_partial_capacity(e, mine);
        if (slices) partial = DeviceBuffer<Vec4f>(s.backend, slices);
        reference_accelerations(e, s, chosen.data(), mine, targets.data(), reference.data(), values.data(),
                                partial.empty() ? nullptr : partial.data());
    });
    const std::vector<Vec4f> ref = reference.to_vector(), got = values.to_vector();
    std::vector<double> errors;
    errors.reserve(k);
    for (std::size_t i = 0; i < mine; ++i) {
        const double rx = ref[i].x, ry = ref[i].y, rz = ref[i].z;
        const double norm = std::sqrt(rx * rx + ry * ry + rz * rz);
        if (!(norm > 0.0)) continue;
        const double ex = got[i].x - rx, ey = got[i].y - ry, ez = got[i].z - rz;
        errors.push_back(std::sqrt(ex * ex + ey * ey + ez * ez) / norm);
    }
    if (s.ranks) errors = s.ranks->comm.allgather_concat(std::span<const double>(errors));
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
