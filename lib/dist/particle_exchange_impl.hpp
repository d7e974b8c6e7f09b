// ParticleExchange's device side (particle_exchange.hpp), written once for both backends and
// instantiated by particle_exchange_cpu.cpp and particle_exchange_cuda.cu.
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/hd.hpp"
#include "core/atomics.hpp"
#include "core/cell_coord.hpp"
#include "core/fields_impl.hpp"
#include "core/reduce_ops.hpp"
#include "dist/particle_exchange.hpp"

namespace partikel::dist {

namespace kernels {

struct ExtentOf {
    const Vec3f* positions;
    int axis;
    PK_DEVICE_INLINE Extent operator()(std::size_t i) const {
        const float x = positions[i][axis];
        return {x, x};
    }
};

// Entry k of a listing: row k, or rows[k] when listing from a list of rows.
PK_DEVICE_INLINE std::uint32_t row_at(const std::uint32_t* rows, std::size_t k) {
    return rows ? rows[k] : static_cast<std::uint32_t>(k);
}

// 1 for entries whose row has lo <= x <= hi along the axis.
struct FlagInRange {
    const Vec3f* positions;
    const std::uint32_t* rows;
    int axis;
    float lo, hi;
    std::uint32_t* flags;
    PK_DEVICE_INLINE void operator()(std::size_t k) const {
        const float x = positions[row_at(rows, k)][axis];
        flags[k] = x >= lo && x <= hi ? 1u : 0u;
    }
};

// 1 for rows within any of `count` ranges [lo, hi] along the axis (empty ranges match nothing).
struct FlagInAnyRange {
    const Vec3f* positions;
    int axis;
    const Extent* ranges;
    int count;
    std::uint32_t* flags;
    PK_DEVICE_INLINE void operator()(std::size_t i) const {
        const float x = positions[i][axis];
        std::uint32_t in = 0;
        for (int q = 0; q < count; ++q) in |= x >= ranges[q].lo && x <= ranges[q].hi ? 1u : 0u;
        flags[i] = in;
    }
};

// The flagged entries' rows, in entry order, into list[*start ..) (start: nullptr for 0; those
// at or past `room` are counted, not written); the last entry writes *start plus the count to
// `end`. Lists one after the other in device memory, without the host reading their lengths.
struct ListFlagged {
    const std::uint32_t* flags;
    const std::uint32_t* offsets;
    const std::uint32_t* rows;
    std::uint32_t* list;
    std::size_t room;
    const std::uint32_t* start;
    std::uint32_t* end;
    std::size_t n;
    PK_DEVICE_INLINE void operator()(std::size_t k) const {
        const std::uint32_t first = start ? *start : 0u;
        if (k + 1 == n) *end = first + offsets[k] + flags[k];
        if (flags[k] && std::size_t(first) + offsets[k] < room) list[first + offsets[k]] = row_at(rows, k);
    }
};

// The cells of each peer's cell layers along one axis of a grid with linear cell numbering, one
// peer (slot) after another in rank order: entry e is the j-th cell of slot s (j = e - start[s]),
// in ascending cell id, so that the rows of a slot's cells follow in row order. A layer has
// `inner` cells along the faster axes (the axis' stride: 1, nx or nx ny) times those along the
// slower ones, the grid `dim` layers. (Cell ids and entries fit 32 bits: frnn::grid_too_large,
// and fewer entries than rows.)
struct PeerLayers {
    static constexpr int kMaxPeers = 4;
    std::uint32_t start[kMaxPeers + 1];  // a slot's first entry; start[slots]: every entry
    std::uint32_t first[kMaxPeers];      // a slot's first layer
    std::uint32_t layers[kMaxPeers];     // and how many
    Extent range[kMaxPeers];             // the rows the peer wants: lo <= x <= hi along the axis
    std::uint32_t rank[kMaxPeers];       // the peer
    int slots;
    std::uint32_t inner, dim;
    PK_DEVICE_INLINE int slot(std::uint32_t e) const {
        int s = 0;
        while (s + 1 < slots && e >= start[s + 1]) ++s;
        return s;
    }
    PK_DEVICE_INLINE std::uint32_t cell(int s, std::uint32_t e) const {
        const std::uint32_t j = e - start[s];
        const std::uint32_t within = j % inner, k = j / inner, l = k % layers[s], outer = k / layers[s];
        return within + inner * (first[s] + l + dim * outer);
    }
};

// The rows of entry e's cell that its peer wants (entries < count), and a 0 after them for the
// scan's total.
struct CountInLayers {
    PeerLayers peers;
    const std::uint32_t* cell_start;
    const Vec3f* positions;
    int axis;
    std::uint32_t count;
    std::uint32_t* rows;
    PK_DEVICE_INLINE void operator()(std::size_t e) const {
        std::uint32_t wanted = 0;
        if (e < count) {
            const int s = peers.slot(std::uint32_t(e));
            const std::uint32_t c = peers.cell(s, std::uint32_t(e));
            const Extent range = peers.range[s];
            for (std::uint32_t row = cell_start[c], end = cell_start[c + 1]; row < end; ++row) {
                const float x = positions[row][axis];
                wanted += x >= range.lo && x <= range.hi ? 1u : 0u;
            }
        }
        rows[e] = wanted;
    }
};

// Those rows into list[offsets[e] ..) (offsets: the scan of CountInLayers; those at or past `room`
// counted, not written); a slot's last entry writes where its peer's list ends to ends[rank + 1].
struct ListInLayers {
    PeerLayers peers;
    const std::uint32_t* cell_start;
    const Vec3f* positions;
    int axis;
    const std::uint32_t* offsets;
    std::uint32_t* list;
    std::size_t room;
    std::uint32_t* ends;
    PK_DEVICE_INLINE void operator()(std::size_t e) const {
        const int s = peers.slot(std::uint32_t(e));
        const std::uint32_t c = peers.cell(s, std::uint32_t(e));
        const Extent range = peers.range[s];
        std::uint32_t at = offsets[e];
        for (std::uint32_t row = cell_start[c], end = cell_start[c + 1]; row < end; ++row) {
            const float x = positions[row][axis];
            if (!(x >= range.lo && x <= range.hi)) continue;
            if (at < room) list[at] = row;
            ++at;
        }
        if (e + 1 == peers.start[s + 1]) ends[peers.rank[s] + 1] = offsets[e + 1];
    }
};

// The rank owning each row's coordinate (SlabDecomposition::rank_of), and 1 for the rows that
// leave this rank.
struct Destinations {
    const Vec3f* positions;
    int axis;
    const double* borders;  // ranks + 1
    int ranks;
    std::uint32_t rank;
    std::uint32_t* destination;
    std::uint32_t* leaves;
    PK_DEVICE_INLINE void operator()(std::size_t i) const {
        const double x = positions[i][axis];
        int lo = 0, hi = ranks - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) / 2;
            if (x >= borders[mid]) lo = mid;
            else hi = mid - 1;
        }
        destination[i] = static_cast<std::uint32_t>(lo);
        leaves[i] = static_cast<std::uint32_t>(lo) != rank ? 1u : 0u;
    }
};

