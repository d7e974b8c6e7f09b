// Particles between ranks over a model's field table (core/fields.hpp): migration to the rank
// that owns a particle's position, and halos of ghost rows for the neighbour passes. After
// Cabana's Distributor and Halo (a plan built once from each particle's destination, applied to
// any fields), with every buffer allocated once and the transfers through the Communicator's
// device exchange.
//
// Migration (once per step, at a reorder): rows [0, n) whose coordinate along the slab axis
// lies in another rank's slab leave: they are listed (flag, scan, compact), grouped per
// destination on the host (few rows), packed (every field that persists over steps), counts
// are all-gathered and the packed bytes exchanged; the rows that arrive fill the holes, and
// when fewer arrive than left, the last rows fill the holes that remain. Apart from three
// passes over the rows that find the leavers, the cost is that of the rows that move: the
// reorder that follows puts everything in cell order anyway.
//
// Halo (after every reorder that moves positions): each rank's extent along the axis (of its
// rows [0, n)) is all-gathered, and the rows within `reach` of another rank's extent are
// listed for it (flag, scan, compact: one list per neighbour; their lengths read back at once).
// When the rows are in a grid's cell order (CellLayers), each neighbour's list is made from the
// cell layers along the axis that its range meets (a pass over those layers' cells counting
// their rows in the range, a scan, a pass writing them: the cost of the layers, not of the
// rank's rows); otherwise from every row (with two neighbours or more, one pass lists the rows
// any wants, and each one's list is cut from those). Either way a list is in row order.
// After the first plan the lists are made against the last plan's extents widened by a tenth of
// the reach more, and the new extents travel with the counts in one all-gather (this rank's read
// back with its counts, so that a grid built before the plan uses window(), not the extent);
// when an extent moved farther, every rank lists again (plan_halo). exchange_halo() sends the listed
// rows' values of some fields into a receive buffer in arrival order; unpack_halo() writes them
// into the ghost rows [n, n + g), in an order the model chooses (its ghost cell order). The
// same lists serve every refresh of other fields until the next plan. Positions of a rank's
// rows may lie a little outside its slab between migrations: the extents, not the borders,
// decide who needs which ghosts, so nothing is missed.
//
// Every call is collective over the communicator's ranks. A capacity or buffer that would
// overflow is a UsageError on every rank, naming the rank and the numbers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/hd.hpp"
#include "base/vec.hpp"
#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/fields.hpp"
#include "core/workspace.hpp"
#include "dist/communicator.hpp"
#include "dist/slabs.hpp"

namespace partikel::dist {

// A rank's rows along the slab axis: [lo, hi] (m), lo > hi when it has none. A reduction
// value (core/reduce_ops.hpp, CombineOp).
struct Extent {
    float lo, hi;
    bool empty() const { return lo > hi; }
    // Widened by `by` each way (an empty extent stays empty).
    Extent widened(float by) const { return empty() ? *this : Extent{lo - by, hi + by}; }
    static PK_HD Extent identity() { return {__builtin_huge_valf(), -__builtin_huge_valf()}; }
    static PK_HD Extent combine(const Extent& a, const Extent& b) {
        return {b.lo < a.lo ? b.lo : a.lo, a.hi < b.hi ? b.hi : a.hi};
    }
};

// Rows [0, n) in the cell order of a uniform grid with linear cell numbering (frnn::CellGrid
// without Morton numbering: cell ix + nx (iy + ny iz) holds the rows [cell_start[c],
// cell_start[c + 1])), open along the slab axis: a row with coordinate x along it lies in the
// cell layer clamped_cell_coord(x, origin, inv_cell_size, dims[axis]) (core/cell_coord.hpp),
// so the rows with x in [lo, hi] lie in the layers of lo to hi. A windowed grid gives its
// window's cells (its edge layers hold the rows beyond it).
struct CellLayers {
    const std::uint32_t* cell_start = nullptr;  // backend memory, dims' product + 1 values
    std::array<int, 3> dims{};                  // cells per axis
    float origin = 0.0f;                        // m, where cell layer 0 starts along the slab axis
    float inv_cell_size = 0.0f;                 // 1/m, along the slab axis
};

// Two counts every rank sums, carried by a migration's all-gather of counts so that a vote
// taken just before it costs no collective of its own: `stop` (non-zero on any rank: nothing
// moves, and the caller ends the run on every rank) and `count` (only summed).
struct Votes {
    std::uint64_t stop = 0, count = 0;
};

class ParticleExchange {
public:
    // For field tables of `capacity` rows (owned and ghosts) on `backend`; `buffer_bytes` each
    // for the packed rows sent and received by one migration or halo exchange.
    ParticleExchange(Communicator comm, const Backend& backend, std::size_t capacity, std::size_t buffer_bytes);

