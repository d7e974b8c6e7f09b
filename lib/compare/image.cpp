#include "compare/image.hpp"

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "compare/column.hpp"
#include "core/error.hpp"

namespace partikel::compare {

Image read_exr(const std::string& path) {
    Image image;
    try {
        Imf::InputFile file(path.c_str());
        const Imath::Box2i window = file.header().dataWindow();
        image.origin_x = window.min.x;
        image.origin_y = window.min.y;
        image.width = window.max.x - window.min.x + 1;
        image.height = window.max.y - window.min.y + 1;
        const std::size_t pixels = std::size_t(image.width) * std::size_t(image.height);
        Imf::FrameBuffer buffer;
        const Imf::ChannelList& channels = file.header().channels();
        for (auto channel = channels.begin(); channel != channels.end(); ++channel) {
            if (channel.channel().xSampling != 1 || channel.channel().ySampling != 1)
                throw FormatError(path + ": channel '" + channel.name() +
                                  "' is subsampled, which compare-results does not read");
            image.channel_names.emplace_back(channel.name());
            image.channels.emplace_back(pixels);
        }
        // Slices are inserted after every vector exists: the pointers must stay valid.
        for (std::size_t c = 0; c < image.channels.size(); ++c) {
            // Slice::Make shifts the base by the data window origin, as OpenEXR addresses pixels
            // in window coordinates.
            buffer.insert(image.channel_names[c],
                          Imf::Slice::Make(Imf::FLOAT, image.channels[c].data(), window, sizeof(float),
                                           sizeof(float) * std::size_t(image.width)));
        }
        file.setFrameBuffer(buffer);
        file.readPixels(window.min.y, window.max.y);
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw FormatError(path + ": cannot read OpenEXR image: " + e.what());
    }
    return image;
}

Section compare_images(const Image& a, const Image& b, const CompareOptions& options) {
    Section section;
    section.kind = "image";
    section.title = "image";
    section.matched_by = "pixel";
    section.rows_a = std::uint64_t(a.width) * std::uint64_t(a.height);
    section.rows_b = std::uint64_t(b.width) * std::uint64_t(b.height);
    const bool same_size = a.width == b.width && a.height == b.height;
    if (!same_size)
        section.mismatches.push_back("size " + std::to_string(a.width) + "x" + std::to_string(a.height) + " in A, " +
                                     std::to_string(b.width) + "x" + std::to_string(b.height) + " in B");
    else if (a.origin_x != b.origin_x || a.origin_y != b.origin_y)
        section.notes.push_back("data windows start at (" + std::to_string(a.origin_x) + "," +
                                std::to_string(a.origin_y) + ") in A and (" + std::to_string(b.origin_x) + "," +
                                std::to_string(b.origin_y) + "); pixels compared relative to them");
    const auto find = [](const Image& image, const std::string& name) -> const std::vector<float>* {
        const auto at = std::find(image.channel_names.begin(), image.channel_names.end(), name);
        return at == image.channel_names.end() ? nullptr
                                               : &image.channels[std::size_t(at - image.channel_names.begin())];
    };
    const auto label_pixel = [&](std::uint64_t pixel) {
        return "pixel (" + std::to_string(a.origin_x + std::int64_t(pixel % std::uint64_t(a.width))) + "," +
               std::to_string(a.origin_y + std::int64_t(pixel / std::uint64_t(a.width))) + ")";
    };
    for (std::size_t c = 0; c < a.channel_names.size(); ++c) {
        const std::string& name = a.channel_names[c];
        if (!options.selected(name)) continue;
        const std::vector<float>* values_b = find(b, name);
        if (!values_b) {
            section.mismatches.push_back("channel '" + name + "' only in A");
            continue;
        }
        if (!same_size) continue;
        const std::vector<float>& values_a = a.channels[c];
        const Tolerance tolerance = options.tolerances.lookup(name);
        const DifferenceStats stats = compare_rows(
            values_a.size(), 1, [&](std::uint64_t pixel, double* out) { *out = values_a[pixel]; },
            [&](std::uint64_t pixel, double* out) { *out = (*values_b)[pixel]; }, tolerance, options.elements);
        ColumnResult result = column_result(name, 1, tolerance, stats, label_pixel);
        double peak = 0.0;
        for (const auto* values : {&values_a, values_b})
            for (const float v : *values)
                if (std::isfinite(v)) peak = std::max(peak, double(std::fabs(v)));
        if (peak == 0.0) peak = 1.0;
        const double rmse = result.stats.rms();
        result.psnr_db = rmse == 0.0 ? std::numeric_limits<double>::infinity() : 20.0 * std::log10(peak / rmse);
        result.min_psnr_db = options.min_psnr_db;
        section.columns.push_back(std::move(result));
    }
    for (const std::string& name : b.channel_names)
        if (options.selected(name) && !find(a, name)) section.mismatches.push_back("channel '" + name + "' only in B");
    return section;
}

}  // namespace partikel::compare
