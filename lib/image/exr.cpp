#include "image/exr.hpp"

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfDoubleAttribute.h>
#include <OpenEXR/ImfFloatAttribute.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfIntAttribute.h>
#include <OpenEXR/ImfMatrixAttribute.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfStdIO.h>
#include <OpenEXR/ImfStringAttribute.h>
#include <OpenEXR/ImfTiledOutputFile.h>
#include <Imath/half.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <fstream>
#include <set>

#include "base/error.hpp"
#include "base/io.hpp"
#include "base/system.hpp"

namespace partikel::image {

namespace {

// The attributes every file has; Image::attributes holds the others.
const std::set<std::string> kRequiredAttributes = {"channels",         "compression",        "dataWindow",
                                                   "displayWindow",    "lineOrder",          "pixelAspectRatio",
                                                   "screenWindowCenter", "screenWindowWidth", "tiles"};

Matrix44 to_matrix(const Imath::M44f& m) {
    Matrix44 out{};
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) out[std::size_t(4 * r + c)] = m[r][c];
    return out;
}

Imath::M44f from_matrix(const Matrix44& m) {
    Imath::M44f out;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) out[r][c] = m[std::size_t(4 * r + c)];
    return out;
}

void read_attributes(const Imf::Header& header, std::map<std::string, AttributeValue>& out) {
    for (auto a = header.begin(); a != header.end(); ++a) {
        const std::string name = a.name();
        if (kRequiredAttributes.count(name)) continue;
        const Imf::Attribute& value = a.attribute();
        if (const auto* i = dynamic_cast<const Imf::IntAttribute*>(&value))
            out[name] = i->value();
        else if (const auto* f = dynamic_cast<const Imf::FloatAttribute*>(&value))
            out[name] = f->value();
        else if (const auto* d = dynamic_cast<const Imf::DoubleAttribute*>(&value))
            out[name] = d->value();
        else if (const auto* s = dynamic_cast<const Imf::StringAttribute*>(&value))
            out[name] = s->value();
        else if (const auto* m = dynamic_cast<const Imf::M44fAttribute*>(&value))
            out[name] = to_matrix(m->value());
    }
}

Imf::Compression to_imf(Compression c) {
    switch (c) {
        case Compression::none: return Imf::NO_COMPRESSION;
        case Compression::rle: return Imf::RLE_COMPRESSION;
        case Compression::zips: return Imf::ZIPS_COMPRESSION;
        case Compression::zip: return Imf::ZIP_COMPRESSION;
        case Compression::piz: return Imf::PIZ_COMPRESSION;
    }
    return Imf::ZIP_COMPRESSION;
}

Imf::PixelType to_imf(PixelType t) {
    switch (t) {
        case PixelType::half: return Imf::HALF;
        case PixelType::float32: return Imf::FLOAT;
        case PixelType::uint32: return Imf::UINT;
    }
    return Imf::FLOAT;
}

void add_attribute(Imf::Header& header, const std::string& name, const AttributeValue& value) {
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, int>) header.insert(name, Imf::IntAttribute(v));
            else if constexpr (std::is_same_v<T, float>) header.insert(name, Imf::FloatAttribute(v));
            else if constexpr (std::is_same_v<T, double>) header.insert(name, Imf::DoubleAttribute(v));
            else if constexpr (std::is_same_v<T, std::string>) header.insert(name, Imf::StringAttribute(v));
            else header.insert(name, Imf::M44fAttribute(from_matrix(v)));
        },
        value);
}

void check_image(const std::string& path, const Image& image) {
    if (image.width <= 0 || image.height <= 0)
        throw UsageError(path + ": cannot write an OpenEXR image of " + std::to_string(image.width) + " x " +
                         std::to_string(image.height) + " pixels");
    if (image.channels.empty()) throw UsageError(path + ": cannot write an OpenEXR image without channels");
    if (image.channel_names.size() != image.channels.size())
        throw UsageError(path + ": " + std::to_string(image.channel_names.size()) + " channel names for " +
                         std::to_string(image.channels.size()) + " channels");
    const std::size_t pixels = std::size_t(image.width) * std::size_t(image.height);
    std::set<std::string> seen;
    for (std::size_t c = 0; c < image.channels.size(); ++c) {
        const std::string& name = image.channel_names[c];
        if (name.empty() || !seen.insert(name).second)
            throw UsageError(path + ": channel names must be unique and not empty ('" + name + "')");
        if (image.channels[c].size() != pixels)
            throw UsageError(path + ": channel '" + name + "' has " + std::to_string(image.channels[c].size()) +
                             " values for " + std::to_string(pixels) + " pixels");
    }
    for (const auto& [name, value] : image.attributes)
        if (kRequiredAttributes.count(name))
            throw UsageError(path + ": attribute '" + name + "' is OpenEXR's own and set by the writer");
}

}  // namespace