    // ---- Migration ----
    // Returns the new number of rows; `fields` (a mask) travel with the rows and fill the
    // holes (every field whose values matter after the migration). `votes`: this rank's, then
    // every rank's sums (Votes); with a stop vote nothing moves.
    template <class Exec>
    std::size_t migrate(const Exec& exec, FieldArrays& table, const Vec3f* positions, std::size_t n,
                        const SlabDecomposition& slabs, std::uint64_t fields, Votes* votes = nullptr);

    // ---- Halo ----
    // This rank's extent along `axis` of rows [0, n) (one reduction and a read-back).
    template <class Exec> Extent extent(const Exec& exec, const Vec3f* positions, std::size_t n, int axis);
    // Lists the rows of [0, n) each other rank needs as ghosts (within `reach` of its extent
    // along `axis`) and returns how many ghosts this rank receives; n + ghosts must fit the
    // capacity. `window`: where the rows were foreseen to lie, window() (any value before the
    // first plan). This rank's extent comes back with the lists' lengths: mine(). `cells`:
    // the grid whose cell order the rows are in (CellLayers), or nullptr; the lists are the
    // same either way (each in row order), only their cost differs.
    template <class Exec>
    std::size_t plan_halo(const Exec& exec, const Vec3f* positions, std::size_t n, int axis, float reach,
                          Extent window, const CellLayers* cells = nullptr);
    // This rank's extent at the last plan.
    Extent mine() const { return mine_; }
    // Where this rank's rows lie at the next plan, foreseen from the last plan (for a grid built
    // before it): within its extent then, or, after a migration to `slabs`, within its slab and
    // some rank's extent then, give or take kSpeculativeMargin of `reach` of drift. Empty before
    // the first plan, and when the rank had no rows and receives none. Rows outside it are
    // still found (a grid's edge cells take them), only slower, and the plan lists again.
    Extent window(const SlabDecomposition& slabs, float reach) const { return window_of(comm_.rank(), slabs, reach); }
    // Where ghosts_below() and ghosts_above() will be after the next plan, foreseen like
    // window() (every rank's rows within its window): at most `below` and at least `above`, so
    // that the rows between them, widened by the reach, may be computed before the plan (the
    // interior of a slab while its halo is planned and travels). Before the first plan
    // {+inf, -inf}: nothing is foreseen. Not a guarantee (a row that jumped past its window
    // moves them farther): compare with the plan's.
    struct GhostBounds {
        float below, above;  // m
    };
    GhostBounds foreseen_ghost_bounds(const SlabDecomposition& slabs, float reach) const;
    // Sends the listed rows' `fields` and receives the ghosts' into the receive buffer (arrival
    // order). start_/finish_ split it for work in between (finish before reading them).
    // plan_halo and start_halo may run on a second queue of the backend's device (`exec` on
    // Backend::with_own_stream(), ordered after the rows' last change by an Event) while the
    // backend's own queue computes: the sends wait for `exec`'s work, and finish_halo orders
    // the later work of `before` (the backend's when nullptr) after the receives
    // (Communicator::start_exchange, finish_exchange).
    template <class Exec> void start_halo(const Exec& exec, const FieldArrays& table, std::uint64_t fields);
    void finish_halo(const Backend* before = nullptr);
    template <class Exec> void exchange_halo(const Exec& exec, const FieldArrays& table, std::uint64_t fields) {
        start_halo(exec, table, fields);
        finish_halo();
    }
    // The received records of `field` (one of the last exchange's `fields`), ghosts() of them
    // in arrival order, in backend memory.
    const std::byte* received(const FieldArrays& table, int field) const;
    // Ghost row n + k takes the received record order[k] (k without an order) of each field of
    // the last exchange.
    template <class Exec>
    void unpack_halo(const Exec& exec, FieldArrays& table, std::size_t n, const std::uint32_t* order = nullptr);

