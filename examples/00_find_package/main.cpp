// Sums 1..n on the CPU backend through Partikel's core library, as an installed package.
#include <core/algorithms.hpp>
#include <core/buffer.hpp>

#include <cstdio>
#include <numeric>
#include <vector>

int main() {
    using namespace partikel;
    Backend backend = select_backend("cpu");
    std::vector<float> values(1000);
    std::iota(values.begin(), values.end(), 1.0f);
    DeviceBuffer<float> d_values(backend, values.size());
    d_values.copy_from_host(values);
    Workspace ws(backend, reduce_scratch_bytes<float, double>(backend, values.size()));
    DeviceBuffer<double> d_sum(backend, 1);
    reduce<float, double>(backend, ws, ReduceKind::sum, d_values.data(), values.size(), d_sum.data());
    std::printf("%.0f\n", d_sum.to_vector()[0]);
    return 0;
}
