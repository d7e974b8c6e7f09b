// CUDA instantiation of the counting and statistics queries (search_stats_impl.hpp).
#include "core/cuda/exec_cuda.cuh"
#include "frnn/search_stats_impl.hpp"

namespace partikel::frnn::cuda_side {

void count_neighbors(const Backend& backend, const CellGridView& g, SearchShape shape, std::uint32_t* counts) {
    count_neighbors_with(CudaExec(backend), g, shape, counts);
}

void search_stats(const Backend& backend, const CellGridView& g, SearchShape shape, std::uint32_t* nb,
                  std::uint32_t* cand, std::uint32_t* cells) {
    search_stats_with(CudaExec(backend), g, shape, nb, cand, cells);
}

void visit_digests(const Backend& backend, const CellGridView& g, Vec4f* records, std::uint64_t* digests) {
    visit_digests_with(CudaExec(backend), g, records, digests);
}

}  // namespace partikel::frnn::cuda_side
