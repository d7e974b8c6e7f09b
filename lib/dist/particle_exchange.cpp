#include "dist/particle_exchange.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "base/error.hpp"
#include "core/dispatch.hpp"

namespace partikel::dist {

namespace {
// The histogram's bins, one block's shared tile of them (64 KiB: within what Hopper's blocks
// may opt in to).
constexpr std::size_t kMaxBins = 1u << 14;
}

ParticleExchange::ParticleExchange(Communicator comm, const Backend& backend, std::size_t capacity,
                                   std::size_t buffer_bytes)
    : comm_(std::move(comm)),
      backend_(backend),
      capacity_(capacity),
      buffer_bytes_(buffer_bytes),
      workspace_(backend, std::max<std::size_t>(
                              256, with_exec(backend, [&](const auto& e) { return exchange_scratch_bytes(e, capacity); }))),
      flags_(backend, comm_.size() > 1 ? capacity : 0),
      offsets_(backend, comm_.size() > 1 ? capacity : 0),
      // A row goes to at most two neighbours of a slab (slabs are at least the reach wide).
      // (A migration's leavers: a count and two values a row.)
      rows_(backend, comm_.size() > 1 ? 2 * capacity + 1 : 0),
      destination_(backend, comm_.size() > 1 ? capacity : 0),
      counts_(backend, std::size_t(comm_.size()) + 1 + sizeof(Extent) / sizeof(std::uint32_t)),
      ranges_(backend, std::size_t(comm_.size())),
      borders_(backend, std::size_t(comm_.size()) + 1),
      bins_(backend, kMaxBins),
      send_(backend, comm_.size() > 1 ? buffer_bytes : 0),
      receive_(backend, comm_.size() > 1 ? buffer_bytes : 0) {
    if (comm_.size() > 1) comm_.reserve_staging(buffer_bytes, buffer_bytes);
}

void ParticleExchange::finish_halo(const Backend* before) {
    if (!in_flight_) return;
    in_flight_ = false;
    comm_.finish_exchange(before);
}

const std::byte* ParticleExchange::received(const FieldArrays& table, int field) const {
    if (!((fields_ >> field) & 1u))
        throw UsageError("dist: field \"" + std::string(table.spec(field).name) + "\" was not in the last exchange");
    return receive_.data() + table.packed_offset(fields_, received_rows_, field);
}

Extent ParticleExchange::window_of(int me, const SlabDecomposition& slabs, float reach) const {
    if (extents_.size() != std::size_t(comm_.size()) || slabs.ranks() != comm_.size()) return Extent::identity();
    Extent all = Extent::identity();
    for (const Extent& e : extents_) all = Extent::combine(all, e);
    // Rows that arrive by migration lie in this rank's slab, and came from some rank's extent.
    const Extent arrivals{std::max(float(slabs.borders[std::size_t(me)]), all.lo),
                          std::min(float(slabs.borders[std::size_t(me) + 1]), all.hi)};
    Extent w = extents_[std::size_t(me)];
    if (!arrivals.empty()) w = Extent::combine(w, arrivals);
    return w.widened(kSpeculativeMargin * reach);
}

ParticleExchange::GhostBounds ParticleExchange::foreseen_ghost_bounds(const SlabDecomposition& slabs,
                                                                      float reach) const {
    const float inf = std::numeric_limits<float>::infinity();
    const int me = comm_.rank(), ranks = comm_.size();
    if (extents_.size() != std::size_t(ranks) || slabs.ranks() != ranks) return {inf, -inf};
    // A lower rank's ghosts lie within its rows (plan_halo: ghosts_below_), and so do a higher's.
    GhostBounds b{-inf, inf};
    for (int q = 0; q < ranks; ++q) {
        if (q == me) continue;
        const Extent w = window_of(q, slabs, reach);
        if (w.empty()) continue;
        if (q < me) b.below = std::max(b.below, w.hi);
        else b.above = std::min(b.above, w.lo);
    }
    return b;
}

ParticleExchange::Totals ParticleExchange::totals(int q) const {
    const int ranks = comm_.size();
    const std::size_t row = row_length();
    Totals t;
    for (int p = 0; p < ranks; ++p) {
        if (p == q) continue;
        t.sent += all_counts_[std::size_t(q) * row + std::size_t(p)];
        t.received += all_counts_[std::size_t(p) * row + std::size_t(q)];
    }
    t.rows = all_counts_[std::size_t(q) * row + std::size_t(ranks)];
    return t;
}

void ParticleExchange::check_buffers(const FieldArrays& table, std::uint64_t fields, const char* what) const {
    // Every rank's rows, from the last plan's counts: the same verdict everywhere.
    for (int q = 0; q < comm_.size(); ++q) {
        const Totals t = totals(q);
        const std::size_t need = std::max(table.packed_bytes(fields, t.sent), table.packed_bytes(fields, t.received));
        if (need > buffer_bytes_)
            raise({q, FailureKind::usage,
                   std::string("a ") + what + " exchange of " + std::to_string(t.sent) + " rows out and " +
                       std::to_string(t.received) + " in needs " + std::to_string(need) +
                       " bytes, more than its exchange buffers of " + std::to_string(buffer_bytes_) +
                       " (more capacity per rank: sph-step --rank-capacity)"},
                  comm_.size());
    }
}

std::vector<std::uint64_t> ParticleExchange::gather_counts(const std::vector<std::uint64_t>& mine) const {
    if (mine.size() != row_length()) throw UsageError("dist: a row of counts of the wrong length");
    return comm_.allgather(std::span<const std::uint64_t>(mine));
}

std::size_t ParticleExchange::device_bytes() const {
    return workspace_.size() + flags_.bytes() + offsets_.bytes() + rows_.bytes() + destination_.bytes() + counts_.bytes() +
           borders_.bytes() + bins_.bytes() + send_.bytes() + receive_.bytes();
}

}  // namespace partikel::dist
