// Particle format benchmark (not a test): a settled SPH block of N particles (position and
// velocity f32x3, density, pressure f32, id u32) written and read as the stream format at
// several zstd levels, raw, through the `zstd` command-line tool on the same raw bytes, and
// as openPMD HDF5 with gzip. Prints a Markdown table (docs/PERFORMANCE.md) and appends JSON
// lines with --json.
//
//   bench_format --particles 10000000 --dir /dev/shm --json format.jsonl
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "base/log.hpp"
#include "bench_program.hpp"
#include "base/io.hpp"
#include "formats/reader.hpp"
#include "partikel_config.hpp"

using namespace partikel;
using namespace partikel::fmt;

namespace {

// A block of water at rest, dx = 1 cm, 100 x 100 particles per layer: lattice positions with
// 0.1 mm jitter, hydrostatic pressure and Tait density, velocities of about 1 mm/s.
Frame sph_block(std::uint64_t n) {
    Frame f;
    f.step = 1000;
    f.time = 1.0;
    f.dt = 1e-4;
    auto& g = f.add_group("fluid", n);
    auto pos = g.add_well_known("position").values<float>();
    auto vel = g.add_well_known("velocity").values<float>();
    auto rho = g.add_well_known("density").values<float>();
    auto p = g.add_well_known("pressure").values<float>();
    auto id = g.add_column("id", ScalarType::u32, 1).values<std::uint32_t>();
    const float dx = 0.01f, rho0 = 1000.0f, c0 = 30.0f, gravity = 9.81f;
    const std::uint64_t layer = 100 * 100;
    const float height = dx * static_cast<float>((n + layer - 1) / layer);
#pragma omp parallel
    {
        std::mt19937 rng(1234 + omp_get_thread_num());
        std::normal_distribution<float> jitter(0.0f, 1e-4f), slow(0.0f, 1e-3f);
#pragma omp for schedule(static)
        for (std::int64_t ii = 0; ii < static_cast<std::int64_t>(n); ++ii) {
            const auto i = static_cast<std::uint64_t>(ii);
            const float x = dx * static_cast<float>(i % 100), z = dx * static_cast<float>((i / 100) % 100),
                        y = dx * static_cast<float>(i / layer);
            pos[3 * i] = x + jitter(rng);
            pos[3 * i + 1] = y + jitter(rng);
            pos[3 * i + 2] = z + jitter(rng);
            for (int k = 0; k < 3; ++k) vel[3 * i + k] = slow(rng);
            p[i] = rho0 * gravity * (height - y);
            rho[i] = rho0 * std::pow(1.0f + 7.0f * p[i] / (c0 * c0 * rho0), 1.0f / 7.0f);
            id[i] = static_cast<std::uint32_t>(i);
        }
    }
    return f;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Row {
    std::string method;
    std::uint64_t bytes;
    double write_s;
    double read_s;
};

// Best of `repeat` runs of `f`, in seconds.
template <class F> double best_of(int repeat, F&& f) {
    double best = 1e300;
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, seconds_since(t0));
    }
    return best;
}

Row run_writer(const std::string& method, const std::string& path, const Frame& frame, const WriterOptions& o, int repeat) {
    Row row{method, 0, 0, 0};
    row.write_s = best_of(repeat, [&] {
        auto w = open_writer(path, o);
        w->write(frame);
        w->finish();
    });
    row.bytes = std::filesystem::file_size(path);
    row.read_s = best_of(repeat, [&] {
        auto r = open_reader(path);
        auto f = r->next();
        if (!f || f->particle_count() != frame.particle_count()) throw Error(path + ": read back the wrong frame");
    });
    return row;
}

int shell(const std::string& command) {
    const int rc = std::system(command.c_str());
    if (rc != 0) throw Error("command failed: " + command);
    return rc;
}

}  // namespace

