// Parameters and particles through the frame model: attributes round-trip, the solver order
// is restored, missing columns take documented defaults, bad values are usage errors.
#include <doctest/doctest.h>

#include <hdf5.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "../formats/sample_frames.hpp"
#include "base/error.hpp"
#include "formats/openpmd/h5_util.hpp"
#include "formats/openpmd/openpmd.hpp"
#include "formats/reader.hpp"
#include "sph/io/frame_io.hpp"
#include "sph/io/params_io.hpp"
#include "sph/io/scenes.hpp"
#include "sph/snow.hpp"

using namespace partikel;
using namespace partikel::sph;

TEST_CASE("parameters round-trip through frame attributes") {
    SphParams p;
    p.dx_m = 0.004f;
    p.h_m = 0.007f;
    p.c0 = 33.0f;
    p.alpha = 0.05f;
    p.kernel = KernelKind::cubic_spline;
    p.density = DensityScheme::summation;
    p.diffusion = DensityDiffusion::fourtakas;
    p.integrator = Integrator::verlet;
    p.faces = parse_faces("wall,wall,wall,open,periodic,periodic");
    p.wave_maker = {1, 0.02f, 1.5f};
    p.terrain.nx = 2;
    p.terrain.nz = 2;
    p.terrain.height_m = {0.0f, 0.1f, 0.2f, 0.3f};
    p.gravity = {0.0f, -1.0f, 0.5f};
    fmt::Frame f;
    write_attributes(p, f);
    const SphParams q = read_attributes(f);
    CHECK(q.dx_m == p.dx_m);
    CHECK(q.h_m == p.h_m);
    CHECK(q.c0 == p.c0);
    CHECK(q.alpha == p.alpha);
    CHECK(q.kernel == p.kernel);
    CHECK(q.density == p.density);
    CHECK(q.diffusion == p.diffusion);
    CHECK(q.integrator == p.integrator);
    CHECK(q.faces == p.faces);
    CHECK(q.wave_maker.face == 1);
    CHECK(q.wave_maker.amplitude_m == 0.02f);
    CHECK(q.terrain.height_m == p.terrain.height_m);
    CHECK(q.gravity.z == 0.5f);
}

TEST_CASE("frames keep groups, ids and the solver order") {
    SceneOptions o;
    o.dx_m = 0.005f;
    o.width_m = 0.05f;
    const Scene s = make_scene("dam-break", o);
    ParticleSet shuffled = s.particles;
    std::swap(shuffled.position[0], shuffled.position[shuffled.size() - 1]);
    std::swap(shuffled.kind[0], shuffled.kind[shuffled.size() - 1]);
    std::swap(shuffled.id[0], shuffled.id[shuffled.size() - 1]);
    std::swap(shuffled.mass[0], shuffled.mass[shuffled.size() - 1]);
    const fmt::Frame f = make_frame(shuffled, s.params, 12, 0.5, 1e-4);
    CHECK(f.group("fluid").count() == s.particles.count(ParticleKind::fluid));
    CHECK(f.group("boundary").count() == s.particles.count(ParticleKind::boundary));
    CHECK(f.group("fluid").find("pressure") != nullptr);
    const SimulationFrame back = read_frame(f);
    CHECK(back.step == 12);
    CHECK(back.time_s == 0.5);
    REQUIRE(back.particles.size() == shuffled.size());
    bool same = true;
    for (std::size_t i = 0; i < shuffled.size(); ++i)
        same = same && back.particles.id[i] == shuffled.id[i] && back.particles.kind[i] == shuffled.kind[i] &&
               back.particles.position[i].x == shuffled.position[i].x;
    CHECK(same);
}

