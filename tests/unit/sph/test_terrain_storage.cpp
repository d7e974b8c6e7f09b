// A terrain's heights travel once per file (the held group "terrain", formats/held.hpp): 20
// frames of a run over a 1024 x 1024 terrain make a file that grows by the particles only, and
// every frame read back -- in order or as a restart's start frame -- has the whole terrain.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "formats/reader.hpp"
#include "run/start_frame.hpp"
#include "sph/io/frame_io.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

struct ScratchFile {
    std::string path;
    explicit ScratchFile(const std::string& name)
        : path((std::filesystem::temp_directory_path() / ("pk_terrain_storage_" + name)).string()) {}
    ~ScratchFile() { std::filesystem::remove(path); }
};

HeightField terrain_1024() {
    HeightField t;
    t.nx = t.nz = 1024;
    t.cell_m = 0.25f;
    std::uint32_t state = 2463534242u;  // xorshift roughness: heights that do not compress away
    for (int k = 0; k < t.nz; ++k)
        for (int i = 0; i < t.nx; ++i) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            t.height_m.push_back(0.05f * float(i) + 0.02f * float(k) + 0.002f * float(state >> 20));
        }
    return t;
}

// 20 frames of 2000 particles moving, written to `path`; the file's size.
std::uintmax_t write_run(const std::string& path, const SphParams& params) {
    ParticleSet set;
    for (int i = 0; i < 2000; ++i)
        set.add({0.01f * float(i), 1.0f + 0.001f * float(i % 7), 0.5f}, {0.0f, 0.0f, 0.0f}, 1000.0f, 1e-3f,
                ParticleKind::fluid);
    auto writer = fmt::open_writer(path);
    for (int frame = 0; frame < 20; ++frame) {
        for (std::size_t i = 0; i < set.size(); ++i) set.position[i].y -= 0.013f * float(i % 5 + 1);
        writer->write(make_frame(set, params, frame * 10, 0.01 * frame, 1e-3));
    }
    writer->finish();
    return std::filesystem::file_size(path);
}

}  // namespace

TEST_CASE("20 frames over a 1024^2 terrain: the file grows by the particles only, every frame has the terrain") {
    SphParams with;
    with.domain_max = {256.0f, 100.0f, 256.0f};
    with.terrain = terrain_1024();
    SphParams without = with;
    without.terrain = {};
    for (const char* ext : {"pks", "h5"}) {
        CAPTURE(std::string(ext));
        ScratchFile a(std::string("with.") + ext), b(std::string("without.") + ext);
        const auto bytes_with = write_run(a.path, with), bytes_without = write_run(b.path, without);
        // One copy of the heights: 4 MiB raw, stored compressed; 20 copies would be 20 times it.
        const double terrain_once = double(bytes_with) - double(bytes_without);
        MESSAGE(std::string(ext) << ": 20 frames " << bytes_without << " bytes without the terrain, " << bytes_with
                    << " with it (+" << terrain_once << ", the 4 MiB of heights once)");
        CHECK(terrain_once > 0.5 * 4.0 * (1 << 20));
        CHECK(terrain_once < 1.1 * 4.0 * (1 << 20) + 20 * 512);
        auto reader = fmt::open_reader(a.path);
        int frames = 0;
        while (auto f = reader->next()) {
            const SimulationFrame s = read_frame(*f);
            CHECK(s.params.terrain.height_m == with.terrain.height_m);
            ++frames;
        }
        CHECK(frames == 20);
        for (const std::int64_t start : {13, -1}) {
            const SimulationFrame s = read_frame(run::read_start_frame(a.path, start));
            CHECK(s.params.terrain.height_m == with.terrain.height_m);
            CHECK(s.params.terrain.nx == 1024);
        }
    }
}