// The rows that leave, in row order, each with its destination: out[0] = how many, then pairs
// (row, destination), so that one read-back brings the count and the first pairs.
struct ListLeavers {
    const std::uint32_t* flags;
    const std::uint32_t* offsets;
    const std::uint32_t* destination;
    std::uint32_t* out;
    std::size_t n;
    PK_DEVICE_INLINE void operator()(std::size_t k) const {
        if (k + 1 == n) out[0] = offsets[k] + flags[k];
        if (!flags[k]) return;
        out[1 + 2 * std::size_t(offsets[k])] = static_cast<std::uint32_t>(k);
        out[2 + 2 * std::size_t(offsets[k])] = destination[k];
    }
};

// Particles per bin along the axis, privatised per block (shared memory on the GPU) and run-length
// aggregated per thread: each thread counts kRowsPerThread consecutive rows, which in cell order
// mostly share a bin, so a block adds a few runs to its tile and its non-zero bins to the global
// counts. (One atomic per row to the same few global bins cost about 1 ms per million rows on
// an H100: docs/PERFORMANCE.md, "Several GPUs".)
struct CountInBins {
    static constexpr int kThreads = 256;
    static constexpr std::size_t kRowsPerThread = 16;
    static constexpr std::size_t kRowsPerBlock = kThreads * kRowsPerThread;
    const Vec3f* positions;
    std::size_t n;
    int axis;
    double lo, bins_per_m;
    std::uint32_t bins;
    std::uint32_t* counts;
    PK_HD std::uint32_t bin_of(std::size_t i) const {
        const double u = (double(positions[i][axis]) - lo) * bins_per_m;
        return u <= 0.0 ? 0u : u >= double(bins - 1) ? bins - 1 : static_cast<std::uint32_t>(u);
    }
    template <class Block> PK_HD void operator()(Block& b) const {
        std::uint32_t* tile = b.template shared<std::uint32_t>();
        b.threads([&](int t) {
            for (std::uint32_t c = std::uint32_t(t); c < bins; c += kThreads) tile[c] = 0;
        });
        b.sync();
        b.threads([&](int t) {
            const std::size_t first = b.index() * kRowsPerBlock + std::size_t(t) * kRowsPerThread;
            const std::size_t last = first + kRowsPerThread < n ? first + kRowsPerThread : n;
            std::uint32_t bin = 0, run = 0;
            for (std::size_t i = first; i < last; ++i) {
                const std::uint32_t here = bin_of(i);
                if (run > 0 && here != bin) {
                    block_atomic_add(&tile[bin], run);
                    run = 0;
                }
                bin = here;
                ++run;
            }
            if (run > 0) block_atomic_add(&tile[bin], run);
        });
        b.sync();
        b.threads([&](int t) {
            for (std::uint32_t c = std::uint32_t(t); c < bins; c += kThreads)
                if (tile[c]) atomic_add(&counts[c], tile[c]);
        });
    }
};

}  // namespace kernels

