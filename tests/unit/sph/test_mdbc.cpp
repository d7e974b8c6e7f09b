// Modified dynamic boundary conditions (sph/boundary.hpp): the ghost node's first-order
// interpolation reproduces a linear density field, falls back to Shepard when its moment matrix is
// singular and to nothing without fluid; the scenes' wall normals put every ghost node in the fluid;
// normals are estimated when a file has none; --boundary mdbc refuses to run on several ranks' worth
// of bad input; the virtual layers' pass completes the rates pass as one pass would; CPU and CUDA
// agree.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "base/error.hpp"
#include "frnn/cell_grid.hpp"
#include "particle_checks.hpp"
#include "sph/boundary.hpp"
#include "sph/io/frame_io.hpp"
#include "sph/io/scenes.hpp"
#include "sph/fields.hpp"
#include "sph/neighbor_pass.hpp"
#include "sph/rates.hpp"
#include "sph/solver.hpp"
#include "support/backends.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

struct Lattice {
    std::vector<Vec3f> position;
    std::vector<float> density, mass;
    std::vector<Vec3f> velocity;
};

// Fluid on a lattice of spacing dx around the origin within `reach`, kept where `keep` says, with
// density rho(x) = rho0 + grad . x and volumes dx^3 (1 + 0.2 sin): the masses follow, so that
// m_b / rho_b is not the lattice volume (the interpolation must not depend on it).
template <class Keep> Lattice linear_field(float dx, float reach, Vec3f grad, Keep keep) {
    Lattice l;
    const int n = int(std::ceil(reach / dx)) + 1;
    for (int i = -n; i <= n; ++i)
        for (int j = -n; j <= n; ++j)
            for (int k = -n; k <= n; ++k) {
                const Vec3f x{(float(i) + 0.3f) * dx, (float(j) + 0.5f) * dx, (float(k) - 0.2f) * dx};
                if (norm(x) > reach || !keep(x)) continue;
                const float rho = 1000.0f + dot(grad, x);
                const float volume = dx * dx * dx * (1.0f + 0.2f * std::sin(float(i * 7 + j * 3 + k)));
                l.position.push_back(x);
                l.density.push_back(rho);
                l.mass.push_back(rho * volume);
                l.velocity.push_back({0.1f * float(i), -0.05f * float(j), 0.02f});
            }
    return l;
}

GhostNodeValue interpolate(const Lattice& l, Vec3f ghost, float h) {
    const WendlandC2 kernel(h);
    GhostNodeSums s{};
    for (std::size_t b = 0; b < l.position.size(); ++b) {
        const Vec3f r = ghost - l.position[b];
        const float r2 = norm2(r);
        if (r2 > 4.0f * h * h) continue;
        s.add(r, kernel.W(r2), kernel.grad_factor(r2), l.mass[b], l.density[b], l.velocity[b], h);
    }
    return solve_ghost_node(s, h);
}

}  // namespace

