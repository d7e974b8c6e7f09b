#include "pic_track.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "base/error.hpp"
#include "base/io.hpp"
#include "base/system.hpp"
#include "common/number_checks.hpp"
#include "common/run_flags.hpp"
#include "common/tool.hpp"
#include "formats/reader.hpp"
#include "pic/distribution.hpp"
#include "pic/io/frame_io.hpp"
#include "pic/io/simulation.hpp"
#include "pic/lattice.hpp"
#include "pic/optics.hpp"
#include "pic/program.hpp"
#include "run/run_loop.hpp"
#include "run/start_frame.hpp"

namespace partikel::tools {

namespace {

struct LatticeFlags {
    std::string file;
    std::string ring = "fodo";
    pic::RingGenerator generator;
    double pipe_radius_m = 0.0;
};

struct BeamFlags {
    std::string distribution;  // set: generate the beam
    std::size_t particles = 100000;
    std::optional<int> Z, A;
    std::optional<double> mass_kg, energy_eV, intensity;
    std::vector<double> emittance_mm_mrad = {12.5};
    std::vector<double> mismatch = {1.0};
    std::vector<double> offset_m = {0.0, 0.0};
    double momentum_spread = 1e-2;
    std::optional<double> bunch_length_m;
    std::string longitudinal = "elliptic";
    bool any_species() const { return Z || A || mass_kg || energy_eV || intensity; }
};

struct SpaceChargeFlags {
    std::vector<int> grid = {128, 128};
    std::string maps = "per-turn";
    std::string deposition = "auto";
    bool conducting_pipe = false;
};

double pick(const std::vector<double>& v, std::size_t i) { return v.size() > i ? v[i] : v.front(); }

pic::Lattice make_lattice(const LatticeFlags& f) {
    pic::Lattice l;
    if (!f.file.empty()) {
        l = pic::read_lattice(f.file);
    } else {
        pic::RingGenerator g = f.generator;
        g.cell = f.ring == "fodo" ? pic::RingGenerator::Cell::fodo : pic::RingGenerator::Cell::constant_focusing;
        l = pic::generate_ring(g);
    }
    if (f.pipe_radius_m > 0.0) l.pipe = {pic::Aperture::Shape::circle, f.pipe_radius_m, f.pipe_radius_m};
    return l;
}

// The species: flags over the lattice file's beam; the energy must come from one of them.
pic::io::BeamParameters beam_parameters(const BeamFlags& f, const pic::Lattice& l) {
    pic::io::BeamParameters b;
    if (l.species) b.species = *l.species;
    if (f.Z) b.species.Z = *f.Z;
    if (f.A) b.species.A = *f.A;
    if (f.mass_kg) b.species.mass_kg = *f.mass_kg;
    if (f.energy_eV) b.species.kinetic_energy_per_nucleon_eV = *f.energy_eV;
    else if (!l.species) throw UsageError("give the kinetic energy per nucleon (--energy) or a beam in the lattice file");
    if (f.intensity) b.intensity = *f.intensity;
    else if (l.intensity) b.intensity = *l.intensity;
    else if (!f.distribution.empty()) throw UsageError("give the number of ions (--intensity) or npart in the lattice file");
    b.coasting = !f.bunch_length_m;
    return b;
}

}  // namespace

int pic_track(std::span<const std::string> args) {
    Tool tool("pic-track",
              "Track an ion beam through a ring, turn by turn: first-order maps, thin multipole and rf kicks,\n"
              "apertures, 2.5D space charge (particle-in-cell, FFT Poisson) and longitudinal space charge;\n"
              "frames of the beam and a table of its moments per turn (docs/PIC.md). A step is a turn.\n"
              "Under mpirun each rank (a GPU, or a share of the cores) tracks a block of the beam; the charge\n"
              "grid is summed across ranks before every field solve.\n"
              "The beam is generated (--distribution) or read from a frame (-i, e.g. pic-track's output).");
    tool.add_common(kInput | kOutput | kDevice | kThreads | kSeed | kProfile);
    CLI::App& app = tool.app();
    RunFlags run_flags;
    add_run_flags(tool, run_flags, "s");

    LatticeFlags lf;
    bool print_lattice = false;
    tool.add_input("--lattice", lf.file, "Lattice file: Partikel text format, or MAD-X (.madx, .seq, .mad)")->group("Lattice");
    app.add_option("--ring", lf.ring, "Generated ring without --lattice: fodo or constant-focusing")
        ->check(one_of({"fodo", "constant-focusing"}))
        ->capture_default_str()
        ->group("Lattice");
    app.add_option("--cells", lf.generator.cells, "Generated ring: cells")
        ->check(number_in(1, double(pic::kMaxLatticeElements / 6)))
        ->capture_default_str()
        ->group("Lattice");
    app.add_option("--phase-advance", lf.generator.phase_advance_deg, "Generated ring: phase advance per cell [deg]")
        ->check(number_above_below(0, 180))
        ->capture_default_str()
        ->group("Lattice");
    app.add_option("--cell-length", lf.generator.cell_length_m, "Generated ring: cell length [m]")
        ->check(finite_positive())
        ->capture_default_str()
        ->group("Lattice");
    app.add_option("--quad-length", lf.generator.quad_length_m, "Generated FODO: quadrupole length [m] (0: cell / 10)")
        ->check(finite_non_negative())
        ->group("Lattice");
    app.add_flag("--bends", lf.generator.bends, "Generated FODO: sector dipoles closing the ring")->group("Lattice");
    app.add_option("--gamma-t", lf.generator.gamma_t, "Generated ring without bends: transition gamma")
        ->check(finite_positive())
        ->group("Lattice");
    app.add_option("--pipe-radius", lf.pipe_radius_m, "Round beam pipe: particles beyond it are lost [m]")
        ->check(finite_non_negative())
        ->group("Lattice");
    app.add_flag("--print-lattice", print_lattice, "Print the optics (one-turn matrix, tunes, beta at monitors) and exit")
        ->group("Lattice");

    BeamFlags bf;
    app.add_option("--distribution", bf.distribution, "Generate the beam: waterbag, kv, semi-gaussian or gaussian")
        ->check(one_of({"waterbag", "kv", "semi-gaussian", "gaussian"}))
        ->group("Beam");
    app.add_option("--particles", bf.particles, "Macroparticles")->capture_default_str()->group("Beam");
    // Bounded as the beam's checks (pic/reference.cpp, pic/distribution.cpp) would, naming the flag.
    app.add_option("--Z", bf.Z, "Charge state")->check(number_at_least(1))->group("Beam");
    app.add_option("--A", bf.A, "Mass number (mass A u unless --mass-kg)")->check(number_at_least(1))->group("Beam");
    app.add_option("--mass-kg", bf.mass_kg, "Ion mass [kg]")->check(finite_positive())->group("Beam");
    app.add_option("--energy", bf.energy_eV, "Kinetic energy per nucleon [eV]")->check(finite_positive())->group("Beam");
    app.add_option("--intensity", bf.intensity, "Ions in the ring (coasting) or the bunch")->check(finite_non_negative())->group("Beam");
    app.add_option("--emittance", bf.emittance_mm_mrad, "rms emittance EX[,EY] [mm mrad]")
        ->check(finite_positive())
        ->delimiter(',')
        ->expected(1, 2)
        ->capture_default_str()
        ->group("Beam");
    app.add_option("--mismatch", bf.mismatch, "rms size / matched size MX[,MY]")
        ->check(finite_positive())
        ->delimiter(',')
        ->expected(1, 2)
        ->group("Beam");
    app.add_option("--offset", bf.offset_m, "Centroid X,Y [m]")->delimiter(',')->expected(2)->group("Beam");
    app.add_option("--momentum-spread", bf.momentum_spread, "rms of delta")
        ->check(finite_non_negative())
        ->capture_default_str()
        ->group("Beam");
    app.add_option("--bunch-length", bf.bunch_length_m, "A bunch of this length (4 rms) [m]; without: coasting")
        ->check(finite_positive())
        ->group("Beam");
    app.add_option("--bunch-shape", bf.longitudinal, "elliptic or gaussian")
        ->check(one_of({"elliptic", "gaussian"}))
        ->capture_default_str()
        ->group("Beam");

    pic::TrackerOptions to;
    pic::SpaceChargeOptions& sc = to.space_charge;
    SpaceChargeFlags sf;
    app.add_option("--sc-kicks", sc.kicks_per_turn, "Space-charge kicks per turn (0: none)")
        ->check(number_in(0, pic::kMaxKicksPerTurn))
        ->capture_default_str()
        ->group("Space charge");
    app.add_option("--sc-grid", sf.grid, "Transverse grid NX,NY")->delimiter(',')->expected(2)->capture_default_str()
        ->group("Space charge");
    app.add_option("--sc-slices", sc.slices, "Longitudinal slices (0: 1 coasting, 64 bunched)")->group("Space charge");
    app.add_option("--sc-maps", sf.maps, "per-turn (one field map per turn) or per-kick")
        ->check(one_of({"per-turn", "per-kick"}))
        ->capture_default_str()
        ->group("Space charge");
    app.add_option("--sc-deposition", sf.deposition, "auto, privatised or sorted")
        ->check(one_of({"auto", "privatised", "sorted"}))
        ->capture_default_str()
        ->group("Space charge");
    app.add_flag("--sc-pipe", sf.conducting_pipe, "The pipe (--pipe-radius) is conducting: its images act on the beam")
        ->group("Space charge");
    app.add_flag("--longitudinal-sc", sc.longitudinal, "Longitudinal space charge from the line density")
        ->group("Space charge");
    app.add_option("--line-cells", sc.line_cells, "Line-density nodes")->capture_default_str()->group("Space charge");
    app.add_option("--geometry-factor", sc.geometry_factor, "g of E_z (0: 1 + 2 ln(b/a))")->group("Space charge");
    app.add_option("--harmonic-cutoff", sc.harmonic_cutoff, "Highest line-density harmonic kept (0: line cells / 8)")
        ->group("Space charge");
    app.add_option("--tune-probes", to.probes, "Record the first N particles every turn: tune_x, tune_y columns")
        ->group("Diagnostics");
    to.probe_turns = 256;
    app.add_option("--tune-turns", to.probe_turns, "Turns the probes are recorded for")->capture_default_str()
        ->group("Diagnostics");
    bool beam_physics = false;
    app.add_flag("--beam-physics", beam_physics,
                 "Frames add beam-physics position, momentum, weight (on for .h5)")
        ->group("Diagnostics");

    return tool.run(std::vector<std::string>(args.begin(), args.end()), [&](Tool& t) {
        const pic::Lattice lattice = make_lattice(lf);
        if (print_lattice) {
            const pic::io::BeamParameters b = beam_parameters(bf, lattice);
            const pic::ReferenceParticle r = pic::make_reference(b.species);
            const std::string optics = pic::format_optics(lattice, pic::compute_optics(lattice, r));
            if (t.join_ranks().root()) std::printf("reference: %s\n%s", pic::describe(b.species, r).c_str(), optics.c_str());
            return 0;
        }
        const run::RunOptions options = run_options(run_flags, t, "pic-track");
        // One rank, or every rank mpirun started: rank 0 makes or reads the beam and each rank
        // tracks a block of it.
        const dist::Communicator ranks = t.join_ranks();
        Backend backend = t.open_backend();
        sc.nx = sf.grid[0];
        sc.ny = sf.grid[1];
        sc.sharing = sf.maps == "per-kick" ? pic::MapSharing::per_kick : pic::MapSharing::per_turn;
        sc.deposition = sf.deposition == "sorted"       ? pic::Deposition::sorted
                        : sf.deposition == "privatised" ? pic::Deposition::privatised
                                                        : pic::Deposition::automatic;
        if (sf.conducting_pipe) {
            if (!(lf.pipe_radius_m > 0.0)) throw UsageError("--sc-pipe needs --pipe-radius");
            sc.pipe_radius_m = lf.pipe_radius_m;
        } else if (sc.longitudinal && sc.geometry_factor == 0.0) {
            sc.pipe_radius_m = lf.pipe_radius_m;  // for the geometry factor only
        }
        if (bf.distribution.empty() && (bf.any_species() || bf.bunch_length_m))
            throw UsageError("beam flags (--Z, --A, --energy, --intensity, --bunch-length) describe a generated beam: "
                             "give --distribution, or none with -i");
        const std::string extension = std::filesystem::path(t.options().output).extension().string();
        const bool beam_physics_records =
            beam_physics || (extension.size() > 1 && fmt::parse_encoding(extension.substr(1)) == fmt::Encoding::hdf5);

        pic::io::RankStart start = pic::io::scatter_start(ranks, [&] {
            pic::io::RankStart all;
            if (!bf.distribution.empty()) {
                all.parameters = beam_parameters(bf, lattice);
                const pic::Optics optics = pic::compute_optics(lattice, pic::make_reference(all.parameters.species));
                pic::BeamSpec spec;
                spec.species = all.parameters.species;
                spec.intensity = all.parameters.intensity;
                spec.macroparticles = bf.particles;
                spec.transverse = bf.distribution == "kv"              ? pic::Distribution::kv
                                  : bf.distribution == "semi-gaussian" ? pic::Distribution::semi_gaussian
                                  : bf.distribution == "gaussian"      ? pic::Distribution::gaussian
                                                                       : pic::Distribution::waterbag;
                spec.emittance_x_m = pick(bf.emittance_mm_mrad, 0) * pic::kMmMrad;
                spec.emittance_y_m = pick(bf.emittance_mm_mrad, 1) * pic::kMmMrad;
                spec.mismatch_x = pick(bf.mismatch, 0);
                spec.mismatch_y = pick(bf.mismatch, 1);
                spec.offset_x_m = bf.offset_m[0];
                spec.offset_y_m = bf.offset_m[1];
                spec.momentum_spread = bf.momentum_spread;
                if (bf.bunch_length_m) {
                    spec.longitudinal = bf.longitudinal == "gaussian" ? pic::Longitudinal::gaussian : pic::Longitudinal::elliptic;
                    spec.bunch_length_m = *bf.bunch_length_m;
                }
                spec.seed = t.options().seed;
                // Before generating: the host set (68 bytes a particle), the state on a CPU backend
                // and two staged frames hold about four copies.
                constexpr double beam_bytes_per_particle = 4.0 * 68.0;
                require_host_memory("--particles " + std::to_string(bf.particles), double(bf.particles),
                                    beam_bytes_per_particle);
                all.particles = pic::generate_beam(spec, optics.start, lattice.circumference_m());
            } else {
                refuse_terminal_stdin(t.options().input);
                pic::io::StartState read = run::parse_start_frame(t.options().input, run_flags.start_frame, [](const fmt::Frame& f) {
                    pic::io::StartState state = pic::io::read_frame(f);
                    if (!state.parameters) throw FormatError("the frame has no pic.* attributes (species, intensity)");
                    return state;
                });
                const double C = lattice.circumference_m();
                if (std::abs(read.parameters->circumference_m - C) > 1e-9 * C)
                    throw UsageError("the frame's ring is " + std::to_string(read.parameters->circumference_m) +
                                     " m around, this lattice " + std::to_string(C) + " m");
                all.parameters = *read.parameters;
                all.particles = std::move(read.particles);
                all.turn = read.turn;
            }
            all.parameters.beam_physics_records = beam_physics_records;
            return all;
        });
        to.profile = t.options().profile;
        to.ranks = ranks;
        pic::io::TrackingSetup setup{lattice, start.parameters, to};

        std::optional<pic::io::TrackingSimulation> simulation;
        ranks.collectively([&] { simulation.emplace(backend, setup, start.particles, start.turn); });
        std::string where = backend.describe();
        if (ranks.size() > 1) where = ranks.describe() + ", " + where + " on rank 0";
        t.log().info("tracking " + std::to_string(simulation->size()) + " macroparticles on " + where + " from turn " +
                     std::to_string(start.turn) + ", " + std::to_string(lattice.elements.size()) +
                     " elements fused into " + std::to_string(simulation->tracker().program().ops.size()) +
                     " operations per turn");
        auto writer = run::open_frame_writer(ranks, t.options().output, writer_options(run_flags, t));
        const run::RunReport report = run::run_simulation(
            *simulation, *writer, options,
            run::make_provenance("pic-track", t.command_line(), backend.describe(), t.options().seed), t.log());
        t.log().info(report.summary());
        const auto losses = simulation->tracker().losses_per_element();
        for (std::size_t e = 0; e < losses.size(); ++e)
            if (losses[e])
                t.log().info("lost at " + lattice.elements[e].name + " (element " + std::to_string(e) +
                             "): " + std::to_string(losses[e]));
        if (t.options().profile && ranks.root()) std::fprintf(stderr, "%s", simulation->tracker().profile().report().c_str());
        return report.interrupted ? 128 + report.signal : 0;
    });
}

}  // namespace partikel::tools