template <class Exec> std::size_t exchange_scratch_bytes(const Exec& exec, std::size_t capacity) {
    return std::max(exec.template exclusive_sum_scratch_bytes<std::uint32_t>(capacity),
                    exec.template reduce_scratch_bytes<Extent, CombineOp>(capacity));
}

template <class Exec>
std::size_t ParticleExchange::list_rows(const Exec& exec, std::size_t n, const std::uint32_t* rows, std::uint32_t* list,
                                        std::size_t room) {
    if (n == 0) return 0;
    append_rows(exec, n, rows, list, room, nullptr, counts_.data() + comm_.size());
    return exec.read_value(counts_.data() + comm_.size());
}

template <class Exec>
void ParticleExchange::append_rows(const Exec& exec, std::size_t n, const std::uint32_t* rows, std::uint32_t* list,
                                   std::size_t room, const std::uint32_t* start, std::uint32_t* end) {
    exec.exclusive_sum(workspace_, flags_.data(), offsets_.data(), n);
    exec.for_each(n, kernels::ListFlagged{flags_.data(), offsets_.data(), rows, list, room, start, end, n}, "dist.list");
}

template <class Exec>
std::size_t ParticleExchange::migrate(const Exec& exec, FieldArrays& table, const Vec3f* positions, std::size_t n,
                                      const SlabDecomposition& slabs, std::uint64_t fields, Votes* votes) {
    const int ranks = comm_.size(), me = comm_.rank();
    if (ranks == 1) return n;
    if (slabs.ranks() != ranks)
        throw UsageError("dist: " + std::to_string(slabs.ranks()) + " slabs for " + std::to_string(ranks) + " ranks");
    // Host vectors go to the device without waiting for its queue: from pageable memory an
    // asynchronous copy has taken the bytes when it returns (CUDA stages them), so the vectors
    // may change at once.
    // Where every row goes; the rows that leave, in row order, with their destinations.
    borders_.copy_from_host_async(slabs.borders);
    std::size_t leaving = 0;
    if (n > 0) {
        exec.for_each(n,
                      kernels::Destinations{positions, slabs.axis, borders_.data(), ranks, std::uint32_t(me),
                                            destination_.data(), flags_.data()},
                      "dist.destinations");
        exec.exclusive_sum(workspace_, flags_.data(), offsets_.data(), n);
        exec.for_each(n, kernels::ListLeavers{flags_.data(), offsets_.data(), destination_.data(), rows_.data(), n},
                      "dist.leavers");
        // The count and the first pairs in one read-back, with room for twice as many as left
        // last time; a second read only when more left.
        const std::size_t guess = std::min(n, std::max<std::size_t>(1024, 2 * last_leaving_));
        leavers_.resize(1 + 2 * guess);
        exec.copy_to_host(leavers_.data(), rows_.data(), leavers_.size() * sizeof(std::uint32_t));
        leaving = leavers_[0];
        if (leaving > guess) {
            leavers_.resize(1 + 2 * leaving);
            exec.copy_to_host(leavers_.data() + 1 + 2 * guess, rows_.data() + 1 + 2 * guess,
                              2 * (leaving - guess) * sizeof(std::uint32_t));
        }
    }
    last_leaving_ = leaving;
    holes_.resize(leaving);
    going_.resize(leaving);
    for (std::size_t k = 0; k < leaving; ++k) {
        holes_[k] = leavers_[1 + 2 * k];
        going_[k] = leavers_[2 + 2 * k];
    }
    // The send list, destination by destination (a stable counting sort on the host: few rows).
    send_count_.assign(std::size_t(ranks), 0);
    for (const std::uint32_t d : going_) ++send_count_[d];
    std::vector<std::size_t> next(std::size_t(ranks), 0);
    for (int d = 1; d < ranks; ++d) next[std::size_t(d)] = next[std::size_t(d) - 1] + send_count_[std::size_t(d) - 1];
    send_list_.resize(leaving);
    for (std::size_t k = 0; k < leaving; ++k) send_list_[next[going_[k]]++] = holes_[k];
    send_rows_ = leaving;
    std::vector<std::uint64_t> mine = send_count_;
    mine.insert(mine.end(), {n, votes ? votes->stop : 0, votes ? votes->count : 0, 0, 0});
    all_counts_ = gather_counts(mine);
    const std::size_t row = row_length();
    if (votes) {
        *votes = {};
        for (int q = 0; q < ranks; ++q) {
            votes->stop += all_counts_[std::size_t(q) * row + std::size_t(ranks) + 1];
            votes->count += all_counts_[std::size_t(q) * row + std::size_t(ranks) + 2];
        }
        if (votes->stop > 0) return n;
    }
    // Every rank checks every rank's numbers: the same error everywhere, without another vote.
    std::uint64_t arriving = 0;
    for (int q = 0; q < ranks; ++q) {
        const auto [leave, arrive, now] = totals(q);
        const std::uint64_t after = now - leave + arrive;
        std::string problem;
        if (after > capacity_)
            problem = "migration would leave " + std::to_string(after) + " particles, above its capacity of " +
                      std::to_string(capacity_);
        else if (leave > rows_.size() || table.packed_bytes(fields, leave) > buffer_bytes_ ||
                 table.packed_bytes(fields, arrive) > buffer_bytes_)
            problem = std::to_string(leave) + " particles leave and " + std::to_string(arrive) +
                      " arrive in one migration, more than its exchange buffers of " + std::to_string(buffer_bytes_) +
                      " bytes hold";
        if (!problem.empty())
            raise({q, FailureKind::usage, problem + " (more capacity per rank: sph-step --rank-capacity)"}, ranks);
        if (q == me) arriving = arrive;
    }
    receive_count_.assign(std::size_t(ranks), 0);
    for (int p = 0; p < ranks; ++p)
        if (p != me) receive_count_[std::size_t(p)] = all_counts_[std::size_t(p) * row + std::size_t(me)];
    if (leaving == 0 && arriving == 0) return n;
    if (leaving > 0) {
        rows_.copy_from_host_async(send_list_);
        table.pack(exec, rows_.data(), leaving, fields, send_.data());
    }
    send_and_receive(exec, table, fields, leaving, arriving);
    comm_.finish_exchange();
    in_flight_ = false;
    // The arrivals fill the holes (rows ascending), then go after the last row; when fewer
    // arrive than left, the last rows fill the holes that remain below the new end.
    const std::size_t after = n - leaving + arriving;
    targets_.clear();
    for (std::size_t k = 0; k < arriving; ++k) targets_.push_back(k < leaving ? holes_[k] : std::uint32_t(n + (k - leaving)));
    move_from_.clear();
    move_to_.clear();
    if (leaving > arriving) {
        std::size_t hole = arriving;  // the first hole no arrival took
        std::size_t tail_hole = leaving;  // holes at or above `after` are not refilled
        while (tail_hole > arriving && holes_[tail_hole - 1] >= after) --tail_hole;
        std::size_t source = n;
        for (; hole < tail_hole; ++hole) {
            // The highest row at or above `after` that is not a hole.
            do --source;
            while (std::binary_search(holes_.begin(), holes_.end(), std::uint32_t(source)));
            move_from_.push_back(std::uint32_t(source));
            move_to_.push_back(holes_[hole]);
        }
    }
    if (arriving > 0) {
        flags_.copy_from_host_async(targets_);
        table.unpack(exec, receive_.data(), arriving, 0, fields, nullptr, flags_.data());
    }
    if (!move_from_.empty()) {
        offsets_.copy_from_host_async(move_from_);
        destination_.copy_from_host_async(move_to_);
        table.move_rows(exec, offsets_.data(), destination_.data(), move_from_.size(), fields);
    }
    migrated_rows_ += leaving;
    return after;
}

