// core/fft.hpp against a direct DFT in double precision, on every backend.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "core/buffer.hpp"
#include "core/fft.hpp"
#include "core/memory.hpp"
#include "support/backends.hpp"

using namespace partikel;

namespace {

// The half spectrum of one real rows x cols array (1-D: rows = 1), by the DFT's definition.
std::vector<std::complex<double>> direct_dft(const float* x, int rows, int cols) {
    const int half = cols / 2 + 1;
    std::vector<std::complex<double>> out(static_cast<std::size_t>(rows * half));
    for (int kr = 0; kr < rows; ++kr)
        for (int kc = 0; kc < half; ++kc) {
            std::complex<double> sum = 0.0;
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c) {
                    const double phase = -2.0 * std::numbers::pi * (double(kr * r) / rows + double(kc * c) / cols);
                    sum += double(x[r * cols + c]) * std::polar(1.0, phase);
                }
            out[static_cast<std::size_t>(kr * half + kc)] = sum;
        }
    return out;
}

void check_shape(const Backend& backend, std::vector<int> shape, int batch) {
    CAPTURE(shape.size());
    CAPTURE(shape.back());
    CAPTURE(batch);
    RealFft fft(backend, shape, batch);
    const int rows = shape.size() == 2 ? shape[0] : 1, cols = shape.back();
    const std::size_t per = static_cast<std::size_t>(rows * cols), half = static_cast<std::size_t>(rows * (cols / 2 + 1));
    REQUIRE(fft.real_count() == per * std::size_t(batch));
    REQUIRE(fft.spectrum_count() == half * std::size_t(batch));

    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(fft.real_count());
    for (float& v : x) v = u(rng);
    DeviceBuffer<float> real(backend, x.size()), back(backend, x.size());
    DeviceBuffer<Complexf> spectrum(backend, fft.spectrum_count());
    real.copy_from_host(x);

    const auto allocations = device_allocation_count();
    fft.forward(real.data(), spectrum.data());
    const std::vector<Complexf> got = spectrum.to_vector();
    fft.inverse(spectrum.data(), back.data());
    const std::vector<float> round_trip = back.to_vector();
    CHECK(device_allocation_count() == allocations);  // transforms allocate nothing

    for (int b = 0; b < batch; ++b) {
        const auto want = direct_dft(x.data() + std::size_t(b) * per, rows, cols);
        for (std::size_t k = 0; k < half; ++k) {
            const Complexf g = got[std::size_t(b) * half + k];
            // float transforms of O(1) values: errors of a few ulp times log(n) times sqrt(n)
            CHECK(std::abs(std::complex<double>(g.re, g.im) - want[k]) < 1e-5 * double(per));
        }
    }
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(round_trip[i] == doctest::Approx(double(per) * x[i]).epsilon(1e-4));
}

void fft_against_direct_dft(const Backend& backend) {
    check_shape(backend, {16}, 1);
    check_shape(backend, {17}, 3);
    check_shape(backend, {8, 12}, 2);
    check_shape(backend, {5, 7}, 3);
    check_shape(backend, {32, 32}, 4);
}

}  // namespace

PK_BACKEND_TEST("core.fft: batched 1-D and 2-D real transforms against a direct DFT", fft_against_direct_dft)

TEST_CASE("core.fft: bad shapes are usage errors") {
    const Backend b = Backend::cpu(1);
    CHECK_THROWS_AS(RealFft(b, std::vector<int>{}, 1), UsageError);
    CHECK_THROWS_AS(RealFft(b, std::vector<int>{4, 4, 4}, 1), UsageError);
    CHECK_THROWS_AS(RealFft(b, std::vector<int>{0}, 1), UsageError);
    CHECK_THROWS_AS(RealFft(b, std::vector<int>{8}, 0), UsageError);
}
