// Turn-by-turn tracking of a beam resident on a backend: the compiled lattice (pic/program.hpp),
// space-charge kicks at evenly spaced nodes (pic/space_charge.hpp), losses at apertures, moments
// in double precision, and turn-by-turn records of probe particles for tunes.
//
// One turn is, for each segment of the program: [a space-charge solve: at the first node of
// the turn, or at every node with MapSharing::per_kick], then one pass over the particles that
// applies the node's kick and the segment's operations. Everything is allocated in the
// constructor; a turn allocates nothing and does not synchronise.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/buffer.hpp"
#include "core/timer.hpp"
#include "core/workspace.hpp"
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
    std::size_t probes = 0;        // particles 0 .. probes-1 are recorded after every turn
    int probe_turns = 0;           // for this many turns
    std::int64_t first_turn = 0;   // the turn the beam is at (a restart): turn numbers of losses
};

class Tracker {
public:
    // `coasting`: z wraps around the ring and space-charge slices are periodic. `intensity`:
    // ions the macroparticles stand for (their charge is Z e intensity / count).
    Tracker(const Backend& backend, const Lattice& lattice, const ParticleSpecies& species, double intensity,
            const ParticleSet& initial, bool coasting, const TrackerOptions& options = {});
    ~Tracker();

    void track_turn();
    std::int64_t turn() const { return turn_; }

    // One reduction and one synchronisation.
    BeamMoments moments();
    // Particles lost at each lattice element so far (synchronises).
    std::vector<std::uint64_t> losses_per_element() const;
    // Probe records: [turn][probe], turns recorded so far (synchronises).
    std::vector<Coordinates> probe_history() const;
    std::size_t probe_turns_recorded() const { return probe_turns_recorded_; }

    Beam& beam() { return beam_; }
    ParticleSet download() const { return beam_.download(); }
    std::size_t size() const { return beam_.size(); }
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
    DeviceBuffer<std::uint32_t> probe_index_;
    DeviceBuffer<Coordinates> probe_history_;
    std::size_t probe_turns_recorded_ = 0;
    PhaseProfile profile_;
    std::int64_t turn_ = 0;
};

// The geometry factor g = 1 + 2 ln(b / a) of the longitudinal space-charge field (Reiser,
// "Theory and Design of Charged Particle Beams", 2008, sec. 6.2), with a = 2 sqrt(sigma_x sigma_y)
// of the alive particles; UsageError unless 0 < a < b.
double geometry_factor(const ParticleSet& particles, double pipe_radius_m);

}  // namespace partikel::pic
