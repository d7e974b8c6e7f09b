// Writers of encodings that hold one group of one frame per file (CSV, VTK, PLY): the %T
// naming and the one-group rule live here (SPEC.md §4).
#pragma once

#include <memory>
#include <set>
#include <string>

#include "base/io.hpp"
#include "formats/reader.hpp"

namespace partikel::fmt {

class SingleGroupWriter : public FrameWriter {
public:
    SingleGroupWriter(std::string pattern, std::string format, bool binary, bool force)
        : pattern_(std::move(pattern)), format_(std::move(format)), binary_(binary), force_(force) {}

    void write(const Frame& frame) override;
    // With %T, each per-frame file is renamed into place as soon as it is complete; without,
    // the one file appears on finish().
    void finish() override;
    const std::string& name() const override { return pattern_; }

protected:
    virtual void write_group(OutputStream& out, const Frame& frame, const Group& group) = 0;

private:
    std::string pattern_;
    std::string format_;
    bool binary_;
    bool force_;
    std::uint64_t frames_ = 0;
    std::set<std::string> names_;  // with %T: the files written so far
    std::unique_ptr<OutputStream> pending_;
    bool finished_ = false;
};

// Field names of a column in CSV and PLY: "density"; "position_x", "position_y", ...
std::vector<std::string> field_names(const Column& column);

}  // namespace partikel::fmt
