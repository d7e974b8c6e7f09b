// cuFFT plans for RealFft (core/fft.hpp): made once, bound to the backend's stream, with their
// work area allocated here (cufftSetAutoAllocation off), so forward()/inverse() allocate nothing.
#include <cuda_runtime.h>
#include <cufft.h>

#include <string>
#include <vector>

#include "core/buffer.hpp"
#include "core/cuda/check.cuh"
#include "core/fft.hpp"

namespace partikel::detail {
namespace {

const char* cufft_error_name(cufftResult r) {
    switch (r) {
        case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
        case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
        case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
        case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
        case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
        case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
        case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
        case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
        default: return "cuFFT error";
    }
}

void check_cufft(cufftResult r, const char* what) {
    if (r != CUFFT_SUCCESS) throw DeviceError(std::string(what) + ": " + cufft_error_name(r) + " (" + std::to_string(int(r)) + ")");
}

class CufftPlan final : public RealFft::Plan {
public:
    CufftPlan(const Backend& backend, std::span<const int> shape, int batch) {
        PK_CUDA_CHECK(cudaSetDevice(backend.device_index()));
        std::vector<int> n(shape.begin(), shape.end());
        const int rank = static_cast<int>(n.size());
        int real_dist = 1;
        for (int e : n) real_dist *= e;
        const int spectrum_dist = real_dist / n.back() * (n.back() / 2 + 1);
        std::size_t forward_work = 0, inverse_work = 0;
        check_cufft(cufftCreate(&forward_), "cufftCreate");
        check_cufft(cufftCreate(&inverse_), "cufftCreate");
        check_cufft(cufftSetAutoAllocation(forward_, 0), "cufftSetAutoAllocation");
        check_cufft(cufftSetAutoAllocation(inverse_, 0), "cufftSetAutoAllocation");
        check_cufft(cufftMakePlanMany(forward_, rank, n.data(), nullptr, 1, real_dist, nullptr, 1, spectrum_dist,
                                      CUFFT_R2C, batch, &forward_work),
                    "cufftMakePlanMany (real to complex)");
        check_cufft(cufftMakePlanMany(inverse_, rank, n.data(), nullptr, 1, spectrum_dist, nullptr, 1, real_dist,
                                      CUFFT_C2R, batch, &inverse_work),
                    "cufftMakePlanMany (complex to real)");
        // The two directions run one after the other on one stream: they share one work area.
        work_ = DeviceBuffer<std::byte>(backend, std::max(forward_work, inverse_work));
        check_cufft(cufftSetWorkArea(forward_, work_.data()), "cufftSetWorkArea");
        check_cufft(cufftSetWorkArea(inverse_, work_.data()), "cufftSetWorkArea");
        const auto stream = static_cast<cudaStream_t>(backend.stream());
        check_cufft(cufftSetStream(forward_, stream), "cufftSetStream");
        check_cufft(cufftSetStream(inverse_, stream), "cufftSetStream");
    }
    ~CufftPlan() override {
        cufftDestroy(forward_);
        cufftDestroy(inverse_);
    }

    void forward(const float* real, Complexf* spectrum) override {
        check_cufft(cufftExecR2C(forward_, const_cast<cufftReal*>(real), reinterpret_cast<cufftComplex*>(spectrum)),
                    "cufftExecR2C");
    }
    void inverse(Complexf* spectrum, float* real) override {
        check_cufft(cufftExecC2R(inverse_, reinterpret_cast<cufftComplex*>(spectrum), real), "cufftExecC2R");
    }
    std::size_t work_bytes() const override { return work_.bytes(); }

private:
    cufftHandle forward_ = 0, inverse_ = 0;
    DeviceBuffer<std::byte> work_;
};

}  // namespace

std::unique_ptr<RealFft::Plan> make_cufft_plan(const Backend& backend, std::span<const int> shape, int batch) {
    return std::make_unique<CufftPlan>(backend, shape, batch);
}

}  // namespace partikel::detail
