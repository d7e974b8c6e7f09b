// OpenEXR files for tests, written with OpenEXR's own API: any pixel type per channel, scanlines
// or tiles. Link partikel_image (it brings OpenEXR).
#pragma once

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfCompression.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfTiledOutputFile.h>
#include <Imath/half.h>

#include <map>
#include <string>
#include <vector>

#include "image/exr.hpp"

namespace partikel::test {

struct ExrLayout {
    std::map<std::string, Imf::PixelType> types;   // by channel name; channels not named: FLOAT
    int tile_size = 0;                             // > 0: square tiles of this many pixels; 0: scanlines
    Imf::Compression compression = Imf::ZIP_COMPRESSION;
};

// The image's channels, converted to their layout type; the display window is the data window.
inline void write_exr(const std::string& path, const image::Image& image, const ExrLayout& layout = {}) {
    const Imath::Box2i window({image.origin_x, image.origin_y},
                              {image.origin_x + image.width - 1, image.origin_y + image.height - 1});
    Imf::Header header(window, window);
    header.compression() = layout.compression;
    std::vector<std::vector<half>> halves;           // converted copies, alive until written
    std::vector<std::vector<unsigned>> uints;
    Imf::FrameBuffer buffer;
    for (std::size_t c = 0; c < image.channels.size(); ++c) {
        const std::string& name = image.channel_names[c];
        const std::vector<float>& values = image.channels[c];
        const auto typed = layout.types.find(name);
        const Imf::PixelType type = typed == layout.types.end() ? Imf::FLOAT : typed->second;
        const void* samples = values.data();
        if (type == Imf::HALF) samples = halves.emplace_back(values.begin(), values.end()).data();
        if (type == Imf::UINT) samples = uints.emplace_back(values.begin(), values.end()).data();
        header.channels().insert(name, Imf::Channel(type));
        buffer.insert(name, Imf::Slice::Make(type, samples, window));
    }
    if (layout.tile_size > 0) {
        header.setTileDescription(Imf::TileDescription(layout.tile_size, layout.tile_size, Imf::ONE_LEVEL));
        Imf::TiledOutputFile file(path.c_str(), header);
        file.setFrameBuffer(buffer);
        file.writeTiles(0, file.numXTiles() - 1, 0, file.numYTiles() - 1);
    } else {
        Imf::OutputFile file(path.c_str(), header);
        file.setFrameBuffer(buffer);
        file.writePixels(image.height);
    }
}

}  // namespace partikel::test