TEST_CASE("the ghost node's corrected interpolation reproduces a linear density field") {
    const float dx = 0.01f, h = 1.5f * dx;
    const Vec3f grad{300.0f, -900.0f, 150.0f};  // kg/m^4: 4.5 to 13.5 kg/m^3 across a support
    // Inside the fluid, and at a wall: the ghost node dx/2 above a floor, fluid only above it (the
    // one-sided stencil mDBC meets), extrapolated to the boundary particle dx/2 below the floor.
    for (const bool wall : {false, true}) {
        CAPTURE(wall);
        const Vec3f ghost{0.0f, wall ? 0.5f * dx : 0.0f, 0.0f};
        const Lattice l = linear_field(dx, 3.0f * h, grad, [&](Vec3f x) { return !wall || x.y >= 0.5f * dx - 1e-6f; });
        const GhostNodeValue g = interpolate(l, ghost, h);
        REQUIRE(g.order == GhostNodeValue::first);
        const float exact = 1000.0f + dot(grad, ghost);
        CHECK(std::fabs(g.density - exact) < 2e-3f);
        for (int k = 0; k < 3; ++k) CHECK(std::fabs(g.gradient[k] - grad[k]) < 1e-3f * norm(grad));
        // The velocity, linear in the lattice indices, at the ghost node (no-slip mirrors it).
        const Vec3f v_exact{0.1f * (ghost.x / dx - 0.3f), -0.05f * (ghost.y / dx - 0.5f), 0.02f};
        for (int k = 0; k < 3; ++k) CHECK(std::fabs(g.velocity[k] - v_exact[k]) < 1e-4f);
        // Its gradient, for the virtual layers' velocities (1/s).
        const Mat3f G = g.velocity_gradient;
        const Mat3f G_exact{{0.1f / dx, 0, 0}, {0, -0.05f / dx, 0}, {0, 0, 0}};
        for (int k = 0; k < 3; ++k) {
            CHECK(std::fabs(G.x[k] - G_exact.x[k]) < 1e-3f * 0.1f / dx);
            CHECK(std::fabs(G.y[k] - G_exact.y[k]) < 1e-3f * 0.1f / dx);
            CHECK(std::fabs(G.z[k] - G_exact.z[k]) < 1e-3f * 0.1f / dx);
        }
        // The boundary particle at x_b = x_g - 2 d n takes rho_g + (x_b - x_g) . grad rho_g.
        const Vec3f normal{0.0f, 0.5f * dx, 0.0f};
        const float boundary = g.density - 2.0f * dot(normal, g.gradient);
        CHECK(std::fabs(boundary - (1000.0f + dot(grad, ghost - 2.0f * normal))) < 2e-3f);
        // The uncorrected (Shepard) value misses by the gradient times the stencil's offset.
        GhostNodeSums s{};
        const WendlandC2 kernel(h);
        for (std::size_t b = 0; b < l.position.size(); ++b) {
            const Vec3f r = ghost - l.position[b];
            if (norm2(r) <= 4.0f * h * h)
                s.add(r, kernel.W(norm2(r)), kernel.grad_factor(norm2(r)), l.mass[b], l.density[b], l.velocity[b], h);
        }
        const float shepard = s.rhs[0] / s.A[0][0];
        if (wall) CHECK(std::fabs(shepard - exact) > 0.5f);  // the one-sided stencil biases it by ~1 kg/m^3
    }
}

TEST_CASE("an ill-conditioned ghost node falls back to Shepard; one without fluid to nothing") {
    const float dx = 0.01f, h = 1.5f * dx;
    // Three fluid particles on a line through the ghost node: no gradient across it (det = 0).
    Lattice line;
    for (int i = -1; i <= 1; ++i) {
        line.position.push_back({float(i) * dx, 0.0f, 0.0f});
        line.density.push_back(1000.0f + 10.0f * float(i + 1));
        line.mass.push_back(line.density.back() * dx * dx * dx);
        line.velocity.push_back({1.0f, 0.0f, 0.0f});
    }
    const GhostNodeValue g = interpolate(line, {0.0f, 0.0f, 0.0f}, h);
    CHECK(g.order == GhostNodeValue::shepard);
    // sum m W / sum V W with equal volumes: the W-weighted mean of the densities.
    const WendlandC2 kernel(h);
    const float w0 = kernel.W(0.0f), w1 = kernel.W(dx * dx);
    CHECK(g.density == doctest::Approx((w1 * 1000.0f + w0 * 1010.0f + w1 * 1020.0f) / (w0 + 2.0f * w1)).epsilon(1e-6));
    CHECK(g.velocity.x == doctest::Approx(1.0f));
    const GhostNodeValue none = interpolate(line, {1.0f, 0.0f, 0.0f}, h);
    CHECK(none.order == GhostNodeValue::none);
}

