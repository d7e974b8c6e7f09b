// The snow models on Sandvik (2021)'s pool benchmark (section 6.3, Table 6.2): sph-init pool at
// 256k ... 4096k particles (h = 0.6 m, particles h apart), the Newtonian and the Bingham model,
// iterations (steps) per second with no output, beside the thesis's RTX 3090 figures. Per size
// and model: warm-up steps, timed steps (wall time, one device synchronisation at the end; each
// step synchronises anyway to read back dt and the status), then the same steps with per-phase
// device timing.
//
//   bench_snow --device cuda --sizes 256000,512000,1024000,2048000,4096000 --json snow.jsonl
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "step_timing.hpp"
#include "base/log.hpp"
#include "partikel_config.hpp"
#include "sph/io/scenes.hpp"
#include "sph/solver.hpp"

using namespace partikel;

int main(int argc, char** argv) {
    bench::BenchProgram tool("bench_snow", "Benchmark the snow models on Sandvik (2021)'s pool (iterations per second)");
    std::vector<long long> sizes{256000, 512000, 1024000, 2048000, 4096000};
    std::vector<std::string> models{"newtonian-muller", "bingham"};
    std::vector<int> subdivisions{-1};
    int steps = 100, warmup = 20;
    tool.app().add_option("--sizes", sizes, "Particle counts")->delimiter(',');
    tool.app().add_option("--models", models, "Snow models")->delimiter(',');
    tool.app()
        .add_option("--subdivisions", subdivisions, "Grid cells of edge h / 2^k, each k in turn (-1: the solver's default)")
        ->delimiter(',');
    tool.app().add_option("--steps", steps, "Timed steps");
    tool.app().add_option("--warmup", warmup, "Untimed steps first");
    return tool.run(argc, argv, [&]() {
        Backend b = tool.open_backend();
        std::ofstream json;
        if (!tool.json_path().empty()) json.open(tool.json_path(), std::ios::app);
        for (const std::string& model : models)
            for (long long n : sizes)
                for (int k : subdivisions) {
                sph::SceneOptions o;
                o.particles = n;
                o.model = model;
                const sph::Scene scene = sph::make_scene("pool", o);
                sph::Solver solver(b, scene.params, scene.particles, 0, 0.0, {.grid_subdivision = k});
                const double step_s = bench::mean_step_seconds(b, solver, warmup, steps);
                sph::Solver profiled(b, scene.params, solver.download(), solver.step_count(), solver.time(),
                                     {.profile = true, .grid_subdivision = k}, solver.download_previous());
                for (int i = 0; i < steps; ++i) profiled.step();
                std::printf("\npool %s: %lld particles, subdivision %d: %.3f ms/step, %.1f it/s, %.1f M particle-steps/s, %.0f B/particle\n",
                            model.c_str(), n, k, 1e3 * step_s, 1.0 / step_s, double(n) / step_s * 1e-6,
                            double(solver.device_bytes()) / double(n));
                std::printf("%s", profiled.profile().report().c_str());
                if (json)
                    json << "{\"bench\":\"snow\",\"model\":\"" << model << "\",\"particles\":" << n
                         << ",\"subdivision\":" << k << ",\"step_seconds\":" << step_s << ",\"iterations_per_s\":" << 1.0 / step_s
                         << ",\"phases\":" << profiled.profile().report_json() << ",\"device\":" << json_quote(b.describe())
                         << ",\"commit\":\"" << PARTIKEL_GIT_COMMIT << "\"}\n";
            }
        return 0;
    });
}