TEST_CASE("Verlet's previous step travels with the particles and their solver order") {
    SceneOptions o;
    o.dx_m = 0.005f;
    o.width_m = 0.05f;
    const Scene s = make_scene("dam-break", o);
    const std::size_t n = s.particles.size();
    ParticleSet shuffled = s.particles;
    std::swap(shuffled.position[0], shuffled.position[n - 1]);
    std::swap(shuffled.kind[0], shuffled.kind[n - 1]);
    std::swap(shuffled.id[0], shuffled.id[n - 1]);
    PreviousStep previous;
    for (std::size_t i = 0; i < n; ++i) {
        previous.velocity.push_back({float(i), -float(i), 0.5f * float(i)});
        previous.density.push_back(1000.0f + float(i));
    }
    const fmt::Frame f = make_frame(shuffled, s.params, 3, 0.25, 1e-4, previous);
    for (const char* name : {"fluid", "boundary"}) {
        const fmt::Column* v = f.group(name).find("velocity_previous");
        const fmt::Column* d = f.group(name).find("density_previous");
        REQUIRE(v != nullptr);
        REQUIRE(d != nullptr);
        CHECK(v->components() == 3);
        CHECK(v->unit() == fmt::well_known_column("velocity")->unit);
        CHECK(d->unit() == fmt::well_known_column("density")->unit);
    }
    const SimulationFrame back = read_frame(f);
    REQUIRE(back.previous.velocity.size() == n);
    bool same = true;
    for (std::size_t i = 0; i < n; ++i)
        same = same && back.particles.id[i] == shuffled.id[i] && back.previous.density[i] == previous.density[i] &&
               back.previous.velocity[i].y == previous.velocity[i].y &&
               back.previous.velocity[i].z == previous.velocity[i].z;
    CHECK(same);

    // Without the columns (other integrators, or before Verlet's first step) nothing is restored;
    // a group without them drops the rest too; a wrong length is a usage error.
    CHECK(make_frame(shuffled, s.params, 3, 0.25, 1e-4).group("fluid").find("velocity_previous") == nullptr);
    CHECK(read_frame(make_frame(shuffled, s.params, 3, 0.25, 1e-4)).previous.empty());
    fmt::Frame without = f;
    without.group("boundary").remove_column("density_previous");
    CHECK(read_frame(without).previous.empty());
    previous.density.pop_back();
    CHECK_THROWS_AS(make_frame(shuffled, s.params, 3, 0.25, 1e-4, previous), UsageError);
}

TEST_CASE("a frame with positions only takes defaults") {
    fmt::Frame f;
    auto& g = f.add_group("fluid", 2);
    auto pos = g.add_well_known("position").values<float>();
    pos[3] = 1.0f;
    SphParams defaults;
    defaults.dx_m = 0.1f;
    const SimulationFrame s = read_frame(f, defaults);
    CHECK(s.particles.size() == 2);
    CHECK(s.particles.density[1] == defaults.rho0);
    CHECK(s.particles.mass[0] == doctest::Approx(1.0f));
    CHECK(s.particles.id[1] == 1);
    CHECK(s.particles.position[1].x == 1.0f);
    CHECK_THROWS_AS(read_frame(fmt::Frame{}), FormatError);
}

TEST_CASE("bad names and parameter combinations are usage errors") {
    CHECK_THROWS_AS(parse_kernel("gauss"), UsageError);
    CHECK_THROWS_AS(parse_faces("wall,open"), UsageError);
    CHECK(parse_faces("open")[5] == Face::open);
    SphParams p;
    p.faces = parse_faces("periodic,wall,wall,wall,wall,wall");
    CHECK_THROWS_AS(validate(p), UsageError);
    CHECK_THROWS_AS(make_scene("volcano", {}), UsageError);
    for (const auto& info : scene_list()) CHECK(!info.summary.empty());
}

TEST_CASE("a scene survives the stream encoding unchanged") {
    SceneOptions o;
    o.dx_m = 0.005f;
    o.width_m = 0.05f;
    o.periodic = true;
    const Scene s = make_scene("still-tank", o);
    const std::string path = "test_unit_sph_io.pks";
    {
        auto writer = fmt::open_writer(path);
        writer->write(make_frame(s.particles, s.params, 0, 0.0, 0.0));
        writer->finish();
    }
    auto reader = fmt::open_reader(path);
    auto frame = reader->next();
    REQUIRE(frame.has_value());
    const SimulationFrame back = read_frame(*frame);
    std::remove(path.c_str());
    REQUIRE(back.particles.size() == s.particles.size());
    CHECK(back.params.h_m == s.params.h_m);
    CHECK(back.params.faces == s.params.faces);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < s.particles.size(); ++i) {
        const bool same = back.particles.position[i].x == s.particles.position[i].x &&
                          back.particles.position[i].y == s.particles.position[i].y &&
                          back.particles.position[i].z == s.particles.position[i].z &&
                          back.particles.density[i] == s.particles.density[i] &&
                          back.particles.mass[i] == s.particles.mass[i] &&
                          back.particles.kind[i] == s.particles.kind[i];
        if (!same && differing++ < 3)
            MESSAGE("particle " << i << ": x " << back.particles.position[i].x << " vs " << s.particles.position[i].x
                                << ", rho " << back.particles.density[i] << " vs " << s.particles.density[i] << ", m "
                                << back.particles.mass[i] << " vs " << s.particles.mass[i]);
    }
    CHECK(differing == 0);
}

