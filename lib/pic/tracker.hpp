// Turn-by-turn tracking of a beam resident on a backend: the compiled lattice (pic/program.hpp),
// space-charge kicks at evenly spaced nodes (pic/space_charge.hpp), losses at apertures, moments
// in double precision, and turn-by-turn records of probe particles for tunes.
//
// One turn is, for each segment of the program: [a space-charge solve: at the first node of
// the turn, or at every node with MapSharing::per_kick], then one pass over the particles that
// applies the node's kick and the segment's operations. Everything is allocated in the
// constructor; a turn allocates nothing and does not synchronise.
//
// Several ranks (TrackerOptions::ranks): each rank tracks its own macroparticles (a block of
// the beam's rows, in rank order); the space-charge grids are the whole beam's (all-reduced,
// space_charge.hpp), the moments, losses and probe records are combined over the ranks, and a
// lost particle stays where it is, on its rank. Without space charge the ranks never talk
// during a turn.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/buffer.hpp"
#include "core/timer.hpp"
#include "core/workspace.hpp"
#include "dist/communicator.hpp"
#include "pic/beam.hpp"
#include "pic/lattice.hpp"
#include "pic/moments.hpp"
#include "pic/program.hpp"
#include "pic/space_charge.hpp"

namespace partikel::pic {

struct TrackerOptions {
    SpaceChargeOptions space_charge;
    bool fuse_kicks = true;        // false: each kick is a pass of its own (to time it apart)
    bool profile = false;          // time each phase on the device (adds a wait per phase)
    std::size_t probes = 0;        // particles 0 .. probes-1 (of the whole beam) are recorded after every turn
    int probe_turns = 0;           // for this many turns
    std::int64_t first_turn = 0;   // the turn the beam is at (a restart): turn numbers of losses
    // The ranks sharing the beam: each constructs its Tracker with its own rows, the blocks of
    // the beam in rank order (collective; binds the communicator to the backend).
    dist::Communicator ranks = dist::Communicator::single();
};

class Tracker {
public:
    // `coasting`: z wraps around the ring and space-charge slices are periodic. `intensity`:
    // ions the macroparticles stand for (their charge is Z e intensity / count, every rank's
    // macroparticles counted). `initial`: this rank's macroparticles.
    Tracker(const Backend& backend, const Lattice& lattice, const ParticleSpecies& species, double intensity,
            const ParticleSet& initial, bool coasting, const TrackerOptions& options = {});
    ~Tracker();

    void track_turn();
    std::int64_t turn() const { return turn_; }

    // Of the whole beam: one reduction and one synchronisation (and a combination over the
    // ranks, the same on every rank; collective).
    BeamMoments moments();
    // Particles lost at each lattice element so far, every rank's (synchronises; collective).
    std::vector<std::uint64_t> losses_per_element() const;
    // Probe records of the first `turns` turns (default: every turn recorded): [turn][probe],
    // every rank's probes (synchronises; collective).
    std::vector<Coordinates> probe_history(std::size_t turns = SIZE_MAX) const;
    std::size_t probe_turns_recorded() const { return probe_turns_recorded_; }

    Beam& beam() { return beam_; }
    ParticleSet download() const { return beam_.download(); }
    std::size_t size() const { return beam_.size(); }  // this rank's macroparticles
    std::size_t global_size() const { return global_size_; }  // every rank's
    const dist::Communicator& ranks() const { return options_.ranks; }
    const Backend& backend() const { return backend_; }
    const Lattice& lattice() const { return lattice_; }
    const ReferenceParticle& reference() const { return reference_; }
    const TrackProgram& program() const { return program_; }
    const SpaceChargeSolver* space_charge() const { return space_charge_.get(); }
    double macro_charge_C() const { return macro_charge_C_; }
    double geometry_factor() const { return geometry_factor_; }
    bool coasting() const { return coasting_; }
    PhaseProfile& profile() { return profile_; }
    std::size_t device_bytes() const;

private:
    Backend backend_;
    Lattice lattice_;
    ReferenceParticle reference_;
    TrackerOptions options_;
    std::size_t global_size_;
    bool coasting_;
    double macro_charge_C_;
    double geometry_factor_ = 0.0;
    TrackProgram program_;
    Beam beam_;
    DeviceBuffer<TrackOp> ops_;
    DeviceBuffer<std::uint64_t> losses_;
    DeviceBuffer<BeamMoments> moments_;
    Workspace workspace_;
    std::unique_ptr<SpaceChargeSolver> space_charge_;
    DeviceBuffer<std::uint32_t> probe_index_;  // this rank's probes (its rows among the beam's first `probes`)
    DeviceBuffer<Coordinates> probe_history_;
    std::size_t probe_turns_recorded_ = 0;
    PhaseProfile profile_;
    std::int64_t turn_ = 0;
};

// The geometry factor g = 1 + 2 ln(b / a) of the longitudinal space-charge field (Reiser,
// "Theory and Design of Charged Particle Beams", 2008, sec. 6.2), with a = 2 sqrt(sigma_x sigma_y)
// of the alive particles (every rank's: collective); UsageError unless 0 < a < b.
double geometry_factor(const ParticleSet& particles, double pipe_radius_m,
                       const dist::Communicator& ranks = dist::Communicator::single());

}  // namespace partikel::pic
