#include "pic/tune.hpp"

#include <cmath>
#include <algorithm>
#include <complex>
#include <vector>

#include "pic/reference.hpp"

namespace partikel::pic {

namespace {

// Forward DFT, X[k] = sum_j x[j] exp(-2 pi i j k / n), in place; n a power of two (iterative
// radix-2 Cooley-Tukey).
void fft_in_place(std::vector<std::complex<double>>& x) {
    const std::size_t n = x.size();
    for (std::size_t i = 1, j = 0; i < n; ++i) {
        std::size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(x[i], x[j]);
    }
    for (std::size_t length = 2; length <= n; length *= 2) {
        const double angle = -2.0 * constants::pi / double(length);
        for (std::size_t start = 0; start < n; start += length) {
            for (std::size_t k = 0; k < length / 2; ++k) {
                const std::complex<double> w = std::polar(1.0, angle * double(k));
                const std::complex<double> a = x[start + k], b = w * x[start + k + length / 2];
                x[start + k] = a + b;
                x[start + k + length / 2] = a - b;
            }
        }
    }
}

}  // namespace

double fractional_tune(std::span<const double> u, std::span<const double> up, double beta, double alpha) {
    const std::size_t n = std::min(u.size(), up.size());
    if (n < 8) return NAN;
    // The signal less its mean (a closed-orbit offset is a line at 0), Hann-windowed.
    std::vector<std::complex<double>> z(n);
    std::complex<double> mean = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
        const double X = u[k] / std::sqrt(beta), P = (alpha * u[k] + beta * up[k]) / std::sqrt(beta);
        z[k] = {X, -P};
        mean += z[k];
    }
    mean /= double(n);
    for (std::size_t k = 0; k < n; ++k)
        z[k] = (z[k] - mean) * (0.5 * (1.0 - std::cos(2.0 * constants::pi * double(k) / double(n))));
    auto power = [&](double nu) {
        std::complex<double> s = 0.0;
        const std::complex<double> step = std::polar(1.0, -2.0 * constants::pi * nu);
        std::complex<double> phase = 1.0;
        for (std::size_t k = 0; k < n; ++k) {
            s += z[k] * phase;
            phase *= step;
            if ((k & 63) == 63) phase /= std::abs(phase);  // keep |phase| = 1
        }
        return std::norm(s);
    };
    // Coarse scan on a grid of at least four points per FFT bin (the zero-padded FFT: n log n,
    // where a direct scan costs n^2), then golden section around the best point.
    std::size_t points = 1;
    while (points < 4 * n) points *= 2;
    std::vector<std::complex<double>> spectrum(points);
    std::copy(z.begin(), z.end(), spectrum.begin());
    fft_in_place(spectrum);
    double best = 0.0, best_power = -1.0;
    for (std::size_t k = 0; k < points; ++k) {
        const double p = std::norm(spectrum[k]);
        if (p > best_power) {
            best_power = p;
            best = double(k) / double(points);
        }
    }
    if (!(best_power > 0.0)) return NAN;
    double a = best - 1.0 / double(points), b = best + 1.0 / double(points);
    const double g = 0.5 * (std::sqrt(5.0) - 1.0);
    double c = b - g * (b - a), d = a + g * (b - a);
    double pc = power(c), pd = power(d);
    for (int it = 0; it < 100 && b - a > 1e-13; ++it) {
        if (pc > pd) {
            b = d;
            d = c;
            pd = pc;
            c = b - g * (b - a);
            pc = power(c);
        } else {
            a = c;
            c = d;
            pc = pd;
            d = a + g * (b - a);
            pd = power(d);
        }
    }
    double nu = 0.5 * (a + b);
    nu -= std::floor(nu);
    return nu;
}

}  // namespace partikel::pic