TEST_CASE("a stress tensor reads back by component name from every export") {
    // The solver's stress field is SymTensor's bytes; each export names its components
    // (SPEC.md §1): every name must find the value of that component, for every particle.
    const std::size_t n = 3;
    std::vector<Vec3f> position, velocity(n);
    std::vector<float> density(n, 1000.0f), mass(n, 1.0f);
    std::vector<std::uint64_t> id;
    std::vector<std::uint8_t> kind(n, 0);
    std::vector<SymTensor> stress(n);
    auto expected = [](std::size_t i, std::string_view c) {
        const float base = 100.0f * float(i + 1);
        const char* names[] = {"xx", "yy", "zz", "xy", "xz", "yz"};
        for (int k = 0; k < 6; ++k)
            if (c == names[k]) return base + float(k + 1);
        FAIL("no component " << c);
        return 0.0f;
    };
    for (std::size_t i = 0; i < n; ++i) {
        position.push_back({float(i), 0.0f, 0.0f});
        id.push_back(i);
        SymTensor& t = stress[i];
        t.xx = expected(i, "xx");
        t.yy = expected(i, "yy");
        t.zz = expected(i, "zz");
        t.xy = expected(i, "xy");
        t.xz = expected(i, "xz");
        t.yz = expected(i, "yz");
    }
    HostState state;
    state.count = n;
    auto bytes = [](const auto& v) { return std::as_bytes(std::span(v.data(), v.size())); };
    state.fields[field::position] = bytes(position);
    state.fields[field::velocity] = bytes(velocity);
    state.fields[field::density] = bytes(density);
    state.fields[field::mass] = bytes(mass);
    state.fields[field::id] = bytes(id);
    state.fields[field::kind] = bytes(kind);
    state.fields[field::stress] = bytes(stress);
    SphParams params;
    params.model = Model::bingham;
    const fmt::Frame frame = make_frame(state, params, 7, 0.0, 1e-4);
    REQUIRE(frame.group("fluid").find("stress") != nullptr);
    const auto names = fmt::component_names(6);
    REQUIRE(names.size() == 6);

    fmt::test::TempDir dir;
    fmt::test::write_all(dir.file("t.h5"), {frame});
    fmt::test::write_all(dir.file("t.csv"), {frame});
    fmt::test::write_all(dir.file("t.vtk"), {frame});

    SUBCASE("openPMD HDF5: the dataset stress/<component>") {
        fmt::h5::Id file(H5Fopen(dir.file("t.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        REQUIRE(file.valid());
        for (const auto& c : names) {
            fmt::h5::Id ds(H5Dopen2(file, ("/data/7/particles/fluid/stress/" + c).c_str(), H5P_DEFAULT));
            REQUIRE(ds.valid());
            std::vector<float> v(n);
            REQUIRE(H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
            for (std::size_t i = 0; i < n; ++i) CHECK_MESSAGE(v[i] == expected(i, c), "stress/" << c << " row " << i);
        }
    }
    SUBCASE("XDMF: the joined dataset's columns in XDMF's Tensor6 order") {
        fmt::h5::Id file(H5Fopen(dir.file("t.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        REQUIRE(file.valid());
        fmt::h5::Id ds(H5Dopen2(file, fmt::xdmf_joined_path(7, "fluid", "stress").c_str(), H5P_DEFAULT));
        REQUIRE(ds.valid());
        const auto order = fmt::xdmf_component_order(6);
        REQUIRE(order == std::vector<std::string>{"xx", "xy", "xz", "yy", "yz", "zz"});
        std::vector<float> v(n * 6);
        REQUIRE(H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t k = 0; k < 6; ++k)
                CHECK_MESSAGE(v[i * 6 + k] == expected(i, order[k]), "XDMF stress column " << order[k] << " row " << i);
    }
    SUBCASE("CSV: the header field stress_<component>") {
        std::ifstream in(dir.file("t.csv"));
        std::string line;
        std::vector<std::vector<std::string>> rows;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#') continue;
            std::vector<std::string> fields;
            std::stringstream s(line);
            for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
            rows.push_back(fields);
        }
        REQUIRE(rows.size() == n + 1);
        for (const auto& c : names) {
            const auto at = std::find(rows[0].begin(), rows[0].end(), "stress_" + c);
            REQUIRE(at != rows[0].end());
            const auto k = std::size_t(at - rows[0].begin());
            for (std::size_t i = 0; i < n; ++i)
                CHECK_MESSAGE(std::stof(rows[i + 1][k]) == expected(i, c), "stress_" << c << " row " << i);
        }
    }
    SUBCASE("VTK: the FIELD array's components in the order SPEC.md names them") {
        const auto file = fmt::test::read_bytes(dir.file("t.vtk"));
        const std::string text(file.begin(), file.end());
        const std::string header = "\nstress 6 " + std::to_string(n) + " float\n";
        const auto at = text.find(header);
        REQUIRE(at != std::string::npos);
        const unsigned char* p = file.data() + at + header.size();
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t k = 0; k < 6; ++k) {
                std::uint32_t bits = 0;  // big-endian binary32
                for (int b = 0; b < 4; ++b) bits = (bits << 8) | p[(i * 6 + k) * 4 + std::size_t(b)];
                float v;
                std::memcpy(&v, &bits, 4);
                CHECK_MESSAGE(v == expected(i, names[k]), "stress component " << k << " (" << names[k] << ") row " << i);
            }
    }
}
