#include <doctest/doctest.h>

#include <hdf5.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>

#include "formats/openpmd/h5_util.hpp"
#include "formats/patches.hpp"
#include "formats/reader.hpp"
#include "sample_frames.hpp"

using namespace partikel;
using namespace partikel::fmt;
using namespace partikel::fmt::test;

namespace {

std::vector<Frame> three_frames() {
    return {every_type_frame(0, 100), every_type_frame(20, 7), every_type_frame(10, 0)};
}

std::string text_of(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Filters of a dataset, by id.
std::vector<H5Z_filter_t> filters_of(hid_t file, const char* path) {
    h5::Id ds(H5Dopen2(file, path, H5P_DEFAULT));
    REQUIRE(ds.valid());
    h5::Id dcpl(H5Dget_create_plist(ds));
    std::vector<H5Z_filter_t> out;
    for (int i = 0; i < H5Pget_nfilters(dcpl); ++i) {
        unsigned flags;
        size_t n = 0;
        out.push_back(H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &n, nullptr, 0, nullptr, nullptr));
    }
    return out;
}

// A 1-D dataset read whole, as `T` (HDF5 converts).
template <class T> std::vector<T> dataset_values(hid_t file, const std::string& path, hid_t memory_type) {
    h5::Id ds(H5Dopen2(file, path.c_str(), H5P_DEFAULT));
    REQUIRE(ds.valid());
    h5::Id space(H5Dget_space(ds));
    std::vector<T> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    REQUIRE(H5Dread(ds, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) >= 0);
    return out;
}

}  // namespace

