#include "support/backends.hpp"

namespace partikel::test {

std::vector<Backend> cpu_backends() { return {Backend::cpu(1), Backend::cpu(3)}; }

Backend cuda_backend() {
    auto devices = cuda_devices();
    INFO("no usable GPU: " << cuda_unavailable_reason());
    REQUIRE(!devices.empty());
    return Backend::cuda(0);
}

}  // namespace partikel::test
