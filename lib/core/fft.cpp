#include "core/fft.hpp"

#include <fftw3.h>

#include <mutex>
#include <string>

#include "base/error.hpp"
#include "partikel_config.hpp"

namespace partikel {
namespace {

// FFTW's planner is not thread-safe (only its execute functions are): plans are made under
// one lock.
std::mutex& planner_mutex() {
    static std::mutex m;
    return m;
}

std::size_t product(std::span<const int> shape) {
    std::size_t n = 1;
    for (int e : shape) n *= static_cast<std::size_t>(e);
    return n;
}

std::size_t half_spectrum(std::span<const int> shape) {
    return product(shape) / static_cast<std::size_t>(shape.back()) * static_cast<std::size_t>(shape.back() / 2 + 1);
}

class FftwPlan final : public RealFft::Plan {
public:
    FftwPlan(std::span<const int> shape, int batch, int threads) {
        const std::size_t real_n = product(shape), spectrum_n = half_spectrum(shape);
        std::lock_guard lock(planner_mutex());
#if PARTIKEL_FFTW_OMP
        static const bool threads_ready = fftwf_init_threads() != 0;
        if (threads_ready) fftwf_plan_with_nthreads(threads);
#else
        (void)threads;
#endif
        // FFTW_ESTIMATE never touches the arrays; they only give the plan its alignment, which
        // the arrays of forward()/inverse() must share (fftwf_alignment_of == 0: SIMD-aligned).
        float* real = fftwf_alloc_real(real_n * static_cast<std::size_t>(batch));
        fftwf_complex* spectrum = fftwf_alloc_complex(spectrum_n * static_cast<std::size_t>(batch));
        const int rank = static_cast<int>(shape.size());
        const int real_dist = static_cast<int>(real_n), spectrum_dist = static_cast<int>(spectrum_n);
        forward_ = fftwf_plan_many_dft_r2c(rank, shape.data(), batch, real, nullptr, 1, real_dist, spectrum, nullptr, 1,
                                           spectrum_dist, FFTW_ESTIMATE);
        inverse_ = fftwf_plan_many_dft_c2r(rank, shape.data(), batch, spectrum, nullptr, 1, spectrum_dist, real, nullptr,
                                           1, real_dist, FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
        fftwf_free(real);
        fftwf_free(spectrum);
        if (!forward_ || !inverse_) {
            destroy();
            throw Error("FFTW could not plan a transform of this shape");
        }
    }
    ~FftwPlan() override {
        std::lock_guard lock(planner_mutex());
        destroy();
    }

    void forward(const float* real, Complexf* spectrum) override {
        check_aligned(real, spectrum);
        fftwf_execute_dft_r2c(forward_, const_cast<float*>(real), reinterpret_cast<fftwf_complex*>(spectrum));
    }
    void inverse(Complexf* spectrum, float* real) override {
        check_aligned(real, spectrum);
        fftwf_execute_dft_c2r(inverse_, reinterpret_cast<fftwf_complex*>(spectrum), real);
    }
    std::size_t work_bytes() const override { return 0; }

private:
    static void check_aligned(const float* real, const Complexf* spectrum) {
        if (fftwf_alignment_of(const_cast<float*>(real)) != 0 ||
            fftwf_alignment_of(reinterpret_cast<float*>(const_cast<Complexf*>(spectrum))) != 0)
            throw UsageError("RealFft: arrays must be SIMD-aligned (the start of a DeviceBuffer is)");
    }
    void destroy() {
        if (forward_) fftwf_destroy_plan(forward_);
        if (inverse_) fftwf_destroy_plan(inverse_);
        forward_ = inverse_ = nullptr;
    }

    fftwf_plan forward_ = nullptr;
    fftwf_plan inverse_ = nullptr;
};

}  // namespace

RealFft::RealFft(const Backend& backend, std::span<const int> shape, int batch)
    : shape_(shape.begin(), shape.end()), batch_(batch) {
    if (shape.empty() || shape.size() > 2) throw UsageError("RealFft: shape must have 1 or 2 extents");
    for (int e : shape)
        if (e < 1) throw UsageError("RealFft: extents must be positive, got " + std::to_string(e));
    if (batch < 1) throw UsageError("RealFft: batch must be positive, got " + std::to_string(batch));
    if (backend.is_cuda()) {
#if PARTIKEL_HAVE_CUDA
        plan_ = detail::make_cufft_plan(backend, shape, batch);
#endif
    } else {
        plan_ = std::make_unique<FftwPlan>(shape, batch, backend.threads() > 0 ? backend.threads() : 1);
    }
}

RealFft::~RealFft() = default;
RealFft::RealFft(RealFft&&) noexcept = default;
RealFft& RealFft::operator=(RealFft&&) noexcept = default;

void RealFft::forward(const float* real, Complexf* spectrum) const { plan_->forward(real, spectrum); }
void RealFft::inverse(Complexf* spectrum, float* real) const { plan_->inverse(spectrum, real); }

std::size_t RealFft::real_count() const { return product(shape_) * static_cast<std::size_t>(batch_); }
std::size_t RealFft::spectrum_count() const { return half_spectrum(shape_) * static_cast<std::size_t>(batch_); }
std::size_t RealFft::work_bytes() const { return plan_->work_bytes(); }

}  // namespace partikel