Image read_exr(const std::string& path, const ChannelChoice& choose) {
    Image image;
    try {
        Imf::InputFile file(path.c_str());
        const Imath::Box2i window = file.header().dataWindow();
        image.origin_x = window.min.x;
        image.origin_y = window.min.y;
        image.width = window.max.x - window.min.x + 1;
        image.height = window.max.y - window.min.y + 1;
        const std::size_t pixels = std::size_t(image.width) * std::size_t(image.height);
        const Imf::ChannelList& channels = file.header().channels();
        for (auto channel = channels.begin(); channel != channels.end(); ++channel)
            image.channel_names.emplace_back(channel.name());
        if (choose) image.channel_names = choose(image.channel_names);
        // A damaged data window must not make us allocate (and zero) more than the machine has;
        // OpenEXR 3.1 reads such a window from too few stored pixels without complaint.
        const std::uint64_t bytes_per_pixel = sizeof(float) * image.channel_names.size();
        if (bytes_per_pixel > 0 && pixels > host_memory_bytes() / bytes_per_pixel) {
            const double gib = double(pixels) * double(bytes_per_pixel) / 0x1p30;
            throw FormatError(path + ": " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                              " pixels (" + std::to_string(std::uint64_t(gib)) +
                              " GiB as floats) exceed this machine's memory: a damaged header?");
        }
        for (const std::string& name : image.channel_names) {
            const Imf::Channel* channel = channels.findChannel(name);
            if (!channel) throw FormatError(path + ": no channel '" + name + "'");
            if (channel->xSampling != 1 || channel->ySampling != 1)
                throw FormatError(path + ": channel '" + name + "' is subsampled, which Partikel does not read");
            image.channels.emplace_back(pixels);
        }
        read_attributes(file.header(), image.attributes);
        // Slices are inserted after every vector exists: the pointers must stay valid.
        Imf::FrameBuffer buffer;
        for (std::size_t c = 0; c < image.channels.size(); ++c) {
            // Slice::Make shifts the base by the data window origin, as OpenEXR addresses pixels
            // in window coordinates; the FLOAT slice makes OpenEXR convert half and uint samples.
            buffer.insert(image.channel_names[c],
                          Imf::Slice::Make(Imf::FLOAT, image.channels[c].data(), window, sizeof(float),
                                           sizeof(float) * std::size_t(image.width)));
        }
        file.setFrameBuffer(buffer);
        file.readPixels(window.min.y, window.max.y);
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {   // Iex::BaseExc and std::bad_alloc among them
        throw FormatError(path + ": cannot read OpenEXR image: " + e.what());
    }
    return image;
}

void write_exr(const std::string& path, const Image& image, const WriteOptions& options) {
    check_image(path, image);
    if (options.zip_level < 1 || options.zip_level > 9)
        throw UsageError("OpenEXR zip level must be in 1..9, got " + std::to_string(options.zip_level));
    if (options.tile_size < 0) throw UsageError("OpenEXR tile size must not be negative");
    for (const auto& [name, type] : options.pixel_types)
        if (std::find(image.channel_names.begin(), image.channel_names.end(), name) == image.channel_names.end())
            throw UsageError(path + ": a pixel type for channel '" + name + "', which the image does not have");

    const Imath::Box2i window({image.origin_x, image.origin_y},
                              {image.origin_x + image.width - 1, image.origin_y + image.height - 1});
    Imf::Header header(window, window);
    header.compression() = to_imf(options.compression);
    header.zipCompressionLevel() = options.zip_level;
    for (const auto& [name, value] : image.attributes) add_attribute(header, name, value);

    // OpenEXR converts samples only when reading: half and uint channels are written from
    // converted copies.
    std::vector<std::vector<half>> halves;
    std::vector<std::vector<unsigned>> uints;
    Imf::FrameBuffer buffer;
    for (std::size_t c = 0; c < image.channels.size(); ++c) {
        const std::string& name = image.channel_names[c];
        const auto typed = options.pixel_types.find(name);
        const PixelType type = typed == options.pixel_types.end() ? PixelType::float32 : typed->second;
        header.channels().insert(name, Imf::Channel(to_imf(type)));
        if (type == PixelType::half) {
            const std::vector<float>& values = image.channels[c];
            buffer.insert(name, Imf::Slice::Make(Imf::HALF, halves.emplace_back(values.begin(), values.end()).data(),
                                                 window));
        } else if (type == PixelType::uint32) {
            std::vector<unsigned>& values = uints.emplace_back(image.channels[c].size());
            for (std::size_t i = 0; i < values.size(); ++i) {
                const float v = image.channels[c][i];
                values[i] = v >= 4294967295.0f ? 4294967295u : v > 0.0f ? unsigned(v) : 0u;
            }
            buffer.insert(name, Imf::Slice::Make(Imf::UINT, values.data(), window));
        } else {
            buffer.insert(name, Imf::Slice::Make(Imf::FLOAT, image.channels[c].data(), window));
        }
    }

    TempFile temp(path);
    std::ofstream stream(temp.path(), std::ios::binary | std::ios::trunc);
    if (!stream) throw IoError(path + ": cannot create OpenEXR image: " + std::strerror(errno));
    try {
        Imf::StdOFStream out(stream, temp.path().c_str());
        if (options.tile_size > 0) {
            header.setTileDescription(Imf::TileDescription(unsigned(options.tile_size), unsigned(options.tile_size),
                                                           Imf::ONE_LEVEL));
            Imf::TiledOutputFile file(out, header);
            file.setFrameBuffer(buffer);
            file.writeTiles(0, file.numXTiles() - 1, 0, file.numYTiles() - 1);
        } else {
            Imf::OutputFile file(out, header);
            file.setFrameBuffer(buffer);
            file.writePixels(image.height);
        }
        stream.close();
        if (!stream) throw IoError(path + ": cannot write OpenEXR image: " + std::strerror(errno));
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw IoError(path + ": cannot write OpenEXR image: " + e.what());
    }
    temp.commit();
}

Compression parse_compression(const std::string& name) {
    if (name == "none") return Compression::none;
    if (name == "rle") return Compression::rle;
    if (name == "zips") return Compression::zips;
    if (name == "zip") return Compression::zip;
    if (name == "piz") return Compression::piz;
    throw UsageError("unknown OpenEXR compression '" + name + "' (none, rle, zips, zip or piz)");
}

}  // namespace partikel::image
