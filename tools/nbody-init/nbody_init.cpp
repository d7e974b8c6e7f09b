#include "nbody_init.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/log.hpp"
#include "base/system.hpp"
#include "common/number_checks.hpp"
#include "common/tool.hpp"
#include "formats/reader.hpp"
#include "nbody/initial_conditions.hpp"
#include "nbody/io/frame_io.hpp"
#include "run/provenance.hpp"

namespace partikel::tools {

namespace {

struct ModelInfo {
    const char* name;
    const char* summary;
    std::size_t default_n;
};

constexpr ModelInfo kModels[] = {
    {"plummer", "Plummer sphere in virial equilibrium (Aarseth, Henon & Wielen 1974), Henon units", 65536},
    {"uniform", "uniform sphere or cube at a virial ratio; 0 (the default) is a cold collapse", 65536},
    {"kepler", "two bodies on a Kepler ellipse of eccentricity e, from apoapsis", 2},
    {"galaxy-pair", "two disk + halo galaxies on a collision orbit (Hochstetter 2012), astro units", 524288},
};

const ModelInfo& find_model(const std::string& name) {
    for (const ModelInfo& m : kModels)
        if (name == m.name) return m;
    throw UsageError("unknown model \"" + name + "\" (nbody-init --list shows them)");
}

// Host memory per body while a model is built and written: the bodies in double precision (64
// bytes: position, velocity, mass, id), the frame's columns (36: f32 position and velocity, f32
// mass, u64 id) and the compressed copy on its way out (at most as large, 36). Measured: 113
// bytes per body (peak resident memory of a 4,000,000-body Plummer sphere or galaxy pair).
constexpr std::uint64_t kHostBytesPerBody = 64 + 36 + 36;
constexpr std::int64_t kDefaultMaxBodies = 100'000'000;  // 13.6 GB by the estimate above

std::string memory(double bytes) {
    const char* unit = "kB";
    double value = bytes / 1e3;
    for (const char* larger : {"MB", "GB", "TB", "PB"}) {
        if (value < 1e3) break;
        value /= 1e3;
        unit = larger;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.3g %s", value, unit);
    return text;
}

// Refuses a size that cannot (or should not) be built, with the numbers, before allocating.
void check_size(std::int64_t n, std::int64_t max_bodies) {
    if (max_bodies < 2) throw UsageError("--max-particles must be at least 2, got " + std::to_string(max_bodies));
    if (n < 2) throw UsageError("-n " + std::to_string(n) + ": an N-body model needs at least two bodies");
    const double bytes = double(n) * double(kHostBytesPerBody);
    const std::string need = "-n " + std::to_string(n) + " needs about " + memory(bytes) + " of host memory (" +
                             std::to_string(kHostBytesPerBody) + " bytes per body)";
    if (n > max_bodies)
        throw UsageError(need + ", above --max-particles " + std::to_string(max_bodies) + " (" +
                         memory(double(max_bodies) * double(kHostBytesPerBody)) + "); raise it to go further");
    require_host_memory("-n " + std::to_string(n), double(n), double(kHostBytesPerBody));
}

// A flag that belongs to some models only: given with another model, it is a usage error
// rather than silently ignored.
struct ModelFlag {
    CLI::Option* option;
    std::vector<std::string> models;
};

}  // namespace

int nbody_init(std::span<const std::string> args) {
    Tool tool("nbody-init",
              "Write the initial bodies of a gravitational N-body model (one frame, stream format by default).\n"
              "Each model chooses its units, softening and time step; nbody-run reads them from the frame.");
    tool.add_common(kOutput | kSeed | kThreads);
    CLI::App& app = tool.app();
    std::string model_name;
    bool list = false;
    std::optional<std::int64_t> n;  // signed: CLI11 would wrap "-5" into a huge unsigned count
    std::int64_t max_bodies = kDefaultMaxBodies;
    std::optional<std::string> units;
    double mass_unit = 1.0, length_unit = 1.0;
    nbody::PlummerOptions plummer;
    nbody::UniformOptions uniform;
    std::string shape = "sphere";
    nbody::KeplerOptions kepler;
    nbody::GalaxyPairOptions galaxy;
    std::vector<ModelFlag> model_flags;
    auto only = [&](CLI::Option* option, std::vector<std::string> models) {
        model_flags.push_back({option, std::move(models)});
        return option;
    };

    app.add_option("model", model_name, "plummer, uniform, kepler or galaxy-pair (--list describes them)");
    app.add_flag("--list", list, "List the models and exit");
    app.add_option("-n,--bodies", n, "Number of bodies (default: plummer, uniform 65536; galaxy-pair 524288)");
    app.add_option("--max-particles", max_bodies, "Refuse a larger -n (memory: 136 bytes per body)")
        ->capture_default_str();
    app.add_option("--units", units, "nbody (Henon) or astro (kpc, 1e10 Msun, km/s; galaxy-pair's)")
        ->check(one_of({"nbody", "astro"}));
    only(app.add_option("--mass", mass_unit, "astro: the model's mass unit [1e10 Msun]")
             ->check(finite_positive())
             ->capture_default_str(),
         {"plummer", "uniform", "kepler"});
    only(app.add_option("--length", length_unit, "astro: the model's length unit [kpc]")
             ->check(finite_positive())
             ->capture_default_str(),
         {"plummer", "uniform", "kepler"});

    only(app.add_option("--mass-cut", plummer.mass_cut, "Radii drawn up to this mass fraction")
             ->check(finite_positive())
             ->capture_default_str()
             ->group("Model plummer"),
         {"plummer"});
    only(app.add_option("--shape", shape, "sphere or cube")
             ->check(one_of({"sphere", "cube"}))
             ->capture_default_str()
             ->group("Model uniform"),
         {"uniform"});
    only(app.add_option("--size", uniform.size, "Sphere radius or cube edge")
             ->check(finite_positive())
             ->capture_default_str()
             ->group("Model uniform"),
         {"uniform"});
    only(app.add_option("--virial-ratio", uniform.virial_ratio, "2K/|W| of the start (0: cold collapse)")
             ->check(finite_non_negative())
             ->capture_default_str()
             ->group("Model uniform"),
         {"uniform"});
    only(app.add_option("--eccentricity", kepler.eccentricity, "Orbit eccentricity, 0 <= e < 1")
             ->check(finite_non_negative())
             ->capture_default_str()
             ->group("Model kepler"),
         {"kepler"});
    only(app.add_option("--semi-major-axis", kepler.semi_major_axis, "Semi-major axis")
             ->check(finite_positive())
             ->capture_default_str()
             ->group("Model kepler"),
         {"kepler"});
    only(app.add_option("--mass1", kepler.mass1, "Mass of body 0")->check(finite_positive())->capture_default_str()
             ->group("Model kepler"),
         {"kepler"});
    only(app.add_option("--mass2", kepler.mass2, "Mass of body 1")->check(finite_positive())->capture_default_str()
             ->group("Model kepler"),
         {"kepler"});
    auto galaxy_flag = [&](const char* name, double& value, const char* help) {
        only(app.add_option(name, value, help)->check(finite_positive())->capture_default_str()->group("Model galaxy-pair"),
             {"galaxy-pair"});
    };
    galaxy_flag("--separation", galaxy.separation_kpc, "Initial distance of the centres [kpc]");
    galaxy_flag("--pericenter", galaxy.pericenter_kpc, "Pericentre of the point-mass orbit [kpc]");
    galaxy_flag("--time-to-pericenter", galaxy.time_to_pericenter_Myr, "Time until the pericentre [Myr]");
    galaxy_flag("--disk-mass", galaxy.disk_mass, "Disk mass per galaxy [1e10 Msun]");
    galaxy_flag("--total-mass", galaxy.total_mass, "Disk + halo mass per galaxy [1e10 Msun]");
    galaxy_flag("--disk-scale", galaxy.disk_scale_kpc, "Exponential disk scale length R_d [kpc]");
    galaxy_flag("--disk-height", galaxy.disk_height_kpc, "Disk scale height z0 (sech^2) [kpc]");
    galaxy_flag("--halo-scale", galaxy.halo_scale_kpc, "Plummer scale of the halo [kpc]");
    galaxy_flag("--halo-mass-cut", galaxy.halo_mass_cut, "Halo radii drawn up to this mass fraction");
    only(app.add_option("--inclination", galaxy.inclination_deg, "Tilt of galaxy B's disk about x [deg]")
             ->check(finite_number())
             ->capture_default_str()
             ->group("Model galaxy-pair"),
         {"galaxy-pair"});

    return tool.run(std::vector<std::string>(args.begin(), args.end()), [&](Tool& t) {
        if (list) {
            for (const ModelInfo& m : kModels) std::printf("%-12s %s\n", m.name, m.summary);
            return 0;
        }
        if (model_name.empty()) throw UsageError("no model given (nbody-init --list shows them)");
        const ModelInfo& info = find_model(model_name);
        for (const ModelFlag& f : model_flags)
            if (f.option->count() > 0 && std::find(f.models.begin(), f.models.end(), model_name) == f.models.end())
                throw UsageError(f.option->get_name() + " does not apply to " + model_name);
        const bool galaxy_model = model_name == "galaxy-pair";
        const bool astro = units ? *units == "astro" : galaxy_model;
        if (galaxy_model && !astro)
            throw UsageError("galaxy-pair is built in astro units (kpc, 1e10 solar masses, km/s)");
        for (const char* flag : {"--mass", "--length"})
            if (app.get_option(flag)->count() > 0 && !astro) throw UsageError(std::string(flag) + " needs --units astro");
        if (model_name == "kepler") {
            if (n && *n != 2) throw UsageError("kepler is two bodies; -n does not apply");
        } else {
            check_size(n.value_or(std::int64_t(info.default_n)), max_bodies);
        }

        const std::uint64_t seed = t.options().seed;
        const auto count = static_cast<std::size_t>(n.value_or(std::int64_t(info.default_n)));
        nbody::Model model;
        if (model_name == "plummer") {
            plummer.n = count, plummer.seed = seed;
            model = nbody::plummer(plummer);
        } else if (model_name == "uniform") {
            uniform.n = count, uniform.seed = seed, uniform.shape = nbody::parse_uniform_shape(shape);
            model = nbody::uniform(uniform);
        } else if (model_name == "kepler") {
            model = nbody::kepler(kepler);
        } else {
            galaxy.n = count, galaxy.seed = seed;
            model = nbody::galaxy_pair(galaxy);
        }
        if (astro && !galaxy_model) model = nbody::in_astro_units(std::move(model), mass_unit, length_unit);

        const nbody::NbodyParams& p = model.params;
        fmt::Frame frame = nbody::make_frame(model.bodies, p, 0, 0.0, 0.0);
        const bool random = model_name != "kepler";
        run::add_provenance(run::make_provenance("nbody-init", t.command_line(), "host",
                                                 random ? std::optional<std::uint64_t>(seed) : std::nullopt),
                            frame);
        frame.attributes["nbody.model"] = model_name;
        std::string note = model_name + ": " + std::to_string(model.bodies.size()) + " bodies, " +
                           std::string(nbody::unit_system_name(p.units.kind)) + " units, softening " +
                           format_g(p.softening) + ", dt " + format_g(p.dt);
        if (galaxy_model) note += ", orbit eccentricity " + format_g(nbody::galaxy_pair_eccentricity(galaxy));
        if (random) note += ", seed " + std::to_string(seed);
        t.log().info(note);
        t.write_frame(frame);
        return 0;
    });
}

}  // namespace partikel::tools
