// Host-side particle sets: what scenes produce, what frames hold, what the solver uploads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/vec.hpp"

namespace partikel::sph {

// Kind of a particle. Boundary particles (DualSPHysics's dynamic boundary conditions) take part
// in density and pressure but do not move, or move with SphParams::boundary_motion.
enum class ParticleKind : std::uint8_t { fluid = 0, boundary = 1, moving_boundary = 2 };

struct ParticleSet {
    std::vector<Vec3f> position;  // m
    std::vector<Vec3f> velocity;  // m/s
    std::vector<float> density;   // kg/m^3
    std::vector<float> mass;      // kg
    std::vector<std::uint64_t> id;
    std::vector<ParticleKind> kind;
    // Boundary particles' wall normals for mdbc (sph/boundary.hpp): the vector d n from the
    // particle to the wall surface (m; n the unit normal into the fluid, d the distance), zero
    // for fluid particles and boundary particles without one. Empty: none given (the solver
    // estimates them, SphParams::boundary mdbc).
    std::vector<Vec3f> boundary_normal;

    std::size_t size() const { return position.size(); }
    std::size_t count(ParticleKind k) const {
        std::size_t c = 0;
        for (auto v : kind) c += v == k;
        return c;
    }
    void add(Vec3f p, Vec3f v, float rho, float m, ParticleKind k) {
        position.push_back(p);
        velocity.push_back(v);
        density.push_back(rho);
        mass.push_back(m);
        id.push_back(position.size() - 1);
        kind.push_back(k);
    }
};

}  // namespace partikel::sph
