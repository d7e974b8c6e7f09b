// Height fields from grey PNG images (libpng). Kept apart from scenes.cpp because libpng reports
// errors by longjmp: every C++ object here is constructed before the setjmp.
#include <png.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "base/error.hpp"
#include "base/system.hpp"
#include "sph/io/scenes.hpp"

namespace partikel::sph {

namespace {

[[noreturn]] void png_fail(png_structp png, png_const_charp message) {
    *static_cast<std::string*>(png_get_error_ptr(png)) = message;
    png_longjmp(png, 1);
}
void png_ignore_warning(png_structp, png_const_charp) {}

}  // namespace

HeightField load_png_height_field(const std::string& path, float cell_m, float scale_m, float offset_m, float x0_m,
                                  float z0_m) {
    if (!(cell_m > 0.0f)) throw UsageError("terrain: need a positive cell size");
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) throw IoError("terrain: cannot open " + path);
    std::string error;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, png_fail, png_ignore_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        throw IoError("terrain: cannot start libpng for " + path);
    }
    std::vector<png_byte> pixels;
    std::vector<png_bytep> rows;
    HeightField t;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        throw IoError("terrain: " + path + ": " + error);
    }
    png_init_io(png, file.get());
    png_read_info(png, info);
    const png_uint_32 nx = png_get_image_width(png, info), nz = png_get_image_height(png, info);
    const int bits = png_get_bit_depth(png, info);
    if (png_get_color_type(png, info) != PNG_COLOR_TYPE_GRAY || (bits != 8 && bits != 16))
        png_error(png, "a height image must be grey (no alpha) with 8 or 16 bits per sample");
    if (nx < 2 || nz < 2) png_error(png, "a height image needs at least 2 x 2 samples");
    const std::size_t bytes_per_sample = std::size_t(bits / 8);
    // The header alone says how much to allocate: its samples and their heights (4 bytes each)
    // must fit in the machine's memory.
    if (double(nx) * double(nz) * double(bytes_per_sample + 4) > double(host_memory_bytes())) {
        error = "a height image of " + std::to_string(nx) + " x " + std::to_string(nz) +
                " samples needs more memory than this machine has";
        png_error(png, error.c_str());  // png_fail copies it onto itself; no temporary is left behind by the jump
    }
    pixels.resize(std::size_t(nx) * std::size_t(nz) * bytes_per_sample);
    rows.resize(nz);
    for (png_uint_32 k = 0; k < nz; ++k) rows[k] = pixels.data() + std::size_t(k) * nx * bytes_per_sample;
    png_read_image(png, rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);

    t.nx = int(nx);
    t.nz = int(nz);
    t.cell_m = cell_m;
    t.x0_m = x0_m;
    t.z0_m = z0_m;
    t.height_m.resize(std::size_t(nx) * std::size_t(nz));
    for (std::size_t i = 0; i < t.height_m.size(); ++i) {
        // PNG stores 16-bit samples big-endian.
        const unsigned sample =
            bytes_per_sample == 2 ? unsigned(pixels[2 * i]) << 8 | pixels[2 * i + 1] : unsigned(pixels[i]);
        t.height_m[i] = offset_m + scale_m * float(sample);
    }
    return t;
}

}  // namespace partikel::sph
