#include "sample_frames.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <random>

namespace partikel::fmt::test {

namespace {

template <class T> void fill(Column& c, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (auto& v : c.values<T>()) {
        if constexpr (std::is_floating_point_v<T>) v = static_cast<T>(std::ldexp(static_cast<double>(rng() >> 11), -40) - 1000.0);
        else v = static_cast<T>(rng());
    }
}

}  // namespace

Frame every_type_frame(std::int64_t step, std::uint64_t particles) {
    Frame f;
    f.step = step;
    f.time = 0.125 * static_cast<double>(step) + 1e-17;
    f.dt = 1.0 / 3.0;
    f.time_unit_si = 1e-3;
    f.attributes["program"] = std::string("unit-test");
    f.attributes["empty"] = std::string();
    f.attributes["seed"] = std::int64_t{-42};
    f.attributes["sph.h"] = 0.015;
    f.attributes["domain.min"] = std::vector<double>{-1.0, 0.0, 2.5};
    f.attributes["one"] = std::vector<double>{7.0};
    f.attributes["none"] = std::vector<double>{};
    auto& fluid = f.add_group("fluid", particles);
    fill<float>(fluid.add_well_known("position"), 1);
    fill<float>(fluid.add_well_known("velocity"), 2);
    fill<std::uint64_t>(fluid.add_well_known("id"), 3);
    fill<std::uint8_t>(fluid.add_well_known("kind"), 4);
    fill<float>(fluid.add_well_known("stress"), 5);
    fill<double>(fluid.add_column("tensor", ScalarType::f64, 9, Unit{{0, 0, 1, 0, 0, 0, 0}, 60.0}), 6);
    fill<std::int32_t>(fluid.add_column("cell", ScalarType::i32, 2), 7);
    fill<std::uint32_t>(fluid.add_column("quad", ScalarType::u32, 4), 8);
    fill<std::int64_t>(fluid.add_column("big", ScalarType::i64, 1, Unit{{1, 0, 0, 0, 0, 0, 0}, 1e-2}), 9);
    auto& boundary = f.add_group("boundary", particles / 2 + 1);
    fill<double>(boundary.add_column("position", ScalarType::f64, 3, Unit{{1, 0, 0, 0, 0, 0, 0}, 1.0}), 10);
    fill<float>(boundary.add_well_known("mass"), 11);
    auto& empty = f.add_group("empty", 0);
    empty.add_well_known("position");
    empty.add_well_known("density");
    f.add_group("bare", 5);
    return f;
}

Frame sph_frame(std::uint64_t n, std::int64_t step) {
    Frame f;
    f.step = step;
    f.time = 0.01 * static_cast<double>(step);
    f.dt = 1e-4;
    auto& g = f.add_group("fluid", n);
    auto pos = g.add_well_known("position").values<float>();
    auto vel = g.add_well_known("velocity").values<float>();
    auto rho = g.add_well_known("density").values<float>();
    auto p = g.add_well_known("pressure").values<float>();
    auto id = g.add_column("id", ScalarType::u32, 1).values<std::uint32_t>();
    // A settled block of water, dx = 1 cm, 100 x 100 columns: lattice positions with small
    // jitter, hydrostatic density and pressure, slow velocities.
    std::mt19937 rng(42);
    std::normal_distribution<float> jitter(0.0f, 1e-4f), slow(0.0f, 1e-3f);
    const float dx = 0.01f, rho0 = 1000.0f, c0 = 30.0f, g_y = 9.81f;
    const std::uint64_t nx = 100, nz = 100;
    const float height = dx * static_cast<float>((n + nx * nz - 1) / (nx * nz));
    for (std::uint64_t i = 0; i < n; ++i) {
        const float x = dx * static_cast<float>(i % nx), z = dx * static_cast<float>((i / nx) % nz),
                    y = dx * static_cast<float>(i / (nx * nz));
        pos[3 * i] = x + jitter(rng);
        pos[3 * i + 1] = y + jitter(rng);
        pos[3 * i + 2] = z + jitter(rng);
        for (int k = 0; k < 3; ++k) vel[3 * i + k] = slow(rng);
        p[i] = rho0 * g_y * (height - y);
        rho[i] = rho0 * std::pow(1.0f + 7.0f * p[i] / (c0 * c0 * rho0), 1.0f / 7.0f);
        id[i] = static_cast<std::uint32_t>(i);
    }
    return f;
}

std::string difference(const Frame& a, const Frame& b) {
    if (a.step != b.step) return "step " + std::to_string(a.step) + " vs " + std::to_string(b.step);
    auto same_bits = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
    if (!same_bits(a.time, b.time)) return "time";
    if (!same_bits(a.dt, b.dt)) return "dt";
    if (!same_bits(a.time_unit_si, b.time_unit_si)) return "time_unit_si";
    if (a.attributes != b.attributes) return "attributes";
    if (a.groups().size() != b.groups().size()) return "group count";
    for (std::size_t g = 0; g < a.groups().size(); ++g) {
        const auto& ga = a.groups()[g];
        const auto& gb = b.groups()[g];
        const std::string where = "group " + ga.name() + ": ";
        if (ga.name() != gb.name()) return "group name " + ga.name() + " vs " + gb.name();
        if (ga.count() != gb.count()) return where + "count";
        if (ga.columns().size() != gb.columns().size()) return where + "column count";
        for (std::size_t c = 0; c < ga.columns().size(); ++c) {
            const auto& ca = ga.columns()[c];
            const auto& cb = gb.columns()[c];
            if (ca.name() != cb.name()) return where + "column name " + ca.name() + " vs " + cb.name();
            if (ca.type() != cb.type()) return where + ca.name() + ": type";
            if (ca.components() != cb.components()) return where + ca.name() + ": components";
            if (!(ca.unit() == cb.unit())) return where + ca.name() + ": unit";
            if (ca.bytes() != cb.bytes() || (ca.bytes() > 0 && std::memcmp(ca.raw().data(), cb.raw().data(), ca.bytes()) != 0))
                return where + ca.name() + ": values";
        }
    }
    return {};
}

TempDir::TempDir() {
    static int counter = 0;
    // Memory-backed when possible: the corruption tests write a thousand small files.
    const std::filesystem::path base = std::filesystem::is_directory("/dev/shm") ? std::filesystem::path("/dev/shm")
                                                                                 : std::filesystem::temp_directory_path();
    path_ = base /
            ("partikel-formats-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::vector<unsigned char> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

bool TrackedMemory::wants(std::string_view, std::string_view column) const { return column != "id"; }

std::byte* TrackedMemory::allocate(std::size_t bytes) {
    auto* p = static_cast<std::byte*>(::operator new(bytes));
    std::memset(p, 0xA5, bytes);
    const std::lock_guard lock(mutex_);
    blocks_.emplace_back(p, bytes);
    ++handed_out_;
    return p;
}

void TrackedMemory::deallocate(std::byte* pointer, std::size_t bytes) noexcept {
    {
        const std::lock_guard lock(mutex_);
        const auto it = std::find(blocks_.begin(), blocks_.end(), std::pair{pointer, bytes});
        if (it == blocks_.end()) std::abort();  // not ours, or not with the size it was given
        blocks_.erase(it);
    }
    ::operator delete(pointer);
}

bool TrackedMemory::holds(const void* pointer) const {
    const std::lock_guard lock(mutex_);
    const auto* p = static_cast<const std::byte*>(pointer);
    return std::any_of(blocks_.begin(), blocks_.end(), [&](const auto& b) { return p >= b.first && p < b.first + b.second; });
}

std::size_t TrackedMemory::live() const {
    const std::lock_guard lock(mutex_);
    return blocks_.size();
}

std::pair<std::vector<Frame>, std::string> read_outcome(const std::string& path, std::shared_ptr<ColumnMemory> memory) {
    std::vector<Frame> frames;
    try {
        auto reader = open_reader(path, std::move(memory));
        while (auto f = reader->next()) frames.push_back(std::move(*f));
        return {std::move(frames), ""};
    } catch (const FormatError& e) {
        return {{}, e.what()};
    } catch (const IoError& e) {
        return {{}, e.what()};
    }
}

std::string read_both_ways(const std::string& path, std::vector<Frame>* frames) {
    const auto plain = read_outcome(path, nullptr);
    const auto memory = std::make_shared<TrackedMemory>();
    {
        const auto provided = read_outcome(path, memory);
        REQUIRE(provided.second == plain.second);
        REQUIRE(provided.first.size() == plain.first.size());
        for (std::size_t i = 0; i < plain.first.size(); ++i) {
            REQUIRE(difference(provided.first[i], plain.first[i]) == "");
            for (const Group& g : provided.first[i].groups())
                for (const Column& c : g.columns())
                    if (c.bytes() > 0) REQUIRE(memory->holds(c.raw().data()) == memory->wants(g.name(), c.name()));
        }
    }
    REQUIRE(memory->live() == 0);  // every block came back, on the error path too
    if (frames) *frames = plain.first;
    return plain.second;
}

std::vector<Frame> read_all(const std::string& path) {
    auto reader = open_reader(path);
    std::vector<Frame> frames;
    while (auto f = reader->next()) frames.push_back(std::move(*f));
    return frames;
}

void write_all(const std::string& path, const std::vector<Frame>& frames, WriterOptions options) {
    auto writer = open_writer(path, options);
    for (const auto& f : frames) writer->write(f);
    writer->finish();
}

}  // namespace partikel::fmt::test
