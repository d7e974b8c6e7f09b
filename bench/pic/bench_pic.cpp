// Beam tracking, with and without space charge, on one backend (docs/PIC.md, "Benchmark"):
//
//   bandwidth     the device-to-device copy rate (bytes read + written): the ceiling that
//                 bounds the linear maps, which read and write each particle once per pass
//   tracking      a 300 m ring of 16 FODO cells with bends (96 elements), 2 GeV protons: the
//                 whole turn fused into one map, and the same ring with a pipe aperture after
//                 every element (192 operations per particle per turn); us per particle per
//                 turn against the bound N x 100 B / bandwidth
//   space charge  the Xsuite peer configuration: that ring, 1M protons at 2 GeV in a Gaussian
//                 bunch, 128 x 128 x 64 grid, 16 kicks per turn sharing one field map; also a
//                 field map per kick, and the sorted deposition; turns/s, us per particle per
//                 turn, time by phase (kicks in passes of their own, each phase timed on the
//                 device), and the bound of the turn from the bytes its passes move
//
//   ranks         (--ranks, or under mpirun): the space-charge turn with the beam split across
//                 the ranks (10M protons, 128 x 128 x 64, 16 kicks, a shared map and a map per
//                 kick): the slowest rank's wall time per turn, and by phase (the charge grid's
//                 all-reduce apart), for strong scaling against the same run on one rank
//
//   bench_pic --device cuda --sizes 1e6,1e7 --turns 20 --json pic.jsonl
//   mpirun -np 4 bench_pic --device cuda --ranks --sizes 1e7 --turns 20 --json dist.jsonl
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "base/log.hpp"
#include "core/buffer.hpp"
#include "core/memory.hpp"
#include "core/timer.hpp"
#include "dist/communicator.hpp"
#include "partikel_config.hpp"
#include "pic/distribution.hpp"
#include "pic/optics.hpp"
#include "pic/tracker.hpp"

using namespace partikel;
using namespace partikel::pic;