    std::size_t ghosts() const { return ghosts_; }
    // Of them, those from lower ranks: they arrive first (peers in rank order).
    std::size_t ghosts_from_below() const { return ghosts_from_below_; }
    // Every rank's extent at the last plan_halo.
    const std::vector<Extent>& extents() const { return extents_; }
    // The largest coordinate of a ghost within the reach from a lower rank and the smallest of
    // one from a higher rank (-inf and +inf when none): a row further than the search reach from
    // both has no ghost neighbour. (Ghosts a little farther may come too: plan_halo.)
    float ghosts_below() const { return ghosts_below_; }
    float ghosts_above() const { return ghosts_above_; }

    // Halo listings (one or two a plan) made from cell layers (plan_halo's `cells`), not from
    // every row, since construction: those whose layers held fewer cells than the rank has rows,
    // for at most four peers (a slab has two faces).
    std::uint64_t cell_layer_listings() const { return cell_layer_listings_; }

    // Halo plans whose lists, made against the last plan's extents widened by
    // kSpeculativeMargin, held (one all-gather) since construction; the others gathered twice.
    std::uint64_t speculated_plans() const { return speculated_plans_; }
    // The widening, a fraction of the reach: a slab's extent moves by a particle's drift in a
    // step, about a hundredth of the reach (Δt's CFL bound), between plans; a tenth covers
    // it with room and adds a tenth to the halo's rows (farther than the reach: no pass
    // counts them).
    static constexpr float kSpeculativeMargin = 0.1f;

    // Rows sent since construction (migration, halo), and bytes sent (for benchmarks' bounds).
    std::uint64_t migrated_rows() const { return migrated_rows_; }
    std::uint64_t bytes_sent() const { return bytes_sent_; }

    // Particles per bin along `axis` of rows [0, n): `bins` (at most 16,384) equal bins over [lo, hi]
    // (outside: the end bins), this rank only (the balancing's profile all-reduces it).
    template <class Exec>
    std::vector<std::uint32_t> histogram(const Exec& exec, const Vec3f* positions, std::size_t n, int axis, double lo,
                                         double hi, std::size_t bins);