TEST_CASE("the scenes' wall normals mirror every boundary particle into the fluid") {
    SceneOptions o;
    o.dx_m = 0.02f;
    for (const int layers : {1, 3}) {
        CAPTURE(layers);
        o.boundary_layers = layers;
        const Scene s = make_scene("dam-break-obstacle", o);
        const ParticleSet& set = s.particles;
        REQUIRE(set.boundary_normal.size() == set.size());
        const Vec3f tank{1.6f, 0.4f, 0.67f}, column_lo{0.9f, 0.0f, 0.24f}, column_hi{1.02f, 0.45f, 0.36f};
        const float dx = o.dx_m;
        int faces = 0;
        for (std::size_t i = 0; i < set.size(); ++i) {
            const Vec3f n = set.boundary_normal[i];
            if (set.kind[i] == ParticleKind::fluid) {
                CHECK(norm(n) == 0.0f);
                continue;
            }
            const Vec3f ghost = set.position[i] + 2.0f * n;
            // Within the tank (whose far faces the lattice places up to dx/2 out: 0.67 m is 33.5 dx)
            // and outside the column.
            const float m = 0.5f * dx + 1e-5f;
            const bool in_tank = ghost.x > 0.0f && ghost.z > 0.0f && ghost.y > 0.0f && ghost.x < tank.x + m && ghost.z < tank.z + m;
            const bool in_column = ghost.x > column_lo.x && ghost.x < column_hi.x && ghost.z > column_lo.z &&
                                   ghost.z < column_hi.z && ghost.y < column_hi.y - m;
            CHECK(in_tank);
            // The floor under the column is dry: its ghost nodes lie in the column.
            const Vec3f x = set.position[i];
            const bool under_column = x.y < 0.0f && x.x > column_lo.x && x.x < column_hi.x && x.z > column_lo.z &&
                                      x.z < column_hi.z;
            CHECK(in_column == under_column);
            // On a face (one component) the distance to the surface is half a spacing per layer.
            int components = 0;
            for (int k = 0; k < 3; ++k) components += n[k] != 0.0f;
            if (components == 1) {
                ++faces;
                const float layer = norm(n) / dx - 0.5f;
                CHECK(std::fabs(layer - std::round(layer)) < 1e-3f);
                CHECK(layer < float(layers));
            }
        }
        CHECK(faces > 0);
    }
}

TEST_CASE("frames carry the boundary normals; the solver estimates them when a file has none") {
    SceneOptions o;
    o.width_m = 0.05f;
    o.dx_m = 0.005f;
    o.periodic = true;
    for (const int layers : {1, 3}) {
        CAPTURE(layers);
        o.boundary_layers = layers;
        Scene s = make_scene("still-tank", o);
        s.params.boundary = BoundaryScheme::mdbc;
        // Through a frame and back: the normals of the boundary group return in their order.
        const SimulationFrame back = read_frame(make_frame(s.particles, s.params, 0, 0.0, 0.0));
        REQUIRE(back.particles.boundary_normal.size() == s.particles.size());
        std::map<std::uint64_t, Vec3f> given;
        for (std::size_t i = 0; i < s.particles.size(); ++i) given[s.particles.id[i]] = s.particles.boundary_normal[i];
        for (std::size_t i = 0; i < back.particles.size(); ++i)
            CHECK(norm(back.particles.boundary_normal[i] - given.at(back.particles.id[i])) == 0.0f);
        ParticleSet without = s.particles;
        without.boundary_normal.clear();
        Solver solver(Backend::cpu(1), s.params, without);
        const ParticleSet out = solver.download();
        REQUIRE(out.boundary_normal.size() == out.size());
        // The top layer of the floor (the one the fluid meets) points straight up at dx/2.
        int top = 0;
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (out.kind[i] == ParticleKind::fluid || out.position[i].y < -o.dx_m) continue;
            ++top;
            CHECK(out.boundary_normal[i].y == doctest::Approx(0.5f * o.dx_m).epsilon(1e-4));
            CHECK(std::fabs(out.boundary_normal[i].x) < 1e-4f * o.dx_m);
            CHECK(std::fabs(out.boundary_normal[i].z) < 1e-4f * o.dx_m);
        }
        CHECK(top > 0);
    }
}

TEST_CASE("bad boundary parameters are usage errors") {
    CHECK_THROWS_AS(parse_boundary("mdcb", "--boundary"), UsageError);
    CHECK_THROWS_AS(parse_boundary_velocity("slip", "--boundary-velocity"), UsageError);
    CHECK(parse_boundary_velocity("no-slip") == BoundaryVelocity::no_slip);
    SphParams snow;
    snow.model = Model::newtonian_muller;
    snow.boundary = BoundaryScheme::mdbc;
    CHECK_THROWS_AS(validate(snow), UsageError);
    SceneOptions still;
    still.dx_m = 0.005f;
    still.width_m = 0.05f;
    still.periodic = true;
    Scene s = make_scene("still-tank", still);
    s.particles.boundary_normal.pop_back();
    CHECK_THROWS_AS(Solver(Backend::cpu(1), s.params, s.particles), UsageError);
}

