#include "image/exr.hpp"

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>

#include <cstdint>
#include <exception>

#include "base/error.hpp"
#include "base/system.hpp"

namespace partikel::image {

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

}  // namespace partikel::image
