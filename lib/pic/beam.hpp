// Macroparticles: (x, x', y, y', z, delta) in double precision, an id, and loss bookkeeping, as
// a field table (core/fields.hpp) on a backend. Lost particles keep their last coordinates and
// are flagged (particleStatus 0, with the turn and element of the loss); they never vanish.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/hd.hpp"
#include "base/units.hpp"
#include "core/fields.hpp"

namespace partikel::pic {

enum BeamField : int { f_x, f_xp, f_y, f_yp, f_z, f_delta, f_id, f_status, f_lost_turn, f_lost_element, beam_field_count };

inline constexpr unsigned kBeamColumn = kFieldWrite | kFieldRestore;
// Column names: x' and y' are the slopes dx/ds, dy/ds; particleStatus is openPMD's
// beam-physics record (1 alive, 0 lost).
inline constexpr FieldSpec kBeamFields[beam_field_count] = {
    {"x", ScalarType::f64, 1, units::length, kBeamColumn},
    {"xp", ScalarType::f64, 1, units::none, kBeamColumn},
    {"y", ScalarType::f64, 1, units::length, kBeamColumn},
    {"yp", ScalarType::f64, 1, units::none, kBeamColumn},
    {"z", ScalarType::f64, 1, units::length, kBeamColumn},
    {"delta", ScalarType::f64, 1, units::none, kBeamColumn},
    {"id", ScalarType::u64, 1, units::none, kBeamColumn},
    {"particleStatus", ScalarType::i32, 1, units::none, kBeamColumn},
    {"lost_turn", ScalarType::i32, 1, units::none, kBeamColumn},     // -1 while alive
    {"lost_element", ScalarType::i32, 1, units::none, kBeamColumn},  // lattice index; -1 while alive
};

inline constexpr std::int32_t kAlive = 1;
inline constexpr std::int32_t kLost = 0;

// The particles on the host, one vector per field.
struct ParticleSet {
    std::vector<double> x, xp, y, yp, z, delta;
    std::vector<std::uint64_t> id;
    std::vector<std::int32_t> status, lost_turn, lost_element;

    std::size_t size() const { return x.size(); }
    // n alive particles with ids 0..n-1 at the origin.
    void resize(std::size_t n);
    std::size_t alive() const;
};

// Rows [n r / R, n (r + 1) / R) of `all`: rank r's block of R (pic::io::scatter_start).
ParticleSet rank_block(const ParticleSet& all, int rank, int ranks);

// Raw pointers for kernels.
struct BeamView {
    double *x, *xp, *y, *yp, *z, *delta;
    std::uint64_t* id;
    std::int32_t *status, *lost_turn, *lost_element;
    std::size_t n;
};

class Beam {
public:
    Beam(const Backend& backend, const ParticleSet& particles);
    std::size_t size() const { return n_; }
    BeamView view();
    const FieldArrays& fields() const { return fields_; }
    ParticleSet download() const;
    void upload(const ParticleSet& particles);  // the same count
    const Backend& backend() const { return fields_.backend(); }

private:
    FieldArrays fields_;
    std::size_t n_;
};

}  // namespace partikel::pic