TEST_CASE("particlePatches: one per recorded patch, each with its particles' box") {
    TempDir dir;
    Frame frame = every_type_frame(5, 10);
    const std::vector<std::uint64_t> rows{4, 0, 6};
    set_patch_rows(frame, "fluid", rows);
    CHECK(patch_rows(frame, frame.group("fluid")) == rows);
    write_all(dir.file("p.h5"), {frame});
    {
        h5::Id file(H5Fopen(dir.file("p.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        REQUIRE(file.valid());
        const std::string patches = "/data/5/particles/fluid/particlePatches/";
        CHECK(dataset_values<std::uint64_t>(file, patches + "numParticles", H5T_NATIVE_UINT64) == rows);
        CHECK(dataset_values<std::uint64_t>(file, patches + "numParticlesOffset", H5T_NATIVE_UINT64) ==
              std::vector<std::uint64_t>{0, 4, 4});
        const Column& position = frame.group("fluid").at("position");
        for (std::uint32_t k = 0; k < 3; ++k) {
            const std::string c = component_names(3)[k];
            const auto low = dataset_values<double>(file, patches + "offset/" + c, H5T_NATIVE_DOUBLE);
            const auto size = dataset_values<double>(file, patches + "extent/" + c, H5T_NATIVE_DOUBLE);
            REQUIRE(low.size() == 3);
            CHECK(low[1] == 0.0);  // the empty patch
            CHECK(size[1] == 0.0);
            for (const auto& [p, begin, end] : {std::tuple{0, 0, 4}, std::tuple{2, 4, 10}}) {
                double lo = 1e300, hi = -1e300;
                for (int i = begin; i < end; ++i) {
                    const double v = position.as_double(std::uint64_t(i), k);
                    CHECK(v >= low[std::size_t(p)]);
                    CHECK(v < low[std::size_t(p)] + size[std::size_t(p)]);
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
                CHECK(low[std::size_t(p)] == lo);  // the smallest box
                CHECK(size[std::size_t(p)] <= (hi - lo) * (1 + 1e-12) + 1e-300);
            }
        }
    }
    // The attribute travels with the frame (HDF5 -> frame -> stream -> frame).
    write_all(dir.file("p.pks"), read_all(dir.file("p.h5")));
    const auto back = read_all(dir.file("p.pks"));
    REQUIRE(back.size() == 1);
    CHECK(patch_rows(back[0], back[0].group("fluid")) == rows);
    // A list that does not describe the group's rows is one patch of the whole group.
    for (const std::vector<double>& wrong : {std::vector<double>{4, 5}, {4, 0.5, 5.5}, {-1, 11}, {}}) {
        frame.attributes["patches.fluid"] = wrong;
        CHECK(patch_rows(frame, frame.group("fluid")) == std::vector<std::uint64_t>{10});
    }
    frame.attributes["patches.fluid"] = std::string("4 6");
    CHECK(patch_rows(frame, frame.group("fluid")) == std::vector<std::uint64_t>{10});
    write_all(dir.file("q.h5"), {frame});
    h5::Id file(H5Fopen(dir.file("q.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    CHECK(dataset_values<std::uint64_t>(file, "/data/5/particles/fluid/particlePatches/numParticles", H5T_NATIVE_UINT64) ==
          std::vector<std::uint64_t>{10});
}

TEST_CASE("stream -> openPMD HDF5 -> stream is bit-identical (groupBased)") {
    TempDir dir;
    const auto frames = three_frames();
    write_all(dir.file("a.pks"), frames);
    write_all(dir.file("a.h5"), read_all(dir.file("a.pks")));
    write_all(dir.file("b.pks"), read_all(dir.file("a.h5")));
    const auto back = read_all(dir.file("b.pks"));
    // HDF5 lists iterations by step: 0, 10, 20.
    REQUIRE(back.size() == 3);
    CHECK(difference(frames[0], back[0]) == "");
    CHECK(difference(frames[2], back[1]) == "");
    CHECK(difference(frames[1], back[2]) == "");
    auto reader = open_reader(dir.file("a.h5"));
    CHECK(reader->encoding() == Encoding::hdf5);
    CHECK(reader->frame_count() == std::optional<std::uint64_t>(3));
    REQUIRE(reader->seek_frame(2));
    CHECK(reader->next()->step == 20);
}

TEST_CASE("fileBased series, zstd filter 32015 and no compression round trip") {
    TempDir dir;
    const auto frames = three_frames();
    SUBCASE("fileBased") {
        WriterOptions o;
        o.hdf5_file_based = true;
        write_all(dir.file("run.h5"), frames, o);
        CHECK(std::filesystem::exists(dir.file("run_000000.h5")));
        CHECK(std::filesystem::exists(dir.file("run_000020.h5")));
        CHECK(std::filesystem::exists(dir.file("run.xmf")));
        const auto back = read_all(dir.file("run_%T.h5"));
        REQUIRE(back.size() == 3);
        CHECK(difference(frames[1], back[2]) == "");
        const auto one = read_all(dir.file("run_000010.h5"));
        REQUIRE(one.size() == 1);
        CHECK(difference(frames[2], one[0]) == "");
        h5::Id file(H5Fopen(dir.file("run_000020.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        CHECK(h5::read_string(file, "iterationEncoding") == "fileBased");
        CHECK(h5::read_string(file, "iterationFormat") == "run_%T.h5");
    }
    SUBCASE("zstd") {
        WriterOptions o;
        o.hdf5_compression = WriterOptions::Hdf5Compression::zstd;
        o.hdf5_level = 5;
        write_all(dir.file("z.h5"), frames, o);
        const auto back = read_all(dir.file("z.h5"));
        REQUIRE(back.size() == 3);
        CHECK(difference(frames[0], back[0]) == "");
        h5::Id file(H5Fopen(dir.file("z.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        CHECK(filters_of(file, "/data/0/particles/fluid/velocity/y") == std::vector<H5Z_filter_t>{H5Z_FILTER_SHUFFLE, 32015, H5Z_FILTER_FLETCHER32});
    }
    SUBCASE("uncompressed") {
        WriterOptions o;
        o.hdf5_compression = WriterOptions::Hdf5Compression::none;
        write_all(dir.file("n.h5"), frames, o);
        const auto back = read_all(dir.file("n.h5"));
        REQUIRE(back.size() == 3);
        CHECK(difference(frames[0], back[0]) == "");
        h5::Id file(H5Fopen(dir.file("n.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        CHECK(filters_of(file, "/data/0/particles/fluid/kind") == std::vector<H5Z_filter_t>{H5Z_FILTER_FLETCHER32});
    }
}

TEST_CASE("the file follows openPMD 1.1.0") {
    TempDir dir;
    write_all(dir.file("o.h5"), {every_type_frame(5, 10)});
    h5::Id file(H5Fopen(dir.file("o.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    REQUIRE(file.valid());
    CHECK(h5::read_string(file, "openPMD") == "1.1.0");
    CHECK(h5::read_u64(file, "openPMDextension") == 0u);
    CHECK(h5::read_string(file, "basePath") == "/data/%T/");
    CHECK(h5::read_string(file, "particlesPath") == "particles/");
    CHECK(h5::read_string(file, "iterationEncoding") == "groupBased");
    CHECK(h5::read_string(file, "iterationFormat") == "/data/%T/");
    CHECK(h5::read_string(file, "software") == "Partikel");
    CHECK(h5::has_attribute(file, "softwareVersion"));
    CHECK(h5::read_string(file, "date")->size() == 25);
    h5::Id it(H5Gopen2(file, "/data/5", H5P_DEFAULT));
    CHECK(h5::read_f64(it, "time") == 0.125 * 5 + 1e-17);
    CHECK(h5::read_f64(it, "timeUnitSI") == 1e-3);
    CHECK(h5::read_string(it, "program") == "unit-test");
    h5::Id vel(H5Gopen2(file, "/data/5/particles/fluid/velocity", H5P_DEFAULT));
    CHECK(h5::read_f64_array(vel, "unitDimension") == std::vector<double>{1, 0, -1, 0, 0, 0, 0});
    CHECK(h5::has_attribute(vel, "timeOffset"));
    h5::Id vx(H5Dopen2(file, "/data/5/particles/fluid/velocity/x", H5P_DEFAULT));
    CHECK(h5::read_f64(vx, "unitSI") == 1.0);
    h5::Id id(H5Dopen2(file, "/data/5/particles/fluid/id", H5P_DEFAULT));
    h5::Id id_type(H5Dget_type(id));
    CHECK(H5Tequal(id_type, H5T_STD_U64LE) > 0);
    CHECK(h5::read_f64_array(id, "unitDimension") == std::vector<double>(7, 0.0));
    h5::Id offset(H5Gopen2(file, "/data/5/particles/fluid/positionOffset/x", H5P_DEFAULT));
    CHECK(h5::read_f64(offset, "value") == 0.0);
    CHECK(h5::read_u64(offset, "shape") == 10u);
    // The HDF5 1.10 format, whose metadata carry checksums (SPEC.md §3.4).
    h5::Id fapl(H5Fget_access_plist(file));
    H5F_libver_t low{}, high{};
    REQUIRE(H5Pget_libver_bounds(fapl, &low, &high) >= 0);
    unsigned superblock = 0;
    h5::Id fcpl(H5Fget_create_plist(file));
    REQUIRE(H5Pget_version(fcpl, &superblock, nullptr, nullptr, nullptr) >= 0);
    CHECK(superblock == 3);
    h5::Id stress(H5Gopen2(file, "/data/5/particles/fluid/stress", H5P_DEFAULT));
    CHECK(h5::link_names(stress) == std::vector<std::string>{"xx", "yy", "zz", "yz", "xz", "xy"});
    CHECK(filters_of(file, "/data/5/particles/fluid/kind") == std::vector<H5Z_filter_t>{H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32});
    CHECK(filters_of(file, "/data/5/particles/fluid/velocity/z") == std::vector<H5Z_filter_t>{H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32});
    const std::string xmf = text_of(dir.file("o.xmf"));
    CHECK(xmf.find("<Grid Name=\"fluid\" GridType=\"Collection\" CollectionType=\"Temporal\">") != std::string::npos);
    CHECK(xmf.find("TopologyType=\"Polyvertex\" NumberOfElements=\"10\"") != std::string::npos);
    // Cells for the Xdmf3 readers: the first 10 of the file's vertex indices 0, 1, ...
    CHECK(xmf.find("<DataItem ItemType=\"HyperSlab\" Dimensions=\"10\">") != std::string::npos);
    CHECK(xmf.find("Dimensions=\"10\" NumberType=\"UInt\" Precision=\"4\">o.h5:/xdmf/vertices<") != std::string::npos);
    CHECK(dataset_values<std::uint64_t>(file, "/xdmf/vertices", H5T_NATIVE_UINT64) ==
          std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    CHECK(xmf.find("Dimensions=\"10 3\" NumberType=\"Float\" Precision=\"4\">o.h5:/xdmf/5/fluid/position<") != std::string::npos);
    CHECK(xmf.find("AttributeType=\"Tensor6\"") != std::string::npos);
    CHECK(xmf.find("X_Y_Z") == std::string::npos);  // the Xdmf3 readers know no X_Y_Z geometry
    CHECK(xmf.find("JOIN") == std::string::npos);   // nor JOIN functions
    // The joined position is a virtual dataset over position/x, y, z: no second copy.
    h5::Id joined(H5Dopen2(file, "/xdmf/5/fluid/position", H5P_DEFAULT));
    REQUIRE(joined.valid());
    h5::Id joined_dcpl(H5Dget_create_plist(joined));
    CHECK(H5Pget_layout(joined_dcpl) == H5D_VIRTUAL);
    std::vector<float> xyz(30), x(10);
    REQUIRE(H5Dread(joined, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, xyz.data()) >= 0);
    h5::Id px(H5Dopen2(file, "/data/5/particles/fluid/position/x", H5P_DEFAULT));
    REQUIRE(H5Dread(px, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data()) >= 0);
    for (std::size_t i = 0; i < 10; ++i) CHECK(xyz[3 * i] == x[i]);
}

TEST_CASE("openPMD constant components and positionOffset from other writers are honoured") {
    TempDir dir;
    write_all(dir.file("c.h5"), {sph_frame(4, 1)});
    {
        // Turn positionOffset/y into 2.0 (in units of 0.5 m) and mass into a constant record.
        h5::Id file(H5Fopen(dir.file("c.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
        h5::Id y(H5Gopen2(file, "/data/1/particles/fluid/positionOffset/y", H5P_DEFAULT));
        H5Adelete(y, "value");
        H5Adelete(y, "unitSI");
        h5::write_f64(y, "value", 2.0);
        h5::write_f64(y, "unitSI", 0.5);
        h5::Id species(H5Gopen2(file, "/data/1/particles/fluid", H5P_DEFAULT));
        h5::Id mass(H5Gcreate2(species, "mass", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        h5::write_f64(mass, "value", 0.001);
        h5::write_u64_array(mass, "shape", {4});
        h5::write_f64(mass, "unitSI", 1.0);
        h5::write_f64_array(mass, "unitDimension", {0, 1, 0, 0, 0, 0, 0});
        // h5py and openPMD-api may write variable-length strings.
        h5::Id it(H5Gopen2(file, "/data/1", H5P_DEFAULT));
        h5::Id type(H5Tcopy(H5T_C_S1));
        H5Tset_size(type, H5T_VARIABLE);
        H5Tset_cset(type, H5T_CSET_UTF8);
        h5::Id space(H5Screate(H5S_SCALAR));
        h5::Id attr(H5Acreate2(it, "comment", type, space, H5P_DEFAULT, H5P_DEFAULT));
        const char* text = "made by h5py";
        REQUIRE(H5Awrite(attr, type, &text) >= 0);
    }
    const auto frames = read_all(dir.file("c.h5"));
    REQUIRE(frames.size() == 1);
    const auto& g = frames[0].group("fluid");
    const auto original = sph_frame(4, 1);
    const auto& p0 = original.group("fluid").at("position");
    CHECK(g.find("positionOffset") == nullptr);
    CHECK(g.at("position").as_double(2, 1) == static_cast<double>(static_cast<float>(p0.as_double(2, 1) + 1.0)));
    CHECK(g.at("position").as_double(2, 0) == p0.as_double(2, 0));
    CHECK(g.at("mass").type() == ScalarType::f64);
    CHECK(g.at("mass").as_double(3) == 0.001);
    CHECK(std::get<std::string>(frames[0].attributes.at("comment")) == "made by h5py");
}

TEST_CASE("HDF5 writer refuses what openPMD cannot hold, and damaged files fail cleanly") {
    TempDir dir;
    auto writer = open_writer(dir.file("d.h5"));
    writer->write(every_type_frame(3, 2));
    CHECK_THROWS_AS(writer->write(every_type_frame(3, 2)), UsageError);
    Frame bad = every_type_frame(4, 2);
    bad.attributes["time"] = 1.0;
    CHECK_THROWS_AS(writer->write(bad), UsageError);
    writer->finish();

    auto bytes = read_bytes(dir.file("d.h5"));
    write_bytes(dir.file("cut.h5"), {bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() / 2)});
    CHECK_THROWS_AS(read_all(dir.file("cut.h5")), FormatError);
    // Damage the middle of the file (dataset chunks and object headers).
    for (std::size_t i = bytes.size() / 3; i < bytes.size() / 3 + 64; ++i) bytes[i] ^= 0xFF;
    write_bytes(dir.file("flip.h5"), bytes);
    // Either HDF5 does not notice (damage in raw bytes it does not check) or a FormatError;
    // a crash or any other error type fails the test.
    try {
        read_all(dir.file("flip.h5"));
    } catch (const FormatError&) {
    }
}

TEST_CASE("an absurd record shape is a FormatError, not an allocation") {
    TempDir dir;
    {
        WriterOptions o;
        o.write_xdmf = false;
        auto writer = open_writer(dir.file("a.h5"), o);
        Frame f;
        f.add_group("fluid", 0);
        writer->write(f);
        writer->finish();
    }
    {
        h5::Id file(H5Fopen(dir.file("a.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
        h5::Id species(H5Gopen2(file, "/data/0/particles/fluid", H5P_DEFAULT));
        H5Adelete(species, "partikel:count");
        h5::Id mass(H5Gcreate2(species, "mass", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        h5::write_f64(mass, "value", 1.0);
        h5::write_u64_array(mass, "shape", {std::uint64_t(1) << 50});
    }
    CHECK_THROWS_WITH_AS(read_all(dir.file("a.h5")), doctest::Contains("more than this machine's memory"), FormatError);
}