int main(int argc, char** argv) {
    bench::BenchProgram tool("bench_format", "Particle format benchmark: stream format vs raw, zstd CLI and HDF5 gzip");
    std::uint64_t particles = 10'000'000;
    std::string dir = ".", zstd_cli = "zstd";
    int repeat = 2;
    bool skip_hdf5 = false, keep = false;
    tool.app().add_option("--particles", particles, "Particles in the frame")->capture_default_str();
    tool.app().add_option("--dir", dir, "Where to write the files (a tmpfs such as /dev/shm keeps the disk out)")->capture_default_str();
    tool.app().add_option("--repeat", repeat, "Runs per measurement; the best is kept")->capture_default_str();
    tool.app().add_flag("--no-hdf5", skip_hdf5, "Skip the (slow) HDF5 gzip measurement");
    tool.app().add_flag("--keep", keep, "Keep the files written (bench_format_*.pks, *.h5 in --dir)");
    tool.app().add_option("--zstd-cli", zstd_cli, "The zstd program to compare with")->capture_default_str();
    return tool.run(argc, argv, [&]() {
        const int threads = omp_get_max_threads();
        const Frame frame = sph_block(particles);
        const std::uint64_t raw = frame.payload_bytes();
        std::vector<Row> rows;
        const std::string base = dir + "/bench_format";

        // Raw: the column bytes as they are in memory, one write() each.
        {
            Row row{"raw column bytes (write/read)", raw, 0, 0};
            row.write_s = best_of(repeat, [&] {
                auto out = OutputStream::open(base + ".raw", true, true);
                for (const auto& c : frame.groups()[0].columns()) out->write(c.raw());
                out->commit();
            });
            row.read_s = best_of(repeat, [&] {
                Frame back;
                auto& g = back.add_group("fluid", particles);
                auto in = InputStream::open(base + ".raw");
                for (const auto& c : frame.groups()[0].columns()) {
                    auto& dst = g.add_column(c.name(), c.type(), c.components(), c.unit());
                    in->read_exact(dst.raw().data(), dst.bytes(), "raw column");
                }
            });
            rows.push_back(row);
        }
        WriterOptions stored;
        stored.compress = false;
        stored.filters = false;
        stored.threads = threads;
        rows.push_back(run_writer("stream, uncompressed (checksummed)", base + "_stored.pks", frame, stored, repeat));
        for (int level : {1, 3, 9}) {
            WriterOptions o;
            o.zstd_level = level;
            o.threads = threads;
            rows.push_back(run_writer("stream, shuffle + zstd -" + std::to_string(level), base + "_" + std::to_string(level) + ".pks", frame, o, repeat));
        }
        {
            WriterOptions o;
            o.zstd_level = 1;
            o.filters = false;
            o.threads = threads;
            rows.push_back(run_writer("stream, zstd -1, no shuffle", base + "_noshuffle.pks", frame, o, repeat));
        }
        for (int level : {1, 3}) {
            Row row{"`zstd -" + std::to_string(level) + " -T0` on the raw bytes", 0, 0, 0};
            row.write_s = best_of(repeat, [&] { shell(zstd_cli + " -q -f -" + std::to_string(level) + " -T0 " + base + ".raw -o " + base + ".raw.zst"); });
            row.bytes = std::filesystem::file_size(base + ".raw.zst");
            row.read_s = best_of(repeat, [&] { shell(zstd_cli + " -q -f -d -T0 " + base + ".raw.zst -o " + base + ".raw.out"); });
            rows.push_back(row);
        }
        if (!skip_hdf5) {
            WriterOptions o;
            o.write_xdmf = false;
            rows.push_back(run_writer("openPMD HDF5, shuffle + gzip -4", base + "_gzip.h5", frame, o, 1));
            o.hdf5_compression = WriterOptions::Hdf5Compression::zstd;
            o.hdf5_level = 1;
            rows.push_back(run_writer("openPMD HDF5, shuffle + zstd -1 (filter 32015)", base + "_zstd.h5", frame, o, 1));
        }
        if (!keep)
            for (const auto& ext : {".raw", ".raw.zst", ".raw.out", "_stored.pks", "_1.pks", "_3.pks", "_9.pks", "_noshuffle.pks", "_gzip.h5", "_zstd.h5"})
                std::filesystem::remove(base + ext);

        std::printf("%llu particles, %.1f MB of columns, %d threads, files in %s\n\n", static_cast<unsigned long long>(particles),
                    static_cast<double>(raw) / 1e6, threads, dir.c_str());
        std::printf("| method | bytes | ratio | write MB/s | read MB/s |\n|---|---:|---:|---:|---:|\n");
        std::ofstream json;
        if (!tool.json_path().empty()) json.open(tool.json_path(), std::ios::app);
        for (const auto& r : rows) {
            const double wmbs = static_cast<double>(raw) / r.write_s / 1e6, rmbs = static_cast<double>(raw) / r.read_s / 1e6;
            std::printf("| %s | %llu | %.2f | %.0f | %.0f |\n", r.method.c_str(), static_cast<unsigned long long>(r.bytes),
                        static_cast<double>(raw) / static_cast<double>(r.bytes), wmbs, rmbs);
            if (json)
                json << "{\"bench\":\"format\",\"method\":\"" << r.method << "\",\"particles\":" << particles << ",\"raw_bytes\":" << raw
                     << ",\"bytes\":" << r.bytes << ",\"write_s\":" << r.write_s << ",\"read_s\":" << r.read_s << ",\"threads\":" << threads
                     << ",\"commit\":\"" << PARTIKEL_GIT_COMMIT << "\"}\n";
        }
        return 0;
    });
}
