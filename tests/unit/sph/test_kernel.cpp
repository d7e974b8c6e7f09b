// Smoothing kernels and the equation of state: normalisation, gradient against a finite
// difference of W, the self pair, Tait and its inverse.
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>

#include "sph/eos.hpp"
#include "sph/kernel.hpp"

using namespace partikel;
using namespace partikel::sph;

namespace {

// Integral of W over R^3 = integral 4 pi r^2 W(r) dr over [0, 2h] (Simpson, 4000 panels).
template <class K> double integral(const K& k, float h) {
    const int n = 4000;
    const double dr = 2.0 * h / n;
    double sum = 0.0;
    for (int i = 0; i <= n; ++i) {
        const double r = i * dr;
        const double w = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        sum += w * 4.0 * M_PI * r * r * k.W(float(r * r));
    }
    return sum * dr / 3.0;
}

// grad W = F(r) r must equal dW/dr r/|r|: compare F r with a central difference of W.
template <class K> void check_gradient(const K& k, float h) {
    for (float q : {0.1f, 0.5f, 0.9f, 1.1f, 1.5f, 1.9f}) {
        CAPTURE(q);
        const double r = q * h, eps = 1e-3 * h;
        const double dWdr = (k.W(float((r + eps) * (r + eps))) - k.W(float((r - eps) * (r - eps)))) / (2 * eps);
        const double F_times_r = k.grad_factor(float(r * r)) * r;
        CHECK(F_times_r == doctest::Approx(dWdr).epsilon(2e-3));
    }
}

}  // namespace

TEST_CASE("Wendland C2: normalised with 21/(16 pi h^3), compact, gradient of W") {
    for (float h : {0.015f, 1.0f, 0.825f}) {
        const WendlandC2 k{h};
        CHECK(integral(k, h) == doctest::Approx(1.0).epsilon(1e-5));
        CHECK(k.W(4.0f * h * h) == 0.0f);
        CHECK(k.W(0.0f) == doctest::Approx(21.0 / (16.0 * M_PI * h * h * h)).epsilon(1e-6));
        CHECK(k.grad_factor(4.0f * h * h) == 0.0f);
        // The self pair: F(0) finite, so grad W(0) = F(0) * 0 = 0.
        CHECK(std::isfinite(k.grad_factor(0.0f)));
        CHECK(k.grad_factor(0.0f) == doctest::Approx(-105.0 / (16.0 * M_PI * std::pow(h, 5))).epsilon(1e-6));
        check_gradient(k, h);
    }
}

TEST_CASE("cubic spline: normalised, gradient of W, smooth at q = 1") {
    for (float h : {0.01f, 1.0f}) {
        const CubicSpline k{h};
        CHECK(integral(k, h) == doctest::Approx(1.0).epsilon(1e-5));
        CHECK(k.W(4.0f * h * h) == 0.0f);
        CHECK(std::isfinite(k.grad_factor(0.0f)));
        check_gradient(k, h);
        CHECK(k.grad_factor(0.999f * 0.999f * h * h) ==
              doctest::Approx(k.grad_factor(1.001f * 1.001f * h * h)).epsilon(1e-2));
    }
}

TEST_CASE("SmoothingKernel dispatches to the chosen kernel") {
    const float h = 0.02f, r2 = 0.0003f;
    CHECK(SmoothingKernel{KernelKind::wendland_c2, h}.W(r2) == WendlandC2{h}.W(r2));
    CHECK(SmoothingKernel{KernelKind::cubic_spline, h}.grad_factor(r2) == CubicSpline{h}.grad_factor(r2));
}

TEST_CASE("Tait EOS: P(rho0) = 0, B = c0^2 rho0 / gamma, inverse") {
    const TaitEos eos = TaitEos::from_sound_speed(1000.0f, 100.0f, 7.0f);
    CHECK(eos.B == doctest::Approx(100.0 * 100.0 * 1000.0 / 7.0));
    CHECK(eos.pressure(1000.0f) == 0.0f);
    CHECK(eos.pressure(1010.0f) == doctest::Approx(eos.B * (std::pow(1.01, 7.0) - 1.0)).epsilon(1e-5));
    CHECK(eos.pressure(990.0f) < 0.0f);
    // Small compressions: dP/drho = c0^2.
    CHECK((eos.pressure(1000.01f) - eos.pressure(999.99f)) / 0.02f == doctest::Approx(1e4).epsilon(1e-2));
    for (float rho : {995.0f, 1000.0f, 1003.0f})
        CHECK(eos.density(eos.pressure(rho)) == doctest::Approx(rho).epsilon(1e-5));
    const TaitEos other{1000.0f, eos.B, 3.0f};  // the powf path
    CHECK(other.pressure(1010.0f) == doctest::Approx(eos.B * (std::pow(1.01, 3.0) - 1.0)).epsilon(1e-4));
}