template <class Exec>
Extent ParticleExchange::extent(const Exec& exec, const Vec3f* positions, std::size_t n, int axis) {
    if (n == 0) return Extent::identity();
    exec.transform_reduce(workspace_, n, kernels::ExtentOf{positions, axis}, CombineOp{}, Extent::identity(),
                          extent_slot());
    return exec.read_value(extent_slot());
}

namespace detail {

// The range along the axis of rows a rank with extent `mine` sends each rank q (every rank's
// extent in `extents`), widened by `widen`: q's extent widened, when that meets `mine`; empty
// for itself, for empty extents and for ranks out of reach.
inline std::vector<Extent> wanted_ranges(const std::vector<Extent>& extents, int me, Extent mine, float widen) {
    std::vector<Extent> wanted(extents.size(), Extent::identity());
    for (std::size_t q = 0; q < extents.size(); ++q) {
        const Extent theirs = extents[q];
        if (int(q) == me || theirs.empty() || mine.empty()) continue;
        const Extent range = theirs.widened(widen);
        if (mine.hi < range.lo || mine.lo > range.hi) continue;
        wanted[q] = range;
    }
    return wanted;
}

inline std::uint64_t float_bits(float x) { return std::bit_cast<std::uint32_t>(x); }
inline float bits_float(std::uint64_t b) { return std::bit_cast<float>(std::uint32_t(b)); }

}  // namespace detail

