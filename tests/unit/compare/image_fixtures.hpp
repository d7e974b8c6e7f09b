// Small OpenEXR images for the compare tests, written with OpenEXR's own API.
#pragma once

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfOutputFile.h>
#include <Imath/half.h>

#include <string>
#include <vector>

#include "compare/image.hpp"

namespace partikel::compare::testing {

// A w x h image with float channels R, G, B, Z and a half channel A, data window at (ox, oy).
inline Image test_image(int width, int height, int origin_x = 0, int origin_y = 0) {
    Image image;
    image.width = width;
    image.height = height;
    image.origin_x = origin_x;
    image.origin_y = origin_y;
    image.channel_names = {"A", "B", "G", "R", "Z"};   // OpenEXR lists channels sorted by name
    for (std::size_t c = 0; c < image.channel_names.size(); ++c) {
        std::vector<float> values(std::size_t(width * height));
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                values[std::size_t(y * width + x)] =
                    c == 0 ? 1.0f : 0.1f * float(c) + 0.01f * float(x) + 0.02f * float(y);
        image.channels.push_back(std::move(values));
    }
    return image;
}

inline void write_exr(const std::string& path, const Image& image) {
    Imf::Header header(Imath::Box2i({0, 0}, {image.origin_x + image.width - 1, image.origin_y + image.height - 1}),
                       Imath::Box2i({image.origin_x, image.origin_y},
                                    {image.origin_x + image.width - 1, image.origin_y + image.height - 1}));
    std::vector<std::vector<half>> halves;
    Imf::FrameBuffer buffer;
    for (std::size_t c = 0; c < image.channels.size(); ++c) {
        const Imath::Box2i window = header.dataWindow();
        if (image.channel_names[c] == "A") {   // alpha as half, the usual EXR type
            header.channels().insert("A", Imf::Channel(Imf::HALF));
            halves.emplace_back(image.channels[c].begin(), image.channels[c].end());
            buffer.insert("A", Imf::Slice::Make(Imf::HALF, halves.back().data(), window));
        } else {
            header.channels().insert(image.channel_names[c], Imf::Channel(Imf::FLOAT));
            buffer.insert(image.channel_names[c], Imf::Slice::Make(Imf::FLOAT, image.channels[c].data(), window));
        }
    }
    Imf::OutputFile file(path.c_str(), header);
    file.setFrameBuffer(buffer);
    file.writePixels(image.height);
}

}  // namespace partikel::compare::testing
