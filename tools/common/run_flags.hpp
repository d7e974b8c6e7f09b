// The flags every simulating program shares (sph-step, nbody-run, pic-track), spelled the same
// everywhere, and the run loop's options made from them (run/run_loop.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "common/tool.hpp"
#include "formats/reader.hpp"
#include "run/frame_output.hpp"
#include "run/run_loop.hpp"

namespace partikel::tools {

struct RunFlags {
    run::RunOptions options;
    std::string diag_format = "tsv";
    std::int64_t start_frame = -1;  // which frame of the input to start from (-1: the last)
    int zstd_level = run::kFrameZstdLevel;
};

// --until, --steps, --every, --every-steps (in `time_unit` of simulated time or steps),
// --diag, --diag-format, --diag-every-steps, --start-frame, --zstd-level.
void add_run_flags(Tool& tool, RunFlags& flags, const std::string& time_unit = "s");

// The run loop's options after parsing: progress as the tool's --progress/--quiet say.
run::RunOptions run_options(const RunFlags& flags, Tool& tool, const std::string& label);
// The frame writer's options: --zstd-level, --force.
fmt::WriterOptions writer_options(const RunFlags& flags, Tool& tool);

}  // namespace partikel::tools