template <class Exec>
bool ParticleExchange::list_cell_layers(const Exec& exec, const Vec3f* positions, const CellLayers& cells,
                                        std::size_t n, int axis, const std::vector<Extent>& wanted) {
    // Each peer's layers: those of its range's ends (a range's rows lie in them: CellLayers).
    const int dim = cells.dims[std::size_t(axis)];
    auto layer = [&](float x) { return clamped_cell_coord(x, cells.origin, cells.inv_cell_size, dim); };
    kernels::PeerLayers peers{};
    peers.dim = std::uint32_t(dim);
    peers.inner = 1;
    std::size_t per_layer = 1;
    for (int a = 0; a < 3; ++a) {
        if (a < axis) peers.inner *= std::uint32_t(cells.dims[std::size_t(a)]);
        if (a != axis) per_layer *= std::size_t(cells.dims[std::size_t(a)]);
    }
    std::size_t entries = 0;
    for (std::size_t q = 0; q < wanted.size(); ++q) {
        const Extent range = wanted[q];
        if (range.empty()) continue;
        if (peers.slots == kernels::PeerLayers::kMaxPeers) return false;
        const int first = layer(range.lo), last = layer(range.hi);
        if (last < first) return false;  // a NaN end: every row decides
        const int s = peers.slots++;
        peers.start[s] = std::uint32_t(entries);
        peers.first[s] = std::uint32_t(first);
        peers.layers[s] = std::uint32_t(last - first + 1);
        peers.range[s] = range;
        peers.rank[s] = std::uint32_t(q);
        entries += std::size_t(last - first + 1) * per_layer;
        // Their cells against the rows: listing from every row is cheaper when there are fewer.
        if (entries >= n) return false;
    }
    if (peers.slots == 0) return false;
    peers.start[peers.slots] = std::uint32_t(entries);
    exec.fill_zero(counts_.data(), (std::size_t(comm_.size()) + 1) * sizeof(std::uint32_t));
    exec.for_each(entries + 1,
                  kernels::CountInLayers{peers, cells.cell_start, positions, axis, std::uint32_t(entries), flags_.data()},
                  "dist.layer_counts");
    exec.exclusive_sum(workspace_, flags_.data(), offsets_.data(), entries + 1);
    exec.for_each(entries,
                  kernels::ListInLayers{peers, cells.cell_start, positions, axis, offsets_.data(), rows_.data(),
                                        rows_.size(), counts_.data()},
                  "dist.layer_rows");
    ++cell_layer_listings_;
    return true;
}