namespace {

Lattice peer_ring(bool apertures) {
    RingGenerator g;
    g.cells = 16;
    g.cell_length_m = 300.0 / 16.0;
    g.phase_advance_deg = 81.0;  // Q = 3.6
    g.bends = true;
    if (apertures) g.pipe = {Aperture::Shape::circle, 0.05, 0.05};
    return generate_ring(g);
}

ParticleSet peer_beam(const Lattice& l, std::size_t n, bool bunched) {
    BeamSpec s;
    s.species = proton(2e9);
    s.macroparticles = n;
    s.transverse = Distribution::gaussian;
    s.emittance_x_m = s.emittance_y_m = 1e-6;
    s.momentum_spread = 1e-3;
    if (bunched) {
        s.longitudinal = Longitudinal::gaussian;
        s.bunch_length_m = 20.0;
    }
    return generate_beam(s, compute_optics(l, make_reference(s.species)).start, l.circumference_m());
}

// Bytes a tracking pass moves per alive particle: six doubles read and written, the status read.
constexpr double kPassBytes = 6 * 8 * 2 + 4;

// DRAM bytes of one space-charge turn (the lower bound on its time at the copy rate): the
// passes, the bounds reduction, the deposition (keys, a radix sort of (key, index) by z cell,
// a gather of x, y, z and the status), the padded grid zeroed and written, the FFTs (each
// reads and writes its array once), the spectrum product, and the field kernel.
double space_charge_turn_bytes(double n, const GridShape& s, int kicks, bool per_kick) {
    const double passes = double(kicks) * kPassBytes * n;
    const double padded = double(s.nz) * double(s.padded_plane()) * 4.0;
    const double spectrum = double(s.nz) * 2.0 * s.ny * (s.nx + 1) * 8.0;
    const double nodes = double(s.nz) * s.nx * s.ny;
    const double solve = 28.0 * n                      // bounds: x, y, z, status
                         + (28.0 + 8.0) * n            // keys: read the same, write key and index
                         + 2.0 * 16.0 * n              // one-pass radix sort of 8-byte pairs: read + write
                         + (4.0 + 28.0) * n            // deposit: order, then the particle
                         + 2.0 * padded                // zero, then the deposited planes
                         + 2.0 * (padded + spectrum)   // forward and inverse FFT
                         + 2.0 * spectrum              // the Green's product
                         + padded + 8.0 * nodes;       // E from phi
    return passes + solve * (per_kick ? kicks : 1);
}

// The space-charge turn with the beam across `ranks` (every rank makes the whole beam, the
// same on each, and keeps its block).
void across_ranks(const Backend& b, dist::Communicator ranks, const std::vector<double>& sizes, int turns,
                  std::ofstream& json) {
    const Lattice ring = peer_ring(false);
    if (ranks.root()) std::printf("# %s on %s, commit %s\n", ranks.describe().c_str(), b.describe().c_str(), PARTIKEL_GIT_COMMIT);
    for (double size : sizes) {
        const auto n = std::size_t(size);
        const ParticleSet beam = rank_block(peer_beam(ring, n, true), ranks.rank(), ranks.size());
        for (const MapSharing sharing : {MapSharing::per_turn, MapSharing::per_kick}) {
            TrackerOptions o;
            o.space_charge.kicks_per_turn = 16;
            o.space_charge.nx = o.space_charge.ny = 128;
            o.space_charge.slices = 64;
            o.space_charge.sharing = sharing;
            o.space_charge.deposition = Deposition::privatised;
            o.ranks = ranks;
            Tracker tracker(b, ring, proton(2e9), 1e11, beam, false, o);
            for (int i = 0; i < 3; ++i) tracker.track_turn();
            b.synchronize();
            ranks.barrier();
            Stopwatch clock;
            for (int i = 0; i < turns; ++i) tracker.track_turn();
            b.synchronize();
            const double turn_s = ranks.allreduce(clock.seconds() / turns, dist::ReduceOp::max);
            // By phase, on a second tracker (kicks in passes of their own, each phase timed).
            o.fuse_kicks = false;
            o.profile = true;
            Tracker profiled(b, ring, proton(2e9), 1e11, beam, false, o);
            for (int i = 0; i < turns; ++i) profiled.track_turn();
            double allreduce_s = 0.0, solve_s = 0.0;
            for (const auto& e : profiled.profile().entries()) {
                if (e.name == "space charge: all-reduce") allreduce_s += e.total_seconds / turns;
                if (e.name == "space charge: field solve" || e.name == "space charge: grid") solve_s += e.total_seconds / turns;
            }
            allreduce_s = ranks.allreduce(allreduce_s, dist::ReduceOp::min);  // the transfer, not the wait
            if (!ranks.root()) continue;
            const char* name = sharing == MapSharing::per_turn ? "shared map" : "map per kick";
            std::printf("\nspace charge across %d ranks (%s), %s, %zu particles: %.4f ms/turn, %.1f turns/s; "
                        "per turn: field solve and grid %.4f ms (each rank the whole grid), all-reduce %.4f ms\n%s",
                        ranks.size(), std::string(ranks.transport()).c_str(), name, n, 1e3 * turn_s, 1.0 / turn_s,
                        1e3 * solve_s, 1e3 * allreduce_s, profiled.profile().report().c_str());
            if (json)
                json << "{\"bench\":\"pic_ranks\",\"ranks\":" << ranks.size() << ",\"transport\":"
                     << json_quote(std::string(ranks.transport())) << ",\"variant\":" << json_quote(name)
                     << ",\"particles\":" << n << ",\"grid\":[128,128,64],\"kicks\":16,\"turn_seconds\":" << turn_s
                     << ",\"solve_seconds\":" << solve_s << ",\"allreduce_seconds\":" << allreduce_s
                     << ",\"phases\":" << profiled.profile().report_json() << ",\"device\":" << json_quote(b.describe())
                     << ",\"commit\":\"" << PARTIKEL_GIT_COMMIT << "\"}\n";
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    bench::BenchProgram tool("bench_pic", "Benchmark beam tracking with and without space charge");
    std::vector<double> sizes = {1e6, 1e7};
    int turns = 20;
    tool.app().add_option("--sizes", sizes, "Macroparticle counts")->delimiter(',');
    tool.app().add_option("--turns", turns, "Timed turns (median per turn reported)");
    bool across = false;
    tool.app().add_flag("--ranks", across, "Only the space-charge turn across ranks (implied under mpirun)");
    return tool.run(argc, argv, [&] {
        const dist::Communicator ranks = dist::Communicator::world();
        Backend b = tool.open_backend(ranks.local_rank(), ranks.local_size());
        std::ofstream json;
        if (ranks.root() && !tool.json_path().empty()) json.open(tool.json_path(), std::ios::app);
        if (across || ranks.size() > 1) {
            across_ranks(b, ranks, sizes, turns, json);
            return 0;
        }
        auto emit = [&](const std::string& fields) {
            if (json)
                json << "{\"bench\":\"pic\"," << fields << ",\"device\":" << json_quote(b.describe()) << ",\"commit\":\""
                     << PARTIKEL_GIT_COMMIT << "\"}\n";
        };
        std::printf("# %s, commit %s\n", b.describe().c_str(), PARTIKEL_GIT_COMMIT);

        // The ceiling: device-to-device copies of 1 GB (bytes read + written).
        const std::size_t copy_bytes_n = std::size_t(1) << 30;
        DeviceBuffer<std::byte> from(b, copy_bytes_n), to(b, copy_bytes_n);
        from.fill_zero();
        const double copy_s = median_device_seconds(b, 10, [&] {
            copy_bytes(b, to.data(), from.data(), copy_bytes_n, CopyDirection::device_to_device, true);
        });
        const double bandwidth = 2.0 * double(copy_bytes_n) / copy_s;
        std::printf("copy bandwidth (read + write): %.1f GB/s\n\n", bandwidth / 1e9);
        emit("\"case\":\"bandwidth\",\"bytes_per_s\":" + std::to_string(bandwidth));

        char line[512];
        for (double size : sizes) {
            const auto n = std::size_t(size);
            for (bool apertures : {false, true}) {
                const Lattice l = peer_ring(apertures);
                Tracker tracker(b, l, proton(2e9), 1e11, peer_beam(l, n, false), true);
                for (int i = 0; i < 3; ++i) tracker.track_turn();
                const double turn_s = median_device_seconds(b, turns, [&] { tracker.track_turn(); });
                const double bound_s = double(n) * kPassBytes / bandwidth;
                std::snprintf(line, sizeof line,
                              "tracking %-22s %9zu particles: %9.4f ms/turn, %.5f us/particle/turn, %zu operations, "
                              "bound %.4f ms (x%.2f)\n",
                              apertures ? "(aperture everywhere)" : "(fused)", n, 1e3 * turn_s, 1e6 * turn_s / double(n),
                              tracker.program().ops.size(), 1e3 * bound_s, turn_s / bound_s);
                std::printf("%s", line);
                emit(std::string("\"case\":\"tracking\",\"apertures\":") + (apertures ? "true" : "false") +
                     ",\"particles\":" + std::to_string(n) + ",\"turn_seconds\":" + std::to_string(turn_s) +
                     ",\"us_per_particle_turn\":" + std::to_string(1e6 * turn_s / double(n)) +
                     ",\"operations\":" + std::to_string(tracker.program().ops.size()) +
                     ",\"bound_seconds\":" + std::to_string(bound_s));
            }
        }
        std::printf("\n");

        const Lattice ring = peer_ring(false);
        for (double size : sizes) {
            const auto n = std::size_t(size);
            const ParticleSet beam = peer_beam(ring, n, true);
            struct Variant {
                const char* name;
                MapSharing sharing;
                Deposition deposition;
            };
            for (const Variant& v : {Variant{"shared map, privatised", MapSharing::per_turn, Deposition::privatised},
                                     Variant{"shared map, sorted", MapSharing::per_turn, Deposition::sorted},
                                     Variant{"map per kick, privatised", MapSharing::per_kick, Deposition::privatised}}) {
                TrackerOptions o;
                o.space_charge.kicks_per_turn = 16;
                o.space_charge.nx = o.space_charge.ny = 128;
                o.space_charge.slices = 64;
                o.space_charge.sharing = v.sharing;
                o.space_charge.deposition = v.deposition;
                Tracker tracker(b, ring, proton(2e9), 1e11, beam, false, o);
                for (int i = 0; i < 3; ++i) tracker.track_turn();
                const double turn_s = median_device_seconds(b, turns, [&] { tracker.track_turn(); });
                const double bound_s =
                    space_charge_turn_bytes(double(n), tracker.space_charge()->shape(), 16, v.sharing == MapSharing::per_kick) /
                    bandwidth;
                // the same again with every phase timed, kicks in passes of their own
                o.fuse_kicks = false;
                o.profile = true;
                Tracker profiled(b, ring, proton(2e9), 1e11, beam, false, o);
                for (int i = 0; i < turns; ++i) profiled.track_turn();
                std::snprintf(line, sizeof line,
                              "space charge, %-26s %9zu particles: %9.4f ms/turn, %8.1f turns/s, %.5f us/particle/turn, "
                              "bound %.4f ms (x%.2f), %.0f MB on the device\n",
                              v.name, n, 1e3 * turn_s, 1.0 / turn_s, 1e6 * turn_s / double(n), 1e3 * bound_s,
                              turn_s / bound_s, double(tracker.device_bytes()) / 1e6);
                std::printf("%s%s\n", line, profiled.profile().report().c_str());
                emit(std::string("\"case\":\"space_charge\",\"variant\":") + json_quote(v.name) +
                     ",\"particles\":" + std::to_string(n) + ",\"grid\":[128,128,64],\"kicks\":16,\"turn_seconds\":" +
                     std::to_string(turn_s) + ",\"us_per_particle_turn\":" + std::to_string(1e6 * turn_s / double(n)) +
                     ",\"bound_seconds\":" + std::to_string(bound_s) + ",\"phases\":" + profiled.profile().report_json());
            }
        }
        return 0;
    });
}