namespace {

// A dam break with walls of `layers` layers under mdbc and the given velocity variant: one layer
// has two virtual layers behind it for h = 1.5 dx (blocks at the edges and corners), two layers
// one; the laminar viscosity takes the rates pass's other instantiation (ViscousExtras).
Scene mdbc_dam_break(int layers, BoundaryVelocity velocity, Viscosity viscosity) {
    SceneOptions o;
    o.width_m = 0.04f;
    o.dx_m = 0.004f;
    o.boundary_layers = layers;
    Scene s = make_scene("dam-break", o);
    s.params.boundary = BoundaryScheme::mdbc;
    s.params.boundary_velocity = velocity;
    s.params.viscosity = viscosity;
    s.params.laminar_nu = 1e-4f;
    return s;
}

}  // namespace

TEST_CASE("CPU and CUDA agree after 100 steps of an mdbc dam break" * doctest::test_suite("gpu")) {
    for (const int layers : {1, 2})
        for (const BoundaryVelocity velocity :
             {BoundaryVelocity::wall, BoundaryVelocity::no_slip, BoundaryVelocity::free_slip})
            for (const Viscosity viscosity : {Viscosity::artificial, Viscosity::laminar}) {
                CAPTURE(layers);
                CAPTURE(to_string(velocity));
                CAPTURE(to_string(viscosity));
                const Scene s = mdbc_dam_break(layers, velocity, viscosity);
                check_cuda_matches_cpu(s.params, s.particles);  // the DBC comparison's tolerances
            }
}

// The rates pass skips the boundary particles with a normal unless the wall impulse is tracked
// (solver_impl.hpp, rates_row_subset): their density is mDBC's, their acceleration never moves
// them, and their time-step limit is never the smallest. So the fluid and the time step must be
// the same to the bit as with every row (without the Shepard filter, which reads the boundary
// particles' densities: those lose the continuity rate nothing else used).
TEST_CASE("the rates pass without mDBC's rows gives the fluid and the time step of every row's") {
    for (const BoundaryVelocity velocity : {BoundaryVelocity::wall, BoundaryVelocity::no_slip}) {
        CAPTURE(to_string(velocity));
        Scene s = mdbc_dam_break(1, velocity, Viscosity::artificial);
        s.params.shepard_every = 0;
        Solver every_row(Backend::cpu(0), s.params, s.particles, 0, 0.0, {.track_wall_impulse = true});
        Solver skipping(Backend::cpu(0), s.params, s.particles);
        for (int step = 0; step < 40; ++step) {
            every_row.step();
            skipping.step();
            REQUIRE(skipping.last_dt() == every_row.last_dt());
        }
        const ParticleSet a = every_row.download(), b = skipping.download();
        REQUIRE(a.size() == b.size());
        std::map<std::uint64_t, std::size_t> row_of;
        for (std::size_t i = 0; i < b.size(); ++i) row_of[b.id[i]] = i;
        std::size_t fluid = 0, differ = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::size_t j = row_of.at(a.id[i]);
            if (a.kind[i] != ParticleKind::fluid) {
                CHECK(b.density[j] >= s.params.rho0);
                continue;
            }
            ++fluid;
            const bool same = a.position[i].x == b.position[j].x && a.position[i].y == b.position[j].y &&
                              a.position[i].z == b.position[j].z && a.velocity[i].x == b.velocity[j].x &&
                              a.velocity[i].y == b.velocity[j].y && a.velocity[i].z == b.velocity[j].z &&
                              a.density[i] == b.density[j];
            if (!same) ++differ;
        }
        CHECK(fluid > 0);
        CHECK(differ == 0);
    }
}