template <class Exec>
Extent ParticleExchange::list_for_peers(const Exec& exec, const Vec3f* positions, const std::uint32_t* candidates,
                                        std::size_t entries, int axis, const std::vector<Extent>& wanted) {
    const int ranks = comm_.size();
    // counts_[q + 1]: where rank q's list ends (the lists follow one another in rank order);
    // counts_[0] = 0. One read-back of them all, and of this rank's extent after them.
    exec.fill_zero(counts_.data(), (std::size_t(ranks) + 1) * sizeof(std::uint32_t));
    std::size_t last = 0;  // the slot of the end of the last list
    for (int q = 0; q < ranks; ++q) {
        const Extent range = wanted[std::size_t(q)];
        if (range.empty() || entries == 0) continue;
        exec.for_each(entries, kernels::FlagInRange{positions, candidates, axis, range.lo, range.hi, flags_.data()},
                      "dist.halo_flag");
        append_rows(exec, entries, candidates, rows_.data(), rows_.size(), counts_.data() + last,
                    counts_.data() + q + 1);
        last = std::size_t(q) + 1;
    }
    return read_lists(exec, wanted);
}

template <class Exec> Extent ParticleExchange::read_lists(const Exec& exec, const std::vector<Extent>& wanted) {
    const int ranks = comm_.size();
    send_count_.assign(std::size_t(ranks), 0);
    std::vector<std::uint32_t> ends(counts_.size());
    exec.copy_to_host(ends.data(), counts_.data(), ends.size() * sizeof(std::uint32_t));
    std::uint32_t at = 0;
    for (int q = 0; q < ranks; ++q) {
        if (wanted[std::size_t(q)].empty()) continue;
        send_count_[std::size_t(q)] = ends[std::size_t(q) + 1] - at;
        at = ends[std::size_t(q) + 1];
    }
    Extent mine;
    std::memcpy(&mine, ends.data() + ranks + 1, sizeof mine);
    return mine;
}

