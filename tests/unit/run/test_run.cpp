// The run loop (lib/run) with a small simulation of its own: particles drifting at constant
// velocity on the CPU backend, whose state after step k is known exactly, so that every frame
// and every diagnostics row can be checked against it.
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "base/io.hpp"
#include "core/buffer.hpp"
#include "formats/reader.hpp"
#include "formats/records.hpp"
#include "run/cadence.hpp"
#include "run/diagnostics_table.hpp"
#include "run/frame_output.hpp"
#include "run/run_loop.hpp"
#include "run/start_frame.hpp"

using namespace partikel;
using namespace partikel::run;

namespace {

// x_i(t) = i + t: one coordinate per particle, dt 0.25 (exact in binary).
class Drift : public Simulation {
public:
    explicit Drift(std::size_t n, std::int64_t step = 0) : backend_(Backend::cpu(1)), x_(backend_, n), step_(step) {
        std::vector<double> x(n);
        for (std::size_t i = 0; i < n; ++i) x[i] = double(i) + time();
        x_.copy_from_host(x);
    }
    void step() override {
        if (fail_at_ >= 0 && step_ + 1 == fail_at_) throw NumericalError("particle id 3: position is not finite");
        if (interrupt_at_ >= 0 && step_ + 1 == interrupt_at_) std::raise(SIGINT);
        double* x = x_.data();
        for (std::size_t i = 0; i < x_.size(); ++i) x[i] += kDt;
        ++step_;
    }
    std::int64_t step_count() const override { return step_; }
    double time() const override { return kDt * double(step_); }
    double last_dt() const override { return step_ > 0 ? kDt : 0.0; }
    std::size_t size() const override { return x_.size(); }
    const Backend& backend() const override { return backend_; }
    std::vector<DiagnosticsColumn> diagnostics_columns() const override {
        return {{"step", units::none}, {"time_s", units::time}, {"mean_x_m", units::length}};
    }
    std::vector<double> diagnostics() override {
        double sum = 0.0;
        for (std::size_t i = 0; i < x_.size(); ++i) sum += x_.data()[i];
        return {double(step_), time(), sum / double(x_.size())};
    }
    std::vector<std::size_t> frame_buffer_capacity() const override { return {x_.bytes()}; }
    FrameCapture frame_capture() override {
        FrameCapture c;
        c.buffers = {{x_.data(), x_.bytes()}};
        c.step = step_;
        c.time = time();
        c.dt = last_dt();
        c.count = x_.size();
        c.attributes["drift.note"] = std::string("captured");
        return c;
    }
    fmt::Frame build_frame(std::span<const std::span<const std::byte>> host, const FrameCapture& c) const override {
        if (slow_writer_) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        fmt::Frame f;
        f.step = c.step;
        f.time = c.time;
        f.dt = c.dt;
        auto& g = f.add_group("drift", c.count);
        auto& column = g.add_column("x", ScalarType::f64, 1, units::length);
        std::memcpy(column.raw().data(), host[0].data(), host[0].size());
        return f;
    }