namespace {

// Fluid in a corner of one-layer walls (a floor, a side wall and the edge where they meet: virtual
// blocks of 2 and 8 points), jittered, with random densities (some below rho0: the clamp of the
// fluid's pressure term), velocities, wall gradients and SPS stresses, in a grid's cell order.
// The pressures are those of a sound speed ten times c0, the time step's, so that the limit by
// the acceleration (eq. 3.34) decides many rows' time-step limits.
struct WallCorner {
    static constexpr float dx = 0.01f, c0 = 5.0f, rho0 = 1000.0f;
    const TaitEos eos = TaitEos::from_sound_speed(rho0, 10.0f * c0, 7.0f);
    const float h = std::sqrt(3.0f) * dx, support = 2.0f * h;
    std::size_t n = 0;
    frnn::CellGrid grid;
    std::vector<Vec4f> position_mass, velocity_density, layers;
    std::vector<float> pressure_term;
    std::vector<Vec3f> density_gradient, wall_normal;
    std::vector<Mat3f> velocity_gradient;
    std::vector<SymTensor> sps_stress;
    explicit WallCorner(const Backend& cpu) : grid(cpu, spec(), 2048) {
        std::vector<Vec3f> x, normal;
        for (int i = -1; i < 8; ++i)
            for (int j = -1; j < 6; ++j)
                for (int k = 0; k < 10; ++k) {
                    if (i >= 0 && j >= 0) {  // fluid
                        x.push_back({(float(i) + 0.5f) * dx, (float(j) + 0.5f) * dx, (float(k) + 0.5f) * dx});
                        normal.push_back({0, 0, 0});
                    } else {  // the floor (j = -1), the side wall (i = -1) and their edge
                        x.push_back({(float(i) + 0.5f) * dx, (float(j) + 0.5f) * dx, (float(k) + 0.5f) * dx});
                        normal.push_back({i < 0 ? 0.5f * dx : 0.0f, j < 0 ? 0.5f * dx : 0.0f, 0.0f});
                    }
                }
        n = x.size();
        std::mt19937 rng(11);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        for (std::size_t a = 0; a < n; ++a)
            if (norm(normal[a]) == 0.0f) x[a] += (0.1f * dx) * Vec3f{u(rng), u(rng), u(rng)};
        // Some of the first fluid layer within the penetration barrier's margin (dx/4) of the floor.
        for (std::size_t a = 0; a < n; a += 7)
            if (norm(normal[a]) == 0.0f && x[a].y < dx) x[a].y = 0.15f * dx;
        grid.build(x.data(), n);
        const std::uint32_t* original = grid.sorted_to_original();
        const int count = virtual_layer_limit(support, dx);
        for (std::size_t a = 0; a < n; ++a) {
            const std::uint32_t o = original[a];
            const bool wall = norm(normal[o]) > 0.0f;
            const float rho = wall ? rho0 + 5.0f * (u(rng) + 1.0f) : rho0 + 8.0f * u(rng);
            const float mass = rho0 * dx * dx * dx;
            position_mass.push_back({x[o].x, x[o].y, x[o].z, wall ? -mass : mass});
            const Vec3f v = wall ? Vec3f{0.05f * u(rng), 0, 0} : 0.5f * Vec3f{u(rng), u(rng), u(rng)};
            velocity_density.push_back({v.x, v.y, v.z, rho});
            pressure_term.push_back(eos.pressure(rho) / (rho * rho));
            wall_normal.push_back(normal[o]);
            const Vec3f steps = wall ? virtual_layer_steps(normal[o], dx) : Vec3f{0, 0, 0};
            layers.push_back(wall ? Vec4f{steps.x, steps.y, steps.z, float(count)} : Vec4f{0, 0, 0, 0});
            density_gradient.push_back(wall ? 1e2f * Vec3f{u(rng), u(rng), u(rng)} : Vec3f{0, 0, 0});
            velocity_gradient.push_back(wall ? Mat3f{20.0f * Vec3f{u(rng), u(rng), u(rng)},
                                                     20.0f * Vec3f{u(rng), u(rng), u(rng)},
                                                     20.0f * Vec3f{u(rng), u(rng), u(rng)}}
                                             : Mat3f{});
            sps_stress.push_back({1e-3f * u(rng), 1e-3f * u(rng), 1e-3f * u(rng), 1e-3f * u(rng), 1e-3f * u(rng),
                                  1e-3f * u(rng)});
        }
    }
    float barrier_stiffness() const { return rho0 * 10.0f * c0 * c0 / dx; }  // Pa/m: rho0 c^2 / (10 dx), the EOS's c = 10 c0
    frnn::GridSpec spec() const {
        frnn::GridSpec g;
        g.domain_min = {-0.03f, -0.03f, -0.01f};
        g.domain_max = {0.11f, 0.09f, 0.11f};
        g.radius = 2.0f * std::sqrt(3.0f) * dx;
        return g;
    }
};

// The rates pass over WallCorner's particles with the given terms, into `out`.
struct RatesOutputs {
    std::vector<Vec3f> acceleration, xsph;
    std::vector<float> density_rate, dt_limit;
    explicit RatesOutputs(std::size_t n) : acceleration(n), xsph(n), density_rate(n), dt_limit(n, 1.0f) {}
};
template <class RatesPass>
RatesPass rates_over(const WallCorner& c, RatesOutputs& out, decltype(RatesPass::diffusion) diffusion,
                     decltype(RatesPass::extras) extras, const VirtualLayers& walls, Vec3f gravity) {
    return RatesPass{
        .position_mass = c.position_mass.data(),
        .velocity_density = c.velocity_density.data(),
        .pressure_term = c.pressure_term.data(),
        .acceleration = out.acceleration.data(),
        .density_rate = out.density_rate.data(),
        .xsph_velocity = out.xsph.data(),
        .dt_limit = out.dt_limit.data(),
        .kernel = CubicSpline(c.h),
        .viscosity = ArtificialViscosity::make(0.1f, c.c0),
        .diffusion = diffusion,
        .extras = extras,
        .walls = walls,
        .h = c.h,
        .c0 = c.c0,
        .eta2 = 0.01f * c.h * c.h,
        .gravity = gravity,
        .volumes = {},
    };
}

// The GPU's pair loop on the CPU: an interaction without its batched halves (BatchedPairs), so that
// its pair() runs pair by pair.
template <class Interaction> struct PairByPair {
    static constexpr int kMinBlocksPerSM = 1;
    Interaction interaction;
    using Particle = typename Interaction::Particle;
    using Sums = typename Interaction::Sums;
    Particle load(std::size_t a) const { return interaction.load(a); }
    bool interacts(const Particle& a) const { return interaction.interacts(a); }
    void pair(const Particle& a, std::uint32_t b, Vec3f r_ab, float r2, const Vec4f& record_b, Sums& s) const {
        interaction.pair(a, b, r_ab, r2, record_b, s);
    }
    void finish(std::size_t a, const Particle& self, const Sums& s) const { interaction.finish(a, self, s); }
};

}  // namespace