template <class Exec>
std::size_t ParticleExchange::plan_halo(const Exec& exec, const Vec3f* positions, std::size_t n, int axis, float reach,
                                        Extent window, const CellLayers* cells) {
    const int ranks = comm_.size(), me = comm_.rank();
    const float inf = std::numeric_limits<float>::infinity();
    ghosts_below_ = -inf;
    ghosts_above_ = inf;
    if (ranks == 1) {
        mine_ = extent(exec, positions, n, axis);
        extents_ = {mine_};
        ghosts_ = ghosts_from_below_ = 0;
        return 0;
    }
    // This rank's extent, reduced on the device and read back with the lists' lengths.
    if (n > 0)
        exec.transform_reduce(workspace_, n, kernels::ExtentOf{positions, axis}, CombineOp{}, Extent::identity(),
                              extent_slot());
    // The lists, against `wanted` (the other ranks' extents widened), in row order: when the
    // rows are in a grid's cell order (`cells`), from the rows of each peer's cell layers only.
    // Else from every row; with several peers (a slab between two others), one pass over the
    // rows lists those any peer wants (a few layers at each face), and each peer's list is cut
    // from these candidates: the rows are passed over once, not once per peer. Then every rank's
    // counts, extent and window in one all-gather.
    auto list = [&](const std::vector<Extent>& wanted) {
        int peers = 0;
        for (const Extent& range : wanted) peers += range.empty() ? 0 : 1;
        const std::uint32_t* candidates = nullptr;
        std::size_t entries = n;
        Extent read;
        if (cells && n > 0 && list_cell_layers(exec, positions, *cells, n, axis, wanted)) {
            read = read_lists(exec, wanted);
        } else {
            if (peers > 1 && n > 0) {
                // On exec's queue, which may not be the buffer's (start_halo).
                exec.copy_from_host(ranges_.data(), wanted.data(), wanted.size() * sizeof(Extent));
                exec.for_each(n, kernels::FlagInAnyRange{positions, axis, ranges_.data(), ranks, flags_.data()},
                              "dist.halo_candidates");
                entries = list_rows(exec, n, nullptr, destination_.data(), destination_.size());
                candidates = destination_.data();
            }
            read = list_for_peers(exec, positions, candidates, entries, axis, wanted);
        }
        mine_ = n > 0 ? read : Extent::identity();
        send_rows_ = 0;
        for (const std::uint64_t c : send_count_) send_rows_ += c;
        std::vector<std::uint64_t> row = send_count_;
        row.insert(row.end(), {n, detail::float_bits(mine_.lo), detail::float_bits(mine_.hi),
                               detail::float_bits(window.lo), detail::float_bits(window.hi)});
        all_counts_ = gather_counts(row);
    };
    const std::size_t row = row_length();
    // Every rank's extent (k = 0) or window (k = 1) in the last gathered counts.
    auto gathered = [&](std::size_t k) {
        std::vector<Extent> all(std::size_t(ranks), Extent::identity());
        for (int q = 0; q < ranks; ++q) {
            const std::uint64_t* at = all_counts_.data() + std::size_t(q) * row + std::size_t(ranks) + 1 + 2 * k;
            all[std::size_t(q)] = {detail::bits_float(at[0]), detail::bits_float(at[1])};
        }
        return all;
    };
    // After a first plan the lists are made against the last plan's extents widened by a margin
    // more, for the peers within reach of where this rank's rows were foreseen to lie (`window`,
    // window()), so that this rank's extent needs no all-gather of its own. Every rank then
    // checks, for every pair of ranks, that the rows the new extents call for were within what
    // was listed (the lists hold a few more rows, farther than the reach: no pass counts them);
    // when not (the borders moved, a particle jumped), every rank lists again against the new
    // extents, as on a first plan. Every rank takes the same branches (extents_ and the
    // gathered rows are the same everywhere).
    bool listed = false;
    if (extents_.size() == std::size_t(ranks)) {
        const float widened = reach * (1.0f + kSpeculativeMargin);
        list(detail::wanted_ranges(extents_, me, window, widened));
        const std::vector<Extent> now = gathered(0), windows = gathered(1);
        listed = true;
        for (int p = 0; p < ranks && listed; ++p) {
            const auto sent = detail::wanted_ranges(extents_, p, windows[std::size_t(p)], widened);
            const auto needed = detail::wanted_ranges(now, p, now[std::size_t(p)], reach);
            for (int q = 0; q < ranks && listed; ++q) {
                const Extent s = sent[std::size_t(q)], e = needed[std::size_t(q)];
                if (!e.empty() && (s.empty() || e.lo < s.lo || e.hi > s.hi)) listed = false;
            }
        }
        extents_ = now;
        speculated_plans_ += listed ? 1 : 0;
    } else {
        mine_ = extent(exec, positions, n, axis);
        extents_ = comm_.allgather(mine_);
    }
    if (!listed) list(detail::wanted_ranges(extents_, me, mine_, reach));
    for (int q = 0; q < ranks; ++q) {
        const auto [sent, received, owned] = totals(q);
        if (owned + received > capacity_ || sent > rows_.size())
            raise({q, FailureKind::usage,
                   std::to_string(owned) + " particles and " + std::to_string(received) + " ghosts (" +
                       std::to_string(sent) + " rows sent) exceed its capacity of " + std::to_string(capacity_) +
                       " rows (more capacity per rank: sph-step --rank-capacity)"},
                  ranks);
    }
    receive_count_.assign(std::size_t(ranks), 0);
    ghosts_ = ghosts_from_below_ = 0;
    for (int p = 0; p < ranks; ++p) {
        receive_count_[std::size_t(p)] = all_counts_[std::size_t(p) * row + std::size_t(me)];
        ghosts_ += receive_count_[std::size_t(p)];
        if (p < me) ghosts_from_below_ += receive_count_[std::size_t(p)];
        if (receive_count_[std::size_t(p)] == 0 || mine_.empty()) continue;
        const Extent theirs = extents_[std::size_t(p)];
        if (p < me) ghosts_below_ = std::max(ghosts_below_, std::min(theirs.hi, mine_.hi + reach));
        else ghosts_above_ = std::min(ghosts_above_, std::max(theirs.lo, mine_.lo - reach));
    }
    return ghosts_;
}

