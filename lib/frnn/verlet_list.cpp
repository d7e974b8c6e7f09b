#include "frnn/verlet_list.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/dispatch.hpp"
#include "core/error.hpp"
#include "core/exec_cpu.hpp"
#include "frnn/verlet_list_impl.hpp"

namespace partikel::frnn {

namespace {

GridSpec registration_grid(const VerletSpec& spec) {
    if (!(spec.skin > 0) || !std::isfinite(spec.skin))
        throw UsageError("frnn: the Verlet skin must be positive and finite, got " + std::to_string(spec.skin));
    GridSpec g = spec.grid;
    g.radius = spec.grid.radius + spec.skin;
    return g;
}

ListOptions original_indices(ListOptions o) {
    o.indices = IndexSpace::original;
    return o;
}

}  // namespace

struct VerletList::Impl {
    VerletSpec spec;
    CellGrid grid;
    NeighborList list;
    DeviceBuffer<Vec3f> reference;
    DeviceBuffer<float> scalar;
    mutable Workspace workspace;
    std::size_t n = 0;
    bool built = false;
    std::uint64_t builds = 0;
    float last_max_displacement = 0;

    Impl(const Backend& backend, const VerletSpec& s, std::size_t max_particles, std::size_t capacity)
        : spec(s),
          grid(backend, registration_grid(s), max_particles),
          list(backend, max_particles, capacity, original_indices(s.list)),
          reference(backend, std::max<std::size_t>(max_particles, 1)),
          scalar(backend, 1) {
        spec.list = original_indices(s.list);
        std::size_t scratch = 0;
        if (backend.is_cuda()) {
            PK_CUDA_ONLY(scratch = cuda_side::max_displacement2_scratch(backend, std::max<std::size_t>(max_particles, 1));)
        } else {
            scratch = max_displacement2_scratch(CpuExec(backend), std::max<std::size_t>(max_particles, 1));
        }
        workspace.reserve(backend, std::max<std::size_t>(scratch, 256));
    }
};

VerletList::VerletList(const Backend& backend, const VerletSpec& spec, std::size_t max_particles, std::size_t capacity)
    : impl_(std::make_unique<Impl>(backend, spec, max_particles, capacity)) {}
VerletList::~VerletList() = default;
VerletList::VerletList(VerletList&&) noexcept = default;
VerletList& VerletList::operator=(VerletList&&) noexcept = default;

void VerletList::build(const Vec3f* positions, std::size_t n) {
    Impl& v = *impl_;
    v.built = false;
    v.grid.build(positions, n);
    v.list.build(v.grid);
    if (n) copy_bytes(v.grid.backend(), v.reference.data(), positions, n * sizeof(Vec3f), CopyDirection::device_to_device);
    v.n = n;
    v.built = true;
    v.last_max_displacement = 0;
    ++v.builds;
}

float VerletList::max_displacement(const Vec3f* positions) const {
    const Impl& v = *impl_;
    if (!v.built || v.n == 0) return 0.0f;
    const Backend& b = v.grid.backend();
    const Box box = make_box(v.spec.grid);
    float* out = const_cast<float*>(v.scalar.data());
    if (b.is_cuda()) {
        PK_CUDA_ONLY(cuda_side::max_displacement2(b, v.workspace, positions, v.reference.data(), box, v.n, out);)
    } else {
        max_displacement2_with(CpuExec(b), v.workspace, positions, v.reference.data(), box, v.n, out);
    }
    float d2 = 0;
    copy_bytes(b, &d2, out, sizeof d2, CopyDirection::device_to_host);
    return std::sqrt(d2);
}

bool VerletList::update(const Vec3f* positions, std::size_t n) {
    Impl& v = *impl_;
    if (v.built && n == v.n) {
        v.last_max_displacement = max_displacement(positions);
        // A NaN displacement also rebuilds (and the grid puts NaN positions in cell 0).
        if (v.last_max_displacement <= 0.5f * v.spec.skin) return false;
    }
    const float d = v.built && n == v.n ? v.last_max_displacement : 0.0f;
    build(positions, n);
    v.last_max_displacement = d;
    return true;
}

void count_neighbors(const Backend& backend, const VerletView& view, const Vec3f* positions, std::size_t n,
                     std::uint32_t* counts) {
    if (backend.is_cuda()) { PK_CUDA_ONLY(return cuda_side::count_neighbors(backend, view, positions, n, counts);) }
    count_verlet_neighbors_with(CpuExec(backend), view, positions, n, counts);
}

VerletView VerletList::view() const {
    const Impl& v = *impl_;
    return {v.list.view(), make_box(v.spec.grid), v.spec.grid.radius * v.spec.grid.radius};
}
const CellGrid& VerletList::grid() const { return impl_->grid; }
const NeighborList& VerletList::list() const { return impl_->list; }
NeighborList& VerletList::list() { return impl_->list; }
const VerletSpec& VerletList::spec() const { return impl_->spec; }
std::uint64_t VerletList::builds() const { return impl_->builds; }
float VerletList::last_max_displacement() const { return impl_->last_max_displacement; }

}  // namespace partikel::frnn
