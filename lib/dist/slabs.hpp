// Slabs: the decomposition of a domain into one slab per rank along one axis (Werner 2015,
// section 5), rank r owning the particles with borders[r] <= x < borders[r + 1]. Borders start at
// the particle-count quantiles of the start state and move with the measured cost (balance()).
// Host values only: every rank holds the same borders (they change only through collective
// decisions), so the owner of a position is known everywhere without asking.
//
// Blocks later: a rank's slab is the box [borders[r], borders[r+1]) along `axis` and the whole
// domain along the other axes; a block decomposition replaces the one-axis borders with a box
// per rank (recursive bisection of the same cost histogram, one axis per level) behind the same
// rank_of().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace partikel::dist {

struct SlabDecomposition {
    int axis = 0;                 // 0, 1, 2: x, y, z
    std::vector<double> borders;  // ranks + 1 values (m); borders[0] = -inf, borders[ranks] = +inf

    int ranks() const { return int(borders.size()) - 1; }
    // The rank whose slab holds coordinate x (NaN: rank 0).
    int rank_of(double x) const;
    // A decomposition of one slab (everything on rank 0).
    static SlabDecomposition whole(int axis);
};

// The longest axis of [lo, hi] that is not periodic, or -1 when all three are.
int slab_axis(std::array<double, 3> lo, std::array<double, 3> hi, std::array<bool, 3> periodic);

// `ranks` slabs holding equal numbers of the given coordinates (along `axis`): borders halfway
// between the neighbouring coordinates at each quantile.
SlabDecomposition slabs_by_count(int axis, std::span<const float> coordinates, int ranks);

// `ranks` slabs of equal width over [lo, hi] along `axis` (a start that a fluid's uneven filling
// makes uneven: what the load balancing is measured from).
SlabDecomposition slabs_by_width(int axis, double lo, double hi, int ranks);

// UsageError when a slab is thinner than `min_width` (the halo reach): the inner slabs between
// their borders, the first and last from the domain's faces [lo, hi].
void check_slab_width(const SlabDecomposition& slabs, double lo, double hi, double min_width);

// The cost of the particles along the slab axis: `bins` equal bins over [lo, hi] (particles
// outside count in the end bins), summed over every rank (an all-reduce).
struct CostProfile {
    double lo = 0.0, hi = 0.0;
    std::vector<double> cost;   // s per step, in each bin
    std::vector<double> count;  // particles in each bin
};

struct BalanceLimits {
    double damping = 0.5;          // the share of the way to the balanced borders taken per move
    double min_width = 0.0;        // m, the halo reach: no slab gets thinner
    double max_particles = 0.0;    // per rank (the capacity, less a margin); 0: no limit
    double max_crossing = 0.0;     // particles crossing one border per move (the migration's
                                   // buffers: a rank sends and receives over two); 0: no limit
};

// Borders that give every rank the same predicted cost, moved `damping` of the way from
// `now`, each stopped where max_crossing particles of the count profile lie between its old
// and new place (a strongly uneven start then balances over several moves, each migration
// within its buffers), kept `min_width` apart (and from the profile's ends) and, where the
// count profile says a slab would hold more than max_particles, not moved at all.
SlabDecomposition balance(const SlabDecomposition& now, const CostProfile& profile, const BalanceLimits& limits);

}  // namespace partikel::dist
