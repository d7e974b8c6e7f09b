#include "pic/space_charge.hpp"

#include <algorithm>
#include <utility>

#include "base/error.hpp"
#include "core/dispatch.hpp"
#include "pic/moments.hpp"

namespace partikel::pic {

SpaceChargeSolver::SpaceChargeSolver(const Backend& backend, const SpaceChargeOptions& o, const ReferenceParticle& reference,
                                     double circumference_m, bool coasting, double macro_charge_C, std::size_t particles,
                                     double geometry_factor, dist::Communicator ranks)
    : backend_(backend), ranks_(std::move(ranks)), options_(o), reference_(reference), macro_charge_C_(macro_charge_C),
      geometry_factor_(geometry_factor) {
    if (!o.transverse && !o.longitudinal) throw UsageError("space charge: neither transverse nor longitudinal");
    shape_.circumference_m = circumference_m;
    shape_.periodic_z = coasting ? 1 : 0;
    shape_.periodic_line = coasting ? 1 : 0;
    bounds_ = DeviceBuffer<BeamBounds>(backend, 1);
    geometry_ = DeviceBuffer<GridGeometry>(backend, 1);
    std::size_t scratch = moments_scratch_bytes_for(particles);
    if (o.transverse) {
        if (o.nx < 8 || o.ny < 8) throw UsageError("space charge: the grid needs at least 8 x 8 nodes");
        if (std::size_t(o.nx) * std::size_t(o.ny) > (std::size_t(1) << 22))
            throw UsageError("space charge: at most 4 Mi nodes per slice");
        shape_.nx = o.nx;
        shape_.ny = o.ny;
        shape_.nz = o.slices > 0 ? o.slices : (coasting ? 1 : 64);
        if (!coasting && shape_.nz < 4) throw UsageError("space charge: a bunched beam needs at least 4 slices");
        if (shape_.cells() >= (std::size_t(1) << 31)) throw UsageError("space charge: too many grid cells");
        if (o.image_order < 0 || o.image_order > kMaxImageOrder)
            throw UsageError("space charge: the pipe's image order must lie in [0, " + std::to_string(kMaxImageOrder) + "]");
        const bool fits = privatised_shared_bytes(shape_) <= kSharedMemoryLimit;
        deposition_ = o.deposition == Deposition::automatic ? (fits ? Deposition::privatised : Deposition::sorted)
                                                            : o.deposition;
        if (deposition_ == Deposition::privatised && !fits)
            throw UsageError("space charge: a " + std::to_string(o.nx) + " x " + std::to_string(o.ny) +
                             " grid does not fit in shared memory twice; use the sorted deposition");
        const std::size_t nz = std::size_t(shape_.nz);
        rho_ = DeviceBuffer<float>(backend, nz * shape_.padded_plane());
        if (ranks_.size() > 1) rho_compact_ = DeviceBuffer<float>(backend, nz * std::size_t(o.nx) * std::size_t(o.ny));
        const std::size_t per_slice = std::size_t(2 * o.ny) * std::size_t(o.nx + 1);
        spectrum_ = DeviceBuffer<Complexf>(backend, nz * per_slice);
        green_ = DeviceBuffer<float>(backend, shape_.padded_plane());
        green_spectrum_ = DeviceBuffer<Complexf>(backend, per_slice);
        moments_ = DeviceBuffer<double>(backend, nz * std::size_t(1 + 2 * kMaxImageOrder));
        const std::size_t nodes = nz * std::size_t(o.nx) * std::size_t(o.ny);
        field_ = DeviceBuffer<FieldNode>(backend, nodes);
        slice_weight_ = DeviceBuffer<float>(backend, nz);
        const std::size_t n = std::max<std::size_t>(particles, 1);
        for (auto* b : {&keys_, &keys_sorted_, &identity_, &order_}) *b = DeviceBuffer<std::uint32_t>(backend, n);
        const std::size_t cells = deposition_ == Deposition::sorted ? shape_.cells() : std::size_t(shape_.z_cells());
        cell_start_ = DeviceBuffer<std::uint32_t>(backend, cells + 1);
        block_first_ = DeviceBuffer<std::uint32_t>(backend, std::size_t(shape_.z_cells()) + 1);
        if (deposition_ == Deposition::sorted) fractions_ = DeviceBuffer<CellFractions>(backend, n);
        const int padded[2] = {2 * o.ny, 2 * o.nx};
        slices_fft_.emplace(backend, padded, shape_.nz);
        green_fft_.emplace(backend, padded, 1);
        scratch = std::max(scratch, with_exec(backend, [&](const auto& e) { return deposit_scratch_bytes(e, particles, shape_); }));
    }
    if (o.longitudinal) {
        if (o.line_cells < 16) throw UsageError("space charge: the line density needs at least 16 nodes");
        if (!(geometry_factor > 0.0)) throw UsageError("space charge: the longitudinal geometry factor must be positive");
        shape_.nl = o.line_cells;
        line_ = DeviceBuffer<float>(backend, std::size_t(o.line_cells));
        line_spectrum_ = DeviceBuffer<Complexf>(backend, std::size_t(o.line_cells / 2 + 1));
        ez_ = DeviceBuffer<float>(backend, std::size_t(o.line_cells));
        const int n[1] = {o.line_cells};
        line_fft_.emplace(backend, n, 1);
    }
    workspace_.reserve(backend, scratch);
}

std::size_t SpaceChargeSolver::moments_scratch_bytes_for(std::size_t particles) const {
    return with_exec(backend_, [&](const auto& e) { return moments_scratch_bytes(e, particles); });
}

void SpaceChargeSolver::solve(const BeamView& beam, PhaseProfile* profile) {
    auto phase = [&](const char* name) { return profile ? profile->phase(name) : PhaseProfile::Scope(nullptr, 0); };
    with_exec(backend_, [&](const auto& e) {
        {
            auto p = phase("space charge: grid");
            beam_bounds(e, workspace_, beam, bounds_.data());
            if (ranks_.size() > 1) {
                BeamBounds* b = bounds_.data();
                ranks_.allreduce_device(b->lo, 3, dist::ReduceOp::min);
                ranks_.allreduce_device(b->hi, 3, dist::ReduceOp::max);
                ranks_.allreduce_device(&b->alive, 1, dist::ReduceOp::sum);
            }
            compute_geometry(e, bounds_.data(), shape_, geometry_.data());
        }
        if (options_.transverse) {
            {
                auto p = phase("space charge: deposit");
                if (deposition_ == Deposition::privatised)
                    deposit_privatised(e, workspace_, beam, geometry_.data(), shape_, buffers(), rho_.data());
                else
                    deposit_sorted(e, workspace_, beam, geometry_.data(), shape_, buffers(), rho_.data());
            }
            if (ranks_.size() > 1) {
                auto p = phase("space charge: all-reduce");
                pack_charge(e, rho_.data(), shape_, rho_compact_.data());
                ranks_.allreduce_device(rho_compact_.data(), rho_compact_.size(), dist::ReduceOp::sum);
                unpack_charge(e, rho_compact_.data(), shape_, rho_.data());
            }
            auto p = phase("space charge: field solve");
            fill_green(e, geometry_.data(), shape_, green_.data());
            green_fft_->forward(green_.data(), green_spectrum_.data());
            slices_fft_->forward(rho_.data(), spectrum_.data());
            const int order = options_.pipe_radius_m > 0.0 ? options_.image_order : 0;
            slice_moments(e, rho_.data(), geometry_.data(), shape_, order, moments_.data());
            multiply_green(e, spectrum_.data(), green_spectrum_.data(), geometry_.data(), shape_, macro_charge_C_);
            slices_fft_->inverse(spectrum_.data(), rho_.data());
            field_from_potential(e, rho_.data(), moments_.data(), geometry_.data(), shape_, macro_charge_C_,
                                 options_.pipe_radius_m, order, field_.data(), slice_weight_.data());
        }
        if (options_.longitudinal) {
            auto p = phase("space charge: longitudinal");
            deposit_line(e, beam, geometry_.data(), shape_, line_.data());
            if (ranks_.size() > 1) ranks_.allreduce_device(line_.data(), line_.size(), dist::ReduceOp::sum);
            line_fft_->forward(line_.data(), line_spectrum_.data());
            const double gamma = reference_.gamma;
            const double factor =
                -geometry_factor_ * macro_charge_C_ / (4.0 * constants::pi * constants::epsilon0_F_per_m * gamma * gamma);
            const int cutoff = options_.harmonic_cutoff > 0 ? options_.harmonic_cutoff : options_.line_cells / 8;
            line_field(e, line_spectrum_.data(), geometry_.data(), shape_, factor, cutoff);
            line_fft_->inverse(line_spectrum_.data(), ez_.data());
        }
    });
}

DepositBuffers SpaceChargeSolver::buffers() {
    return {keys_.data(),       keys_sorted_.data(), identity_.data(), order_.data(), cell_start_.data(),
            block_first_.data(), fractions_.data()};
}

FieldMapView SpaceChargeSolver::field_map(double kick_length_m) const {
    const ReferenceParticle& r = reference_;
    const double mc2 = r.rest_energy_J();
    FieldMapView v{};
    v.geometry = geometry_.data();
    if (options_.transverse) {
        v.e = field_.data();
        v.slice_weight = slice_weight_.data();
        v.nx = shape_.nx;
        v.ny = shape_.ny;
        v.nz = shape_.nz;
        v.periodic_z = shape_.periodic_z;
        v.far_field = macro_charge_C_ / (2.0 * constants::pi * constants::epsilon0_F_per_m);
        // dx' = q E L / (gamma^3 beta^2 m c^2): the electric force less the magnetic one, q E / gamma^2
        v.transverse_kick = r.charge_C * kick_length_m / (r.gamma * r.gamma * r.gamma * r.beta * r.beta * mc2);
    }
    if (options_.longitudinal) {
        v.ez = ez_.data();
        v.nl = shape_.nl;
        v.periodic_line = shape_.periodic_line;
        // d(delta) = q E_z L / (beta^2 gamma m c^2)
        v.longitudinal_kick = r.charge_C * kick_length_m / (r.beta * r.beta * r.gamma * mc2);
    }
    return v;
}

GridGeometry SpaceChargeSolver::geometry() const { return geometry_.to_vector()[0]; }

std::size_t SpaceChargeSolver::device_bytes() const {
    std::size_t b = rho_.bytes() + rho_compact_.bytes() + spectrum_.bytes() + green_.bytes() + green_spectrum_.bytes() + moments_.bytes() +
                    field_.bytes() + slice_weight_.bytes() + keys_.bytes() + keys_sorted_.bytes() +
                    identity_.bytes() + order_.bytes() + cell_start_.bytes() + block_first_.bytes() +
                    fractions_.bytes() + line_.bytes() + line_spectrum_.bytes() + ez_.bytes() + workspace_.size();
    if (slices_fft_) b += slices_fft_->work_bytes() + green_fft_->work_bytes();
    if (line_fft_) b += line_fft_->work_bytes();
    return b;
}

}  // namespace partikel::pic
