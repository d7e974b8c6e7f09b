#include "splat_render.hpp"

#include <cstdio>
#include <optional>
#include <vector>

#include "base/error.hpp"
#include "base/log.hpp"
#include "common/number_checks.hpp"
#include "common/tool.hpp"
#include "render/io/image_output.hpp"
#include "render/io/sequence.hpp"

namespace partikel::tools {

namespace {

Vec3f vec3(const std::vector<float>& v) { return {v[0], v[1], v[2]}; }

// "1920x1080"
std::pair<int, int> parse_size(const std::string& text) {
    int w = 0, h = 0;
    char x = 0, rest = 0;
    if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &rest) != 3 || (x != 'x' && x != 'X'))
        throw UsageError("--size must be WIDTHxHEIGHT, e.g. 1920x1080 (got " + quoted_excerpt(text) + ")");
    return {w, h};
}

render::BackgroundKind parse_background(const std::string& name) {
    if (name == "gradient") return render::BackgroundKind::gradient;
    if (name == "black") return render::BackgroundKind::black;
    if (name == "transparent") return render::BackgroundKind::transparent;
    throw UsageError("unknown background '" + name + "' (gradient, black or transparent; --environment FILE for a map)");
}

}  // namespace

int splat_render(std::span<const std::string> args) {
    Tool tool("splat-render",
              "Render particle frames to OpenEXR images (one per frame): an SPH fluid surface, points or\n"
              "spheres coloured by any column. Reads a particle stream or file, headless, on the GPU or CPU.\n"
              "Under mpirun (a GPU or a share of the cores per rank) a sequence renders frame-parallel and\n"
              "one frame sort-last: each rank its share of the particles, the images composited (--split).");
    tool.add_common(kInput | kDevice | kThreads | kProfile);
    CLI::App& app = tool.app();
    render::io::SequenceOptions o;
    render::RenderSettings& s = o.settings;
    std::string style = "fluid", size = "1280x720", background, compression = "zip", colour_map = "viridis";
    std::vector<float> eye, target, up, direction, range, percentiles, absorption, fluid_colour, light, particle_colour;
    std::optional<float> smoothing_length;
    std::optional<float> exposure;
    std::string opaque_groups, groups;

    tool.add_output("-o,--output", o.output, "Output pattern, %d: the frame index (frames/%04d.exr; '-': stdout)",
                    [&](const std::string& flag, const std::string& value) {
                        return render::io::OutputPattern::parse(value).files(flag, o.preview);
                    })
        ->required();
    app.add_option("--style", style, "fluid, points or spheres")->check(one_of({"fluid", "points", "spheres"}))->capture_default_str();
    app.add_option("--size", size, "Image size WIDTHxHEIGHT [pixels]")->capture_default_str();
    app.add_option("--frames", o.frames, "Frames to render: indices and start:stop:step slices (default all)");
    app.add_flag("--preview", o.preview, "Also write an 8-bit PNG beside each EXR");
    app.add_option("--compression", compression, "EXR codec: none, rle, zips, zip or piz")
        ->check(one_of({"none", "rle", "zips", "zip", "piz"}))
        ->capture_default_str();
    std::string passes = "all";
    app.add_option("--passes", passes, "EXR planes: all (colour, depth, normals, thickness, count) or rgba")
        ->check(one_of({"all", "rgba"}))
        ->capture_default_str();
    app.add_option("--zip-level", o.exr.zip_level, "zlib level of zip/zips, 1 (fast) .. 9")
        ->check(number_in(1, 9))
        ->capture_default_str();
    app.add_option("--in-flight", o.frames_in_flight, "Images encoding while the next render (0: half the cores)")
        ->check(number_in(0, 64))
        ->capture_default_str();
    std::string rank_split = "auto";
    app.add_option("--split", rank_split,
                   "Under mpirun: frames, particles (sort-last) or auto")
        ->check(one_of({"auto", "frames", "particles"}))
        ->capture_default_str()
        ->group("Ranks");

    const char* camera = "Camera";
    app.add_option("--eye", eye, "Camera position X,Y,Z [m] (default: fitted)")->delimiter(',')->expected(3)->group(camera);
    app.add_option("--target", target, "Point at the image centre X,Y,Z [m] (default: the particles' centre)")
        ->delimiter(',')->expected(3)->group(camera);
    app.add_option("--up", up, "World direction shown upwards X,Y,Z (default 0,1,0)")->delimiter(',')->expected(3)->group(camera);
    app.add_option("--fov", o.camera.fov_y_deg, "Vertical field of view [degrees]")
        ->check(number_above_below(0, 180))
        ->capture_default_str()
        ->group(camera);
    app.add_flag("--fit", o.camera.fit, "Move the eye along its direction to frame the first frame's particles")->group(camera);
    app.add_option("--direction", direction, "Fitted camera: direction from the target to the eye (0.35,0.45,1)")
        ->delimiter(',')->expected(3)->group(camera);
    app.add_option("--orbit", o.camera.orbit_deg_per_frame, "Turn the camera about --up by this per frame [degrees]")
        ->group(camera);
    tool.add_input("--camera-path", o.camera.path_file, "Camera keyframes: FRAME EYE(3) TARGET(3) [FOV] per line")->group(camera);

    const char* fluid = "Fluid (--style fluid)";
    // Bounded as Renderer's checks would (render/renderer.cpp), naming the flag.
    app.add_option("--smoothing-length", smoothing_length, "SPH h [m] (default: the frames' sph.h)")
        ->check(finite_positive())
        ->group(fluid);
    app.add_option("--radius-over-h", s.radius_over_h, "Radius of a particle's sphere in h")
        ->check(finite_positive())
        ->capture_default_str()
        ->group(fluid);
    app.add_option("--anisotropy", s.anisotropy.max_ratio, "Largest ratio of ellipsoid axes")
        ->check(number_at_least(1))
        ->capture_default_str()
        ->group(fluid);
    app.add_option("--min-neighbours", s.anisotropy.min_neighbours, "Fewer neighbours: a sphere")->capture_default_str()->group(fluid);
    app.add_option("--centre-smoothing", s.anisotropy.centre_smoothing, "Pull of centres to the neighbours' mean, 0..1")
        ->check(number_in(0, 1))
        ->capture_default_str()->group(fluid);
    app.add_option("--flow-steps", s.flow_steps, "Curvature flow steps (the thesis used 500)")
        ->check(finite_non_negative())
        ->capture_default_str()
        ->group(fluid);
    app.add_option("--flow-rate", s.flow_rate, "Curvature flow step size, in (0, 1)")
        ->check(number_above_below(0, 1))
        ->capture_default_str()
        ->group(fluid);
    app.add_option("--discontinuity", s.discontinuity_over_radius, "Depth jump that separates surfaces [particle radii]")
        ->capture_default_str()->group(fluid);
    app.add_option("--absorption", absorption, "Absorption R,G,B [1/m] (default 30,10,5)")->delimiter(',')->expected(3)->group(fluid);
    app.add_option("--fluid-colour,--fluid-color", fluid_colour, "Colour scattered by the fluid R,G,B (linear)")
        ->delimiter(',')->expected(3)->group(fluid);
    app.add_option("--refractive-index", s.fluid.refractive_index, "For the Fresnel term")->capture_default_str()->group(fluid);
    app.add_option("--fluid-group", o.selection.fluid_group, "Group holding the fluid")->capture_default_str()->group(fluid);
    app.add_option("--opaque-groups", opaque_groups, "Groups drawn as opaque spheres (default: all but the fluid)")->group(fluid);

    const char* colour = "Points and spheres";
    app.add_option("--colour,--color", o.selection.colour, "Colour by COLUMN (a vector's magnitude) or COLUMN.x|y|z")->group(colour);
    app.add_option("--colormap", colour_map, "viridis, magma, inferno, coolwarm or grey")
        ->check(one_of({"viridis", "magma", "inferno", "coolwarm", "grey", "gray"}))
        ->capture_default_str()
        ->group(colour);
    app.add_option("--range", range, "Colour range MIN,MAX (default: percentiles of the first frame)")
        ->delimiter(',')->expected(2)->group(colour);
    app.add_option("--percentiles", percentiles, "Automatic range LOW,HIGH [percent] (default 1,99)")
        ->check(number_in(0, 100))
        ->delimiter(',')->expected(2)->group(colour);
    app.add_option("--radius", s.radius_m, "Particle radius [m] (default: sph.dx / 2 or half the mean spacing)")->group(colour);
    app.add_option("--radius-column", o.selection.radius, "Particle radius from this column [m]")->group(colour);
    CLI::Option* sigma = app.add_option("--sigma", s.points.sigma_px, "Points: Gaussian sigma [pixels] instead of a radius")
                             ->capture_default_str()
                             ->group(colour);
    app.add_option("--intensity", s.points.intensity, "Points: each particle's total brightness")->capture_default_str()->group(colour);
    app.add_option("--particle-colour,--particle-color", particle_colour, "Colour without --colour R,G,B (linear)")
        ->delimiter(',')->expected(3)->group(colour);
    app.add_option("--groups", groups, "Groups drawn (default all)")->group(colour);

    const char* look = "Background and light";
    app.add_option("--background", background, "gradient (fluid, spheres), black (points) or transparent")
        ->check(one_of({"gradient", "black", "transparent"}))
        ->group(look);
    tool.add_input("--environment", o.environment_map, "Equirectangular OpenEXR map as background and reflection")->group(look);
    app.add_option("--light", light, "Direction towards the light X,Y,Z")->delimiter(',')->expected(3)->group(look);
    app.add_option("--exposure", exposure, "PNG previews: scale before tone mapping (default 1; points: automatic)")->group(look);

    return tool.run(std::vector<std::string>(args.begin(), args.end()), [&](Tool& t) {
        s.style = render::parse_style(style);
        std::tie(s.width, s.height) = parse_size(size);
        s.colour_map = render::parse_colour_map(colour_map);
        o.exr.compression = image::parse_compression(compression);
        o.exr.rgba_only = passes == "rgba";
        refuse_terminal_stdin(t.options().input);
        o.input = t.options().input;
        o.profile = t.options().profile;
        o.selection.style = s.style;
        o.points_in_pixels = sigma->count() > 0;
        o.smoothing_length_m = smoothing_length;
        o.exposure = exposure;
        // Directions and ranges, checked here where their flags can be named.
        for (const auto& [flag, v] : {std::pair<const char*, const std::vector<float>*>{"--up", &up},
                                      {"--direction", &direction}, {"--light", &light}})
            if (!v->empty() && (*v)[0] == 0.0f && (*v)[1] == 0.0f && (*v)[2] == 0.0f)
                throw UsageError(std::string(flag) + " must not be zero: it gives a direction (got 0,0,0)");
        if (!range.empty() && !(range[0] <= range[1]))
            throw UsageError("--range must be MIN,MAX with MIN <= MAX (got " + format_g(range[0]) + "," + format_g(range[1]) + ")");
        if (!percentiles.empty() && !(percentiles[0] <= percentiles[1]))
            throw UsageError("--percentiles must be LOW,HIGH with LOW <= HIGH (got " + format_g(percentiles[0]) + "," +
                             format_g(percentiles[1]) + ")");
        if (!eye.empty()) o.camera.eye = vec3(eye);
        if (!target.empty()) o.camera.target = vec3(target);
        if (!up.empty()) o.camera.up = vec3(up);
        if (!direction.empty()) o.camera.direction = vec3(direction);
        if (!range.empty()) o.range = std::pair<float, float>{range[0], range[1]};
        if (!percentiles.empty()) {
            o.percentile_lo = percentiles[0] / 100.0;
            o.percentile_hi = percentiles[1] / 100.0;
        }
        if (!absorption.empty()) s.fluid.absorption_per_m = vec3(absorption);
        if (!fluid_colour.empty()) s.fluid.colour = vec3(fluid_colour);
        if (!light.empty()) s.lighting.direction = vec3(light);
        if (!particle_colour.empty()) s.particle_colour = vec3(particle_colour);
        const auto split = [](const std::string& list) {
            std::vector<std::string> names;
            std::string item;
            for (const char c : list + ",") {
                if (c != ',') {
                    item += c;
                } else if (!item.empty()) {
                    names.push_back(item);
                    item.clear();
                }
            }
            return names;
        };
        o.selection.opaque_groups = split(opaque_groups);
        o.selection.groups = split(groups);
        if (!o.environment_map.empty()) {
            if (!background.empty()) throw UsageError("give --background or --environment, not both");
            s.background.kind = render::BackgroundKind::environment;
        } else if (!background.empty()) {
            s.background.kind = parse_background(background);
        } else {
            s.background.kind = s.style == render::Style::points ? render::BackgroundKind::black : render::BackgroundKind::gradient;
        }
        if (s.style == render::Style::fluid && (!o.selection.colour.empty() || !o.selection.radius.empty()))
            throw UsageError("--colour and --radius-column apply to --style points and spheres");

        o.split = render::io::parse_rank_split(rank_split);
        o.command_line = t.command_line();
        // One rank, or every rank mpirun started (a GPU each, or a share of the cores).
        o.ranks = t.join_ranks();
        Backend backend = t.open_backend();
        std::optional<Progress> progress;  // made at the first frame, when the total is known
        const render::io::SequenceReport report = render::io::render_stream(
            backend, o, t.log(), [&](std::uint64_t done, std::optional<std::uint64_t> total) {
                if (!progress) progress.emplace(t.progress("splat-render", total ? double(*total) : 0.0, "frames/s"));
                progress->update(double(done));
            });
        if (progress) progress->finish();
        t.summary("wrote " + counted(report.frames, "frame"));
        if (!report.profile.empty()) std::fputs(report.profile.c_str(), stderr);
        return 0;
    });
}

}  // namespace partikel::tools
