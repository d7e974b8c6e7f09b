// Small in-memory inputs for the compare tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "compare/report.hpp"
#include "formats/frame.hpp"

namespace partikel::compare::testing {

// A fluid group of n particles: id (u64), position (f32 x 3), density (f32), rows in id order.
inline fmt::Group fluid_group(std::uint64_t n, const std::string& name = "fluid") {
    fmt::Group group(name, n);
    auto ids = group.add_well_known("id").values<std::uint64_t>();
    std::iota(ids.begin(), ids.end(), std::uint64_t{100});
    auto position = group.add_well_known("position").values<float>();
    for (std::size_t i = 0; i < position.size(); ++i) position[i] = 0.01f * float(i % 97) + float(i / 3);
    auto density = group.add_well_known("density").values<float>();
    for (std::size_t i = 0; i < density.size(); ++i) density[i] = 1000.0f + float(i % 13);
    return group;
}

// The same rows in a random order (a GPU run writes particles sorted by cell).
inline fmt::Group shuffled(const fmt::Group& group, std::uint32_t seed = 7) {
    std::vector<std::uint64_t> order(group.count());
    std::iota(order.begin(), order.end(), std::uint64_t{0});
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
    fmt::Group out(group.name(), group.count());
    for (const fmt::Column& column : group.columns()) {
        fmt::Column& copy = out.add_column(column.name(), column.type(), column.components(), column.unit());
        const std::size_t row_bytes = fmt::scalar_size(column.type()) * column.components();
        for (std::uint64_t row = 0; row < group.count(); ++row)
            std::copy_n(column.raw().data() + order[row] * row_bytes, row_bytes, copy.raw().data() + row * row_bytes);
    }
    return out;
}

// The row of `group` whose id is `id`.
inline std::uint64_t row_of_id(const fmt::Group& group, std::uint64_t id) {
    const auto ids = group.at("id").values<std::uint64_t>();
    return std::uint64_t(std::find(ids.begin(), ids.end(), id) - ids.begin());
}

inline fmt::Frame frame_of(std::int64_t step, double time, fmt::Group group) {
    fmt::Frame frame;
    frame.step = step;
    frame.time = time;
    frame.groups().push_back(std::move(group));
    return frame;
}

// A fresh directory under the system temp folder, removed with the object.
class TempDir {
public:
    explicit TempDir(const std::string& tag)
        : path_(std::filesystem::temp_directory_path() /
                ("partikel-compare-" + tag + "-" + std::to_string(std::random_device{}()))) {
        std::filesystem::create_directories(path_);
    }
    ~TempDir() { std::filesystem::remove_all(path_); }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

// The result for column `name` of a compared section; fails the test when it is missing.
inline const ColumnResult& column(const Section& section, const std::string& name) {
    for (const ColumnResult& c : section.columns)
        if (c.name == name) return c;
    FAIL("no column " << name);
    throw;
}

}  // namespace partikel::compare::testing