    static constexpr double kDt = 0.25;
    std::int64_t fail_at_ = -1, interrupt_at_ = -1;
    bool slow_writer_ = false;

private:
    Backend backend_;
    DeviceBuffer<double> x_;
    std::int64_t step_;
};

std::vector<fmt::Frame> read_all(const std::string& path) {
    std::vector<fmt::Frame> frames;
    auto reader = fmt::open_reader(path);
    while (auto f = reader->next()) frames.push_back(std::move(*f));
    return frames;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

RunReport run_drift(Drift& sim, const std::string& path, RunOptions options) {
    Log log("test", LogLevel::error);
    auto writer = fmt::open_writer(path);
    return run_simulation(sim, *writer, options, make_provenance("test_run", "test_run --args", "cpu"), log);
}

bool frame_is_state(const fmt::Frame& f, std::size_t n) {
    const auto x = fmt::records<double>(f.group("drift").at("x"));
    if (x.size() != n) return false;
    for (std::size_t i = 0; i < n; ++i)
        if (x[i] != double(i) + Drift::kDt * double(f.step)) return false;
    return f.time == Drift::kDt * double(f.step);
}

}  // namespace

TEST_CASE("run.cadence: stop and output decisions, and their usage errors") {
    Cadence steps({std::nullopt, 10, std::nullopt, 4}, 2, 0.5);
    CHECK_FALSE(steps.done(11, 0.0));
    CHECK(steps.done(12, 0.0));
    CHECK(steps.frame_due(8, 0.0));
    CHECK_FALSE(steps.frame_due(9, 0.0));
    CHECK(steps.total() == 10.0);
    Cadence time({1.0, std::nullopt, 0.3, std::nullopt}, 0, 0.0);
    CHECK_FALSE(time.frame_due(1, 0.25));
    CHECK(time.frame_due(2, 0.31));
    CHECK_FALSE(time.frame_due(3, 0.5));
    CHECK(time.frame_due(4, 0.6));  // the next multiple, not 0.31 + 0.3
    CHECK(time.done(9, 1.0 - 1e-15));
    CHECK_THROWS_AS(Cadence({1.0, 5, std::nullopt, std::nullopt}, 0, 0.0), UsageError);
    CHECK_THROWS_AS(Cadence({std::nullopt, std::nullopt, std::nullopt, std::nullopt}, 0, 0.0), UsageError);
    CHECK_THROWS_AS(Cadence({1.0, std::nullopt, 0.1, 2}, 0, 0.0), UsageError);
    CHECK_THROWS_AS(Cadence({std::nan(""), std::nullopt, std::nullopt, std::nullopt}, 0, 0.0), UsageError);
    CHECK_THROWS_AS(Cadence({1.0, std::nullopt, 0.0, std::nullopt}, 0, 0.0), UsageError);
    CHECK_THROWS_AS(Cadence({1.0, std::nullopt, std::nullopt, 0}, 0, 0.0), UsageError);
    CHECK_THROWS_WITH_AS(Cadence({0.1, std::nullopt, std::nullopt, std::nullopt}, 5, 0.2),
                         doctest::Contains("before the start frame's time 0.2"), UsageError);
}

TEST_CASE("run.loop: frames at the cadence with provenance, each the state of its step") {
    Drift sim(100);
    const std::string path = "test_unit_run_frames.pks";
    const RunReport r = run_drift(sim, path, {.steps = 10, .every_steps = 4});
    const auto frames = read_all(path);
    REQUIRE(frames.size() == 4);  // the start, steps 4 and 8, and the last state
    const std::int64_t expected_steps[] = {0, 4, 8, 10};
    for (std::size_t k = 0; k < frames.size(); ++k) {
        CAPTURE(k);
        CHECK(frames[k].step == expected_steps[k]);
        CHECK(frame_is_state(frames[k], 100));
        CHECK(std::get<std::string>(frames[k].attributes.at("program")) == "test_run");
        CHECK(std::get<std::string>(frames[k].attributes.at("command_line")) == "test_run --args");
        CHECK(frames[k].attributes.count("utc_time") == 1);
        CHECK(frames[k].attributes.count("commit") == 1);
        CHECK(std::get<std::string>(frames[k].attributes.at("drift.note")) == "captured");
    }
    CHECK(r.frames_written == 4);
    CHECK(r.last_step == 10);
    CHECK(r.summary().find("10 steps") != std::string::npos);
    // A restart from a step > 0 does not repeat its start frame.
    Drift resumed(100, 10);
    run_drift(resumed, path, {.until = 3.0, .every = 0.5});
    const auto more = read_all(path);
    REQUIRE(!more.empty());
    CHECK(more.front().step == 12);
    CHECK(more.back().time == 3.0);
    for (const auto& f : more) CHECK(frame_is_state(f, 100));
    std::remove(path.c_str());
}

TEST_CASE("run.loop: diagnostics rows once per step, in every table format") {
    for (const auto& [format, name] : {std::pair{TableFormat::tsv, "tsv"}, std::pair{TableFormat::csv, "csv"},
                                       std::pair{TableFormat::jsonl, "jsonl"}}) {
        CAPTURE(name);
        Drift sim(10);
        const std::string diag = std::string("test_unit_run_diag.") + name;
        run_drift(sim, "test_unit_run_diag.pks", {.steps = 20, .every_steps = 10, .diag_path = diag, .diag_format = format,
                                            .diag_every_steps = 5});
        const std::string text = read_text(diag);
        std::vector<std::string> lines;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        REQUIRE(lines.size() == 6);  // header + steps 0, 5, 10, 15, 20 (20 once, though it is also a frame)
        if (format == TableFormat::tsv) {
            CHECK(lines[0] == "step\ttime_s\tmean_x_m");
            CHECK(lines[5] == "20\t5\t9.5");
        } else if (format == TableFormat::csv) {
            CHECK(lines[0] == "step,time_s,mean_x_m");
            CHECK(lines[2] == "5,1.25,5.75");
        } else {
            CHECK(lines[0] == "{\"columns\":[\"step\",\"time_s\",\"mean_x_m\"],\"units\":[\"1\",\"s\",\"m\"]}");
            CHECK(lines[5] == "{\"step\":20,\"time_s\":5,\"mean_x_m\":9.5}");
        }
        std::remove(diag.c_str());
    }
    std::remove("test_unit_run_diag.pks");
}

TEST_CASE("run.loop: a numerical failure keeps the frames and rows written before it") {
    Drift sim(10);
    sim.fail_at_ = 7;
    CHECK_THROWS_WITH_AS(run_drift(sim, "test_unit_run_fail.pks",
                             {.steps = 20, .every_steps = 3, .diag_path = "test_unit_run_fail.tsv"}),
                         doctest::Contains("frames up to step 6 are kept in test_unit_run_fail.pks"), NumericalError);
    const auto frames = read_all("test_unit_run_fail.pks");
    REQUIRE(frames.size() == 3);
    CHECK(frames.back().step == 6);
    CHECK(read_text("test_unit_run_fail.tsv").find("\n6\t1.5\t") != std::string::npos);
    std::remove("test_unit_run_fail.pks");
    std::remove("test_unit_run_fail.tsv");
}

TEST_CASE("run.loop: SIGINT stops between steps and keeps a complete output with the last state") {
    install_signal_cleanup();
    Drift sim(10);
    sim.interrupt_at_ = 5;
    const RunReport r = run_drift(sim, "test_unit_run_sigint.pks", {.steps = 1000, .every_steps = 100});
    CHECK(r.interrupted);
    CHECK(r.last_step == 5);
    const auto frames = read_all("test_unit_run_sigint.pks");
    REQUIRE(frames.size() == 2);
    CHECK(frames.back().step == 5);  // the restart point
    CHECK(frame_is_state(frames.back(), 10));
    std::remove("test_unit_run_sigint.pks");
}

TEST_CASE("run.frame_output: a slow writer makes the steps wait, never drops a frame") {
    Drift sim(1000);
    sim.slow_writer_ = true;
    auto writer = fmt::open_writer("test_unit_run_slow.pks");
    double waited = 0.0;
    {
        FrameOutput output(sim, *writer, make_provenance("test_run", "", "cpu"));
        for (int i = 0; i < 8; ++i) {
            sim.step();
            waited += output.write();
        }
        output.finish();
    }
    writer->finish();
    CHECK(waited > 0.0);
    const auto frames = read_all("test_unit_run_slow.pks");
    REQUIRE(frames.size() == 8);
    for (std::size_t k = 0; k < frames.size(); ++k) {
        CHECK(frames[k].step == std::int64_t(k) + 1);
        CHECK(frame_is_state(frames[k], 1000));
    }
    std::remove("test_unit_run_slow.pks");
}

TEST_CASE("run.start_frame: any frame by index, from the front or the back") {
    Drift sim(5);
    run_drift(sim, "test_unit_run_start.pks", {.steps = 4, .every_steps = 1});  // frames of steps 0..4
    CHECK(read_all("test_unit_run_start.pks").size() == 5);
    CHECK(read_start_frame("test_unit_run_start.pks").step == 4);
    CHECK(read_start_frame("test_unit_run_start.pks", 1).step == 1);
    CHECK(read_start_frame("test_unit_run_start.pks", -2).step == 3);
    CHECK_THROWS_WITH_AS(read_start_frame("test_unit_run_start.pks", 5), doctest::Contains("no frame 5"), UsageError);
    CHECK_THROWS_AS(read_start_frame("test_unit_run_start.pks", -6), UsageError);
    CHECK_THROWS_AS(read_start_frame("test_unit_run_no_such_file.pks"), IoError);
    std::remove("test_unit_run_start.pks");
}

TEST_CASE("run.start_frame: a stream damaged before its last frame is refused, not run from") {
    Drift sim(10);
    const std::string path = "test_unit_run_damaged.pks";
    run_drift(sim, path, {.steps = 8, .every_steps = 1});
    std::vector<char> bytes;
    {
        std::ifstream in(path, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    REQUIRE(read_all(path).size() == 9);
    CHECK(read_start_frame(path).step == 8);
    // One byte inside an early frame; the index and the last frame stay intact.
    bytes[bytes.size() / 4] ^= 0x5A;
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    CHECK_THROWS_AS(read_start_frame(path), FormatError);
    CHECK_THROWS_AS(read_start_frame(path, 7), FormatError);
    std::remove(path.c_str());
}
