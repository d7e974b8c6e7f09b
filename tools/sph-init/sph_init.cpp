#include "sph_init.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common/number_checks.hpp"
#include "common/sph_terrain_flags.hpp"
#include "common/tool.hpp"
#include "formats/reader.hpp"
#include "run/provenance.hpp"
#include "sph/io/frame_io.hpp"
#include "sph/io/scenes.hpp"

namespace partikel::tools {

namespace {

// "x,y,z" or "x0,y0,z0,x1,y1,z1" into vectors.
Vec3f parse_vec3(const std::vector<float>& v, std::size_t offset) { return {v[offset], v[offset + 1], v[offset + 2]}; }

}  // namespace

int sph_init(std::span<const std::string> args) {
    Tool tool("sph-init", "Write the initial particle set of an SPH scene (one frame, stream format by default).");
    tool.add_common(kOutput);
    CLI::App& app = tool.app();
    std::string scene;
    bool list = false;
    sph::SceneOptions o;
    std::vector<float> box, domain;
    sph::SphParamOverrides contact;  // the terrain contact and the boundary scheme
    app.add_option("scene", scene, "Scene name (--list shows them)");
    app.add_flag("--list", list, "List the scenes and exit");
    app.add_option("--dx", o.dx_m, "Particle spacing [m] (0: scene default)")->check(finite_non_negative());
    app.add_option("--width", o.width_m, "dam-break: column width a [m]; still-tank: depth [m]")
        ->check(finite_non_negative());
    app.add_option("--gate-speed", o.gate_speed_m_s,
                   "dam-break: release the column by lifting a gate at this speed [m/s] (0: no gate, the column "
                   "stands free at t = 0)")
        ->check(finite_non_negative());
    app.add_option("--hdx", o.hdx, "Smoothing length h = hdx * dx (default: the scene's, 1.5)")
        ->check(finite_positive());
    app.add_option("--coefh", o.coefh, "Smoothing length h = coefh * sqrt(3) * dx instead (DualSPHysics)")
        ->check(finite_non_negative());
    app.add_option("--c0", o.c0, "Sound speed [m/s] (0: 10 x the expected top speed)")->check(finite_non_negative());
    app.add_flag("--hydrostatic", o.hydrostatic, "Start from the hydrostatic density");
    app.add_option("--particles", o.particles, "pool: particle count (0: 1024000)")->check(finite_non_negative());
    app.add_option("--model", o.model, "pool, avalanche: a snow model (docs/SNOW.md; default by scene)");
    app.add_option("--boundary-layers", o.boundary_layers, "Layers of boundary particles in tank walls (0: 3)")
        ->check(number_in(0, 16));
    app.add_option("--boundary", contact.boundary,
                   "Boundary particles: dbc or mdbc (sph-step --boundary; the normals are written either way)");
    app.add_flag("--periodic", o.periodic, "still-tank: periodic in x and z instead of side walls");
    app.add_option("--box", box, "box: fluid block x0,y0,z0,x1,y1,z1 [m]")->delimiter(',')->expected(6);
    app.add_option("--domain", domain, "box, sphere, column: domain x0,y0,z0,x1,y1,z1 [m]")
        ->delimiter(',')
        ->expected(6);
    std::vector<float> center;
    app.add_option("--center", center, "sphere, column: centre x,y,z [m] (column: y unused)")
        ->delimiter(',')
        ->expected(3);
    app.add_option("--radius", o.radius_m, "sphere, column: radius [m]")
        ->check(finite_positive())
        ->capture_default_str();
    app.add_option("--height", o.height_m, "column: height [m]")->check(finite_positive())->capture_default_str();
    std::string terrain_path;
    std::vector<int> terrain_size;
    float terrain_cell = 1.0f, terrain_scale = 1.0f, terrain_offset = 0.0f;
    tool.add_input("--terrain", terrain_path, "Height image: grey 8/16-bit PNG, OpenEXR (channel Y, Z or R), or raw")
        ->group("Terrain");
    app.add_option("--terrain-size", terrain_size, "Samples NX,NZ of a raw 16-bit LE image, rows along x")
        ->delimiter(',')
        ->expected(2)
        ->group("Terrain");
    app.add_option("--terrain-cell", terrain_cell, "Sample spacing [m]")->capture_default_str()->group("Terrain");
    app.add_option("--terrain-scale", terrain_scale, "Metres per sample unit")->capture_default_str()->group("Terrain");
    app.add_option("--terrain-offset", terrain_offset, "Height of sample 0 [m]")
        ->capture_default_str()
        ->group("Terrain");
    app.add_option("--terrain-tile", o.terrain_tile_m, "Sample the terrain in tiles of this edge [m] (0: bilinear)")
        ->check(finite_non_negative())
        ->group("Terrain");
    add_terrain_contact_flags(app, contact, false);  // the tile: before placing particles
    std::vector<float> release;
    app.add_option("--release", release, "avalanche, river: release zone X0,Z0,X1,Z1 [m] (default: the scene's)")
        ->delimiter(',')
        ->expected(4)
        ->group("Terrain");
    app.add_option("--thickness", o.thickness_m, "avalanche: slab thickness; river: water depth [m] (0: default)")
        ->check(finite_non_negative())
        ->group("Terrain");

    return tool.run(std::vector<std::string>(args.begin(), args.end()), [&](Tool& t) {
        if (list) {
            for (const auto& s : sph::scene_list())
                std::printf("%-20s %s\n", std::string(s.name).c_str(), std::string(s.summary).c_str());
            return 0;
        }
        if (scene.empty()) throw UsageError("no scene given (sph-init --list shows them)");
        if (box.size() == 6) o.box_min = parse_vec3(box, 0), o.box_max = parse_vec3(box, 3);
        if (domain.size() == 6) o.domain_min = parse_vec3(domain, 0), o.domain_max = parse_vec3(domain, 3);
        if (center.size() == 3) o.center = parse_vec3(center, 0);
        // The image starts at the domain's x-z corner (scenes place their domain at the origin).
        if (!terrain_path.empty())
            o.terrain = sph::load_height_field(terrain_path, terrain_size, terrain_cell, terrain_scale, terrain_offset,
                                               o.domain_min.x, o.domain_min.z);
        {
            sph::SphParams check;  // bad terrain contact values fail before the scene is built
            contact.apply(check);
            sph::validate(check);
        }
        if (release.size() == 4) std::copy(release.begin(), release.end(), o.release_m.begin());
        sph::Scene s = sph::make_scene(scene, o);
        contact.apply(s.params);
        sph::validate(s.params);
        fmt::Frame frame = sph::make_frame(s.particles, s.params, 0, 0.0, 0.0);
        run::add_provenance(run::make_provenance("sph-init", t.command_line(), "host"), frame);
        frame.attributes["sph.scene"] = scene;
        t.log().info(scene + ": " + std::to_string(s.particles.count(sph::ParticleKind::fluid)) + " fluid and " +
                     std::to_string(s.particles.size() - s.particles.count(sph::ParticleKind::fluid)) +
                     " boundary particles, dx " + std::to_string(s.params.dx_m) + " m, h " +
                     std::to_string(s.params.h_m) + " m, c0 " + std::to_string(s.params.c0) + " m/s");
        t.write_frame(frame);
        return 0;
    });
}

}  // namespace partikel::tools
