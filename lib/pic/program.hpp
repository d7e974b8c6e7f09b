// A lattice compiled for tracking: the operations of one turn (pic/track_ops.hpp), with
// consecutive linear elements multiplied into one map where that is exact (no aperture, kick or
// space-charge node between them), split into segments at the space-charge nodes.
#pragma once

#include <cstddef>
#include <vector>

#include "pic/lattice.hpp"
#include "pic/maps.hpp"
#include "pic/track_ops.hpp"

namespace partikel::pic {

struct TrackProgram {
    std::vector<TrackOp> ops;
    struct Segment {
        std::size_t begin = 0, end = 0;  // ops [begin, end)
        bool kick_before = false;        // a space-charge node at the segment's start
        double s_m = 0.0;                // where the segment starts
    };
    std::vector<Segment> segments;
    std::size_t linear_maps = 0;         // linear operations after fusion
};

// `kicks_per_turn` space-charge nodes at the middle of as many equal sections of the ring,
// s = (k + 1/2) C / kicks_per_turn (0: none, one segment), so that a turn from s = 0 is
// symmetric: drift-kick-drift splitting, second order in the section length. Thick elements
// with a node inside are split there (pic/maps.hpp, element_part). The pipe aperture is
// checked where particles leave every thick element.
// The most space-charge kicks per turn: each is a node of the turn's program (and, with a field
// map per kick, a map); beyond this a turn is a mistake to refuse, not to compile.
inline constexpr int kMaxKicksPerTurn = 100'000;

TrackProgram compile_program(const Lattice& lattice, const MapContext& context, int kicks_per_turn);

// The linear operation's parameters of a map of the fusable block form; Error otherwise.
TrackOp linear_op(const Matrix6& m, int element);

}  // namespace partikel::pic
