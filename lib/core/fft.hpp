// Batched real-to-complex and complex-to-real FFTs of float data in backend memory: FFTW on the
// CPU (threaded with OpenMP when the backend has several threads), cuFFT on the GPU (bound to
// the backend's stream, its work area allocated here once).
//
// A RealFft is a plan: it is made once, before any loop, for one shape (1-D: {n}; 2-D:
// {rows, cols}, the last index fastest) and a batch count; forward() and inverse() then run
// the transforms without allocating or synchronising. Layouts, for batch b:
//
//   real      [b][rows][cols]            (1-D: [b][n])
//   spectrum  [b][rows][cols / 2 + 1]    (1-D: [b][n / 2 + 1]), Complexf
//
// Both directions are unnormalised (inverse(forward(x)) = rows * cols * x), as in FFTW and
// cuFFT. inverse() may overwrite its input spectrum (FFTW's multi-dimensional complex-to-real
// transforms and cuFFT's do). Input and output must not overlap. Plans are made with
// FFTW_ESTIMATE: the algorithm chosen does not depend on timing, so results repeat exactly from
// run to run.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "core/backend.hpp"

namespace partikel {

// Layout of fftwf_complex and cufftComplex.
struct Complexf {
    float re, im;
};

class RealFft {
public:
    // `shape`: {n} or {rows, cols}, every extent >= 1; `batch` >= 1 transforms.
    RealFft(const Backend& backend, std::span<const int> shape, int batch);
    ~RealFft();
    RealFft(RealFft&&) noexcept;
    RealFft& operator=(RealFft&&) noexcept;
    RealFft(const RealFft&) = delete;
    RealFft& operator=(const RealFft&) = delete;

    // real -> spectrum, and spectrum -> real (overwriting the spectrum), queued on the backend.
    void forward(const float* real, Complexf* spectrum) const;
    void inverse(Complexf* spectrum, float* real) const;

    const std::vector<int>& shape() const { return shape_; }
    int batch() const { return batch_; }
    std::size_t real_count() const;      // values of the real array, whole batch
    std::size_t spectrum_count() const;  // Complexf values of the spectrum, whole batch
    std::size_t work_bytes() const;      // device scratch held by the plan (cuFFT)

    // A backend's plan; the CUDA one lives in core/cuda/fft.cu.
    class Plan {
    public:
        virtual ~Plan() = default;
        virtual void forward(const float* real, Complexf* spectrum) = 0;
        virtual void inverse(Complexf* spectrum, float* real) = 0;
        virtual std::size_t work_bytes() const = 0;
    };

private:
    std::vector<int> shape_;
    int batch_ = 0;
    std::unique_ptr<Plan> plan_;
};

namespace detail {
// Defined in core/cuda/fft.cu (CUDA builds only).
std::unique_ptr<RealFft::Plan> make_cufft_plan(const Backend& backend, std::span<const int> shape, int batch);
}  // namespace detail

}  // namespace partikel