    Communicator& communicator() { return comm_; }
    std::size_t device_bytes() const;

private:
    // window() for rank q.
    Extent window_of(int q, const SlabDecomposition& slabs, float reach) const;
    // The flagged entries of flags_[0, n) into list[0, room) (entry k stands for row k, or for
    // rows[k]), in entry order; returns how many were flagged (those past room are not written).
    template <class Exec>
    std::size_t list_rows(const Exec& exec, std::size_t n, const std::uint32_t* rows, std::uint32_t* list,
                          std::size_t room);
    // The same without reading the count back: the list starts at list[*start] (device; nullptr:
    // 0), and *end (device) becomes *start plus the count (counts_ slots).
    template <class Exec>
    void append_rows(const Exec& exec, std::size_t n, const std::uint32_t* rows, std::uint32_t* list, std::size_t room,
                     const std::uint32_t* start, std::uint32_t* end);
    // As list_for_peers, for rows [0, n) in the cell order of `cells`: each peer's list from the
    // rows of the cell layers its wanted range meets (a pass over those cells counting the rows
    // in the range, a scan, a pass writing them), without the read-back; false (nothing done)
    // when those layers hold as many cells as there are rows, or for more than four peers.
    template <class Exec>
    bool list_cell_layers(const Exec& exec, const Vec3f* positions, const CellLayers& cells, std::size_t n, int axis,
                          const std::vector<Extent>& wanted);
    // For each rank q, the rows of [0, n) (or of the `entries` candidates) within wanted[q], one
    // list after the other in rows_, their lengths in send_count_; one read-back for all, which
    // also returns the extent in extent_slot().
    template <class Exec>
    Extent list_for_peers(const Exec& exec, const Vec3f* positions, const std::uint32_t* candidates, std::size_t entries,
                        int axis, const std::vector<Extent>& wanted);
    // The lists' lengths (send_count_, for the ranks `wanted` names) and the extent, in one read-back.
    template <class Exec> Extent read_lists(const Exec& exec, const std::vector<Extent>& wanted);
    template <class Exec> void send_and_receive(const Exec& exec, const FieldArrays& table, std::uint64_t fields,
                                                std::size_t send_rows, std::size_t receive_rows);
    void check_buffers(const FieldArrays& table, std::uint64_t fields, const char* what) const;
    // Every rank's [rows it sends to each rank..., its rows, four more values] (an all-gather),
    // rank by rank: row_length() values each. The four: a halo plan's extent and window (the
    // bits of lo and hi), a migration's votes (and two zeros).
    std::vector<std::uint64_t> gather_counts(const std::vector<std::uint64_t>& mine) const;
    std::size_t row_length() const { return std::size_t(comm_.size()) + 5; }
    // Rank q's totals in the last gathered counts: rows it sends and receives (from other ranks),
    // and its rows.
    struct Totals {
        std::uint64_t sent = 0, received = 0, rows = 0;
    };
    Totals totals(int q) const;

    Communicator comm_;
    Backend backend_;
    std::size_t capacity_;
    std::size_t buffer_bytes_;
    Workspace workspace_;
    DeviceBuffer<std::uint32_t> flags_, offsets_, rows_;  // per row; rows_: the send lists, per peer in turn
    DeviceBuffer<std::uint32_t> destination_;             // per row (migration; the halo's candidates)
    // Per rank and one more: where the halo lists end (a list's length: the last), then this
    // rank's extent (extent_slot()), read back together.
    DeviceBuffer<std::uint32_t> counts_;
    static_assert(sizeof(Extent) == 2 * sizeof(std::uint32_t));
    Extent* extent_slot() { return reinterpret_cast<Extent*>(counts_.data() + comm_.size() + 1); }
    DeviceBuffer<Extent> ranges_;  // per rank: the rows it wants as ghosts (plan_halo)
    DeviceBuffer<double> borders_;
    DeviceBuffer<std::uint32_t> bins_;
    DeviceBuffer<std::byte> send_, receive_;

    // The last exchange: rows per peer (rank order) both ways and the fields that travelled.
    std::vector<std::uint64_t> send_count_, receive_count_;
    std::vector<std::uint64_t> all_counts_;  // every rank's row of gather_counts, rank by rank
    std::size_t send_rows_ = 0, ghosts_ = 0, ghosts_from_below_ = 0;
    std::uint64_t fields_ = 0;
    std::size_t received_rows_ = 0;
    std::vector<Extent> extents_;
    Extent mine_ = Extent::identity();
    float ghosts_below_ = 0, ghosts_above_ = 0;
    std::vector<SendBytes> sends_;
    std::vector<ReceiveBytes> receives_;
    bool in_flight_ = false;
    std::uint64_t migrated_rows_ = 0, bytes_sent_ = 0, speculated_plans_ = 0, cell_layer_listings_ = 0;
    // The last migration's rows on the host: holes left (ascending) and where they went, the
    // send list, the arrivals' rows, and the rows moved into holes.
    std::vector<std::uint32_t> holes_, going_, send_list_, targets_, move_from_, move_to_;
    std::vector<std::uint32_t> leavers_;  // the read-back: the count, then (row, destination) pairs
    std::size_t last_leaving_ = 0;
};

// Scratch bytes of the exchange's scans and reductions (particle_exchange_impl.hpp).
template <class Exec> std::size_t exchange_scratch_bytes(const Exec& exec, std::size_t capacity);

}  // namespace partikel::dist