template <class Exec> void ParticleExchange::start_halo(const Exec& exec, const FieldArrays& table, std::uint64_t fields) {
    if (comm_.size() == 1) return;
    check_buffers(table, fields, "halo");
    table.pack(exec, rows_.data(), send_rows_, fields, send_.data());
    send_and_receive(exec, table, fields, send_rows_, ghosts_);
}

template <class Exec>
void ParticleExchange::unpack_halo(const Exec& exec, FieldArrays& table, std::size_t n, const std::uint32_t* order) {
    if (comm_.size() == 1 || ghosts_ == 0) return;
    table.unpack(exec, receive_.data(), ghosts_, n, fields_, order);
}

template <class Exec>
void ParticleExchange::send_and_receive(const Exec& exec, const FieldArrays& table, std::uint64_t fields,
                                        std::size_t send_rows, std::size_t receive_rows) {
    const int ranks = comm_.size();
    sends_.clear();
    receives_.clear();
    // One message per field and peer, in table order: both sides list them alike.
    for (int f = 0; f < int(table.table().size()); ++f) {
        if (!((fields >> f) & 1u)) continue;
        const std::size_t bytes = field_element_bytes(table.spec(f));
        std::byte* out = send_.data() + table.packed_offset(fields, send_rows, f);
        std::byte* in = receive_.data() + table.packed_offset(fields, receive_rows, f);
        std::size_t sent = 0, received = 0;
        for (int p = 0; p < ranks; ++p) {
            const std::size_t s = send_count_[std::size_t(p)], r = receive_count_[std::size_t(p)];
            if (s) sends_.push_back({p, out + sent * bytes, s * bytes});
            if (r) receives_.push_back({p, in + received * bytes, r * bytes});
            sent += s;
            received += r;
            bytes_sent_ += s * bytes;
        }
    }
    fields_ = fields;
    received_rows_ = receive_rows;
    comm_.start_exchange(sends_, receives_, &exec.backend());
    in_flight_ = true;
}

template <class Exec>
std::vector<std::uint32_t> ParticleExchange::histogram(const Exec& exec, const Vec3f* positions, std::size_t n, int axis,
                                                       double lo, double hi, std::size_t bins) {
    if (bins == 0 || bins > bins_.size())
        throw UsageError("dist: a histogram of " + std::to_string(bins) + " bins (at most " +
                         std::to_string(bins_.size()) + ")");
    exec.fill_zero(bins_.data(), bins * sizeof(std::uint32_t));
    if (n > 0 && hi > lo)
        exec.for_each_block((n + kernels::CountInBins::kRowsPerBlock - 1) / kernels::CountInBins::kRowsPerBlock,
                            bins * sizeof(std::uint32_t),
                            kernels::CountInBins{positions, n, axis, lo, double(bins) / (hi - lo), std::uint32_t(bins),
                                                 bins_.data()},
                            "dist.histogram");
    std::vector<std::uint32_t> out(bins);
    exec.copy_to_host(out.data(), bins_.data(), bins * sizeof(std::uint32_t));
    return out;
}

// The family's instantiations, once per backend (particle_exchange_cpu.cpp, _cuda.cu).
#define PK_DIST_PARTICLE_EXCHANGE_INSTANTIATE(Exec)                                                                   \
    template std::size_t exchange_scratch_bytes(const Exec&, std::size_t);                                           \
    template std::size_t ParticleExchange::migrate(const Exec&, FieldArrays&, const Vec3f*, std::size_t,             \
                                                   const SlabDecomposition&, std::uint64_t, Votes*);                \
    template Extent ParticleExchange::extent(const Exec&, const Vec3f*, std::size_t, int);                           \
    template std::size_t ParticleExchange::plan_halo(const Exec&, const Vec3f*, std::size_t, int, float, Extent,     \
                                                     const CellLayers*);                                            \
    template void ParticleExchange::start_halo(const Exec&, const FieldArrays&, std::uint64_t);                      \
    template void ParticleExchange::unpack_halo(const Exec&, FieldArrays&, std::size_t, const std::uint32_t*);      \
    template std::vector<std::uint32_t> ParticleExchange::histogram(const Exec&, const Vec3f*, std::size_t, int,     \
                                                                    double, double, std::size_t);

}  // namespace partikel::dist