// The rates pass under mdbc sums the pairs and flags the rows with a fluid-boundary pair; the
// virtual layers' pass adds their virtual points' terms to those rows. Together they must give what
// one pass over every term gives (here each row's pairs summed in a plain loop over all particles:
// the rates pass, then the virtual points of the same pair, into one sum): the sums within float
// reordering, the time-step limit of eq. 3.33 over both passes' |mu| and eq. 3.34 on the whole
// acceleration. Every row runs the rates pass, as with the wall impulse tracked (the boundary
// particles' rows too). The second pass reads each row's wall pairs from the rates pass's list
// (the GPU's) or searches them (the CPU's, and rows with more pairs than the list holds).
TEST_CASE("the virtual layers' pass completes the rates pass: one pass's sums, flags and time-step limits") {
    const Backend cpu = Backend::cpu(1);
    WallCorner c(cpu);
    const std::size_t n = c.n;
    const frnn::CellGridView view = c.grid.view();
    using RatesPass = Rates<CubicSpline, DensityDiffusionTerm, ViscousExtras, VirtualLayers>;
    // Strong enough that the walls' push lowers many fluid rows' acceleration: eq. 3.34 on the
    // rates pass's sum without the virtual points would give those rows too small a limit.
    const Vec3f gravity{0.0f, -5e3f, 0.0f};
    // capacity: the wall pairs a row's list holds. 0: the CPU's batched pair loop, listing none,
    // the second pass searching every row; else the GPU's pair by pair, which lists them, and the
    // second pass reading the lists (searching the rows that have more pairs than that).
    for (const std::uint32_t capacity : {0u, 12u, 256u})
    for (const bool velocity_gradient : {false, true}) {
        CAPTURE(capacity);
        CAPTURE(velocity_gradient);
        RatesOutputs out(n);
        const std::vector<Vec3f>& acceleration = out.acceleration;
        const std::vector<Vec3f>& xsph = out.xsph;
        const std::vector<float>& density_rate = out.density_rate;
        const std::vector<float>& dt_limit = out.dt_limit;
        std::vector<std::uint32_t> flags(n + 1, 0u), pair_count(n, 0u), pair_index(std::size_t{capacity} * n + 1);
        const RatesPass rates = rates_over<RatesPass>(
            c, out, DensityDiffusionTerm{2.0f * 0.1f * c.h * c.c0, (-c.rho0 / (c.c0 * c.c0)) * gravity},
            ViscousExtras{{1e-4f}, {0.5f}, {c.sps_stress.data()}},
            VirtualLayers{c.layers.data(), c.density_gradient.data(),
                          velocity_gradient ? c.velocity_gradient.data() : nullptr, flags.data(), pair_count.data(),
                          pair_index.data(), capacity, n, c.eos, c.support * c.support, c.wall_normal.data(),
                          0.25f * c.dx, c.barrier_stiffness()},
            gravity);
        if (capacity == 0) {
            const NeighborPass<RatesPass> first{view, c.position_mass.data(), rates};
            for (std::size_t a = 0; a < n; ++a) first(a);
        } else {
            const NeighborPass<PairByPair<RatesPass>> first{view, c.position_mass.data(), {rates}};
            for (std::size_t a = 0; a < n; ++a) first(a);
        }
        std::size_t listed = 0, searched = 0;
        for (std::size_t a = 0; a < n; ++a)
            if (flags[a] != 0u) (pair_count[a] <= capacity ? listed : searched) += 1;
        if (capacity == 12u) CHECK((listed > 0 && searched > 0));
        if (capacity == 256u) CHECK(searched == 0);
        const std::vector<Vec3f> first_acceleration = acceleration;
        const VirtualLayerRates<RatesPass> virtual_layers{rates};
        const NeighborLists lists{pair_count.data(), pair_index.data(), capacity, n, c.support * c.support};
        const NeighborPass<VirtualLayerRates<RatesPass>> second{view, c.position_mass.data(), virtual_layers, lists,
                                                                ListUse::read};
        for (std::size_t a = 0; a < n; ++a)
            if (flags[a] != 0u) second(a);

        // One pass over every term, each row's pairs in index order.
        float scale_acc = 0.0f, scale_drho = 0.0f, scale_xsph = 0.0f;
        std::vector<RatesPass::Sums> one(n);
        std::vector<bool> wall_pair(n, false);
        for (std::size_t a = 0; a < n; ++a) {
            const RatesPass::Particle self = rates.load(a);
            RatesPass::Sums s{};
            for (std::uint32_t b = 0; b < n; ++b) {
                const Vec3f r_ab = self.r - c.position_mass[b].xyz();
                const float r2 = norm2(r_ab);
                if (!(r2 < c.support * c.support)) continue;
                rates.pair(self, b, r_ab, r2, c.position_mass[b], s);
                virtual_layers.pair(self, b, r_ab, r2, c.position_mass[b], s);
                if (b != a && sign_bit(c.position_mass[b].w) != sign_bit(self.w)) wall_pair[a] = true;
            }
            if (self.fluid()) s.acc += gravity;
            one[a] = s;
            scale_acc = std::max(scale_acc, norm(s.acc));
            scale_drho = std::max(scale_drho, std::fabs(s.drho));
            scale_xsph = std::max(scale_xsph, norm(s.xsph));
        }
        // Float reordering: the CPU's batched lanes and the grid's order against the index order.
        const float tolerance = 1e-5f;
        std::size_t flagged = 0, fluid_flagged = 0, boundary_flagged = 0, acceleration_bound = 0;
        float first_pass_miss = 0.0f;
        for (std::size_t a = 0; a < n; ++a) {
            CAPTURE(a);
            const bool fluid = c.position_mass[a].w > 0.0f;
            const RatesPass::Sums& s = one[a];
            // Flagged: a fluid row with a boundary neighbour, a boundary row with a fluid one (all
            // of this scene's boundary particles have virtual layers).
            CHECK((flags[a] != 0u) == wall_pair[a]);
            flagged += flags[a] != 0u;
            (fluid ? fluid_flagged : boundary_flagged) += flags[a] != 0u;
            CHECK(norm(acceleration[a] - s.acc) <= tolerance * scale_acc);
            CHECK(std::fabs(density_rate[a] - s.drho) <= tolerance * scale_drho);
            const Vec3f xsph_one = fluid ? 0.5f * s.xsph : Vec3f{0, 0, 0};
            CHECK(norm(xsph[a] - xsph_one) <= tolerance * 0.5f * scale_xsph);
            float limit = c.h / (c.c0 + s.max_mu);
            if (fluid && norm(s.acc) > 0.0f && std::sqrt(c.h / norm(s.acc)) < limit) {
                limit = std::sqrt(c.h / norm(s.acc));
                acceleration_bound += flags[a] != 0u;
            }
            CHECK(dt_limit[a] == doctest::Approx(limit).epsilon(1e-5));
            if (flags[a] != 0u) first_pass_miss = std::max(first_pass_miss, norm(first_acceleration[a] - s.acc));
        }
        CHECK(fluid_flagged > 0);
        CHECK(boundary_flagged > 0);
        CHECK(acceleration_bound > 0);
        CHECK(flagged < n);
        // The virtual points matter: the rates pass alone misses them by far more than the tolerance.
        CHECK(first_pass_miss > 100.0f * tolerance * scale_acc);
    }
}

