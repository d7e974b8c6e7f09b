// Core primitives on one backend: the memory-bandwidth ceiling (device-to-device copy, bytes
// read + written), radix sort of (u32 key, u32 value) pairs, exclusive scan and a float->double
// sum. Medians of repeated runs after a warm-up, timed with DeviceTimer (CUDA events on GPU).
//
//   bench_core --device cuda --sizes 1000000,16000000 --json out.jsonl
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "base/log.hpp"
#include "bench_program.hpp"
#include "core/algorithms.hpp"
#include "core/buffer.hpp"
#include "core/timer.hpp"
#include "partikel_config.hpp"

using namespace partikel;

int main(int argc, char** argv) {
    bench::BenchProgram tool("bench_core", "Benchmark core primitives (copy, sort, scan, reduce)");
    std::vector<std::size_t> sizes = {1u << 20, 1u << 24, 1u << 26};
    int repeats = 20;
    tool.app().add_option("--sizes", sizes, "Item counts")->delimiter(',');
    tool.app().add_option("--repeats", repeats, "Timed repetitions (median reported)");
    return tool.run(argc, argv, [&]() {
        Backend b = tool.open_backend();
        std::ofstream json;
        if (!tool.json_path().empty()) json.open(tool.json_path(), std::ios::app);
        std::printf("# %s, commit %s\n", b.describe().c_str(), PARTIKEL_GIT_COMMIT);
        std::printf("%-22s %12s %12s %14s\n", "primitive", "items", "median_ms", "GB/s or Mitems/s");
        auto report = [&](const char* name, std::size_t n, double s, double bytes) {
            double rate = bytes > 0 ? bytes / s / 1e9 : n / s / 1e6;
            std::printf("%-22s %12zu %12.4f %14.2f%s\n", name, n, 1e3 * s, rate, bytes > 0 ? " GB/s" : " Mitems/s");
            if (json)
                json << "{\"bench\":\"core\",\"primitive\":\"" << name << "\",\"items\":" << n << ",\"seconds\":" << s
                     << ",\"rate\":" << rate << ",\"unit\":\"" << (bytes > 0 ? "GB/s" : "Mitems/s")
                     << "\",\"device\":" << json_quote(b.describe()) << ",\"commit\":\"" << PARTIKEL_GIT_COMMIT
                     << "\"}\n";
        };
        for (std::size_t n : sizes) {
            std::vector<std::uint32_t> host(n);
            std::mt19937 rng(1);
            for (auto& k : host) k = rng();
            DeviceBuffer<std::uint32_t> keys(b, n), keys_out(b, n), values(b, n), values_out(b, n);
            keys.copy_from_host(host);
            values.copy_from_host(host);
            double s = median_device_seconds(b, repeats, [&] {
                copy_bytes(b, keys_out.data(), keys.data(), n * 4, CopyDirection::device_to_device, true);
            });
            report("copy (read+write)", n, s, 2.0 * 4.0 * n);
            Workspace ws(b, std::max({sort_pairs_scratch_bytes<std::uint32_t>(b, n),
                                      exclusive_sum_scratch_bytes<std::uint32_t>(b, n),
                                      reduce_scratch_bytes<float, double>(b, n)}));
            s = median_device_seconds(b, repeats, [&] {
                sort_pairs<std::uint32_t>(b, ws, keys.data(), keys_out.data(), values.data(), values_out.data(), n);
            });
            report("sort_pairs u32/u32", n, s, 0);
            s = median_device_seconds(b, repeats, [&] {
                sort_pairs<std::uint32_t>(b, ws, keys.data(), keys_out.data(), values.data(), values_out.data(), n, 0, 20);
            });
            report("sort_pairs 20 bits", n, s, 0);
            s = median_device_seconds(b, repeats, [&] { exclusive_sum<std::uint32_t>(b, ws, keys.data(), keys_out.data(), n); });
            report("exclusive_sum u32", n, s, 2.0 * 4.0 * n);
            DeviceBuffer<double> sum(b, 1);
            s = median_device_seconds(b, repeats, [&] {
                reduce<float, double>(b, ws, ReduceKind::sum, reinterpret_cast<const float*>(keys.data()), n, sum.data());
            });
            report("reduce f32->f64 sum", n, s, 4.0 * n);
        }
        return 0;
    });
}
