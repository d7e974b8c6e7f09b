#include "formats/text/single_file.hpp"

#include "formats/encodings.hpp"
#include "formats/openpmd/openpmd.hpp"

namespace partikel::fmt {

void SingleGroupWriter::write(const Frame& frame) {
    if (finished_) throw UsageError(pattern_ + ": write after finish");
    const bool per_frame = pattern_.find("%T") != std::string::npos;
    if (frames_ > 0 && !per_frame)
        throw UsageError(pattern_ + ": " + format_ + " holds one frame; put %T in the output name for one file per frame, "
                         "or keep one frame (particle-convert --frames)");
    if (frame.groups().size() != 1) {
        std::string names;
        for (const Group& g : frame.groups()) names += (names.empty() ? "" : ", ") + g.name();
        throw UsageError(pattern_ + ": " + format_ + " holds one particle group, and frame " + std::to_string(frames_) +
                         " has " + std::to_string(frame.groups().size()) + " (" + names +
                         "); keep one (particle-convert --groups)");
    }
    const std::string name = expand_step_pattern(pattern_, frame.step);
    // Files are named by step: a second frame of one step would replace the first's file.
    if (per_frame && !names_.insert(name).second)
        throw UsageError(name + ": two frames with step " + std::to_string(frame.step) + " (a file per frame is named by step)");
    auto out = OutputStream::open(name, binary_, force_);
    write_group(*out, frame, frame.groups().front());
    if (per_frame) out->commit();
    else pending_ = std::move(out);
    ++frames_;
}

void SingleGroupWriter::finish() {
    if (finished_) return;
    finished_ = true;
    if (pending_) pending_->commit();
}

std::vector<std::string> field_names(const Column& column) {
    const auto components = component_names(column.components());
    if (components.empty()) return {column.name()};
    std::vector<std::string> out;
    for (const auto& c : components) out.push_back(column.name() + "_" + c);
    return out;
}

}  // namespace partikel::fmt