// The penetration barrier (docs/SPH.md): a fluid particle nearer a wall's surface than dx/4 sees
// that wall particle's pressure raised by rho0 c^2 / dx times the shortfall, in the virtual layers'
// pass. Its pressure is linear in the height and 0 from the margin up; through the pass it pushes
// the fluid out of the wall (along the floor's normal), the walls take the reaction (the
// barrier's changes of m a sum to zero), and rows not within the margin of a wall do not change.
TEST_CASE("the penetration barrier: linear below dx/4 above a wall's surface, pushing out, its reaction on the wall") {
    const float dx = 0.01f, margin = 0.25f * dx, k = 1e8f;
    const Vec3f floor_normal{0.0f, 0.5f * dx, 0.0f};  // a floor particle, its surface dx/2 above it
    auto at = [&](float height) { return penetration_pressure({0.3f * dx, 0.5f * dx + height, 0.0f}, floor_normal, margin, k); };
    CHECK(at(margin) == 0.0f);
    CHECK(at(0.3f * dx) == 0.0f);
    CHECK(at(0.15f * dx) == doctest::Approx(k * 0.1f * dx));
    CHECK(at(0.0f) == doctest::Approx(k * margin));
    CHECK(at(-0.2f * dx) == doctest::Approx(k * 0.45f * dx));
    CHECK(penetration_pressure({0.0f, 0.1f * dx, 0.0f}, {0, 0, 0}, margin, k) == 0.0f);  // no normal, no barrier

    const Backend cpu = Backend::cpu(1);
    WallCorner c(cpu);
    const std::size_t n = c.n;
    using RatesPass = Rates<CubicSpline, NoDensityDiffusion, NoViscousExtras, VirtualLayers>;
    auto accelerations = [&](float stiffness) {
        RatesOutputs out(n);
        const RatesPass rates = rates_over<RatesPass>(
            c, out, {}, {},
            VirtualLayers{c.layers.data(), c.density_gradient.data(), nullptr, nullptr, nullptr, nullptr, 0, n, c.eos,
                          c.support * c.support, c.wall_normal.data(), 0.25f * c.dx, stiffness},
            {});
        const NeighborPass<VirtualLayerRates<RatesPass>> pass{c.grid.view(), c.position_mass.data(), {rates}};
        for (std::size_t a = 0; a < n; ++a) pass(a);
        return out.acceleration;
    };
    const std::vector<Vec3f> with = accelerations(c.barrier_stiffness()), without = accelerations(0.0f);
    Vec3f momentum{0, 0, 0}, scale{0, 0, 0};
    std::size_t pushed = 0, within = 0, unchanged = 0, away = 0;
    for (std::size_t a = 0; a < n; ++a) {
        const Vec4f p = c.position_mass[a];
        const Vec3f change = with[a] - without[a];
        momentum += std::fabs(p.w) * change;
        scale += std::fabs(p.w) * Vec3f{std::fabs(change.x), std::fabs(change.y), std::fabs(change.z)};
        if (!(p.w > 0.0f)) continue;
        const bool near_floor = p.y < 0.25f * c.dx;  // the floor's surface is y = 0
        within += near_floor;
        if (near_floor) pushed += change.y > 0.0f;
        if (p.y > 0.25f * c.dx + 1e-6f && p.x > 0.25f * c.dx + 1e-6f) {
            away += 1;
            unchanged += change.x == 0.0f && change.y == 0.0f && change.z == 0.0f;
        }
    }
    CHECK(within > 5);
    CHECK(pushed == within);
    CHECK(away > 400);
    CHECK(unchanged == away);
    CHECK(norm(momentum) <= 1e-5f * norm(scale));
}
