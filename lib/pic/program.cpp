#include "pic/program.hpp"

#include <cmath>

#include "base/error.hpp"

namespace partikel::pic {
namespace {

TrackOp aperture_op(const Aperture& a, int element) {
    TrackOp op{OpKind::aperture, element, {}};
    op.p[0] = 1.0 / (a.a_m * a.a_m);
    op.p[1] = 1.0 / (a.b_m * a.b_m);
    return op;
}

bool is_identity(const Matrix6& m) {
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            if (m(i, j) != (i == j ? 1.0 : 0.0)) return false;
    return true;
}

class Compiler {
public:
    Compiler(const Lattice& lattice, const MapContext& context) : lattice_(lattice), context_(context) {}

    void node(double s) {
        flush();
        close_segment();
        current_ = {program_.ops.size(), 0, true, s};
    }

    void element(const Element& e, int index) {
        const bool pipe = lattice_.pipe.active() && e.thick();
        if (exactly_linear(e) && !pipe) {
            pending_ = element_map(e, context_) * pending_;
            return;
        }
        flush();
        switch (e.kind) {
            case ElementKind::multipole: {
                TrackOp op{OpKind::multipole, index, {}};
                double factorial = 1.0;
                for (int n = 1; n <= 5; ++n) {
                    factorial *= n;
                    op.p[n - 1] = e.knl[std::size_t(n)] / factorial;
                }
                program_.ops.push_back(op);
                break;
            }
            case ElementKind::rf_cavity: {
                const ReferenceParticle& r = context_.reference;
                TrackOp op{OpKind::rf, index, {}};
                op.p[0] = r.charge_C * e.voltage_V / (r.beta * r.beta * r.total_energy_J());
                op.p[1] = 2.0 * constants::pi * e.harmonic / context_.circumference_m;
                op.p[2] = e.phase_rad;
                op.p[3] = std::sin(e.phase_rad);
                program_.ops.push_back(op);
                break;
            }
            default: {
                const Matrix6 m = element_map(e, context_);
                if (!is_identity(m)) {
                    program_.ops.push_back(linear_op(m, index));
                    ++program_.linear_maps;
                }
            }
        }
        if (e.aperture.active()) program_.ops.push_back(aperture_op(e.aperture, index));
        if (pipe) program_.ops.push_back(aperture_op(lattice_.pipe, index));
    }

    TrackProgram finish() {
        flush();
        close_segment();
        return std::move(program_);
    }

private:
    void flush() {
        if (is_identity(pending_)) return;
        program_.ops.push_back(linear_op(pending_, -1));
        ++program_.linear_maps;
        pending_ = Matrix6::identity();
    }
    void close_segment() {
        current_.end = program_.ops.size();
        if (current_.end > current_.begin || current_.kick_before) program_.segments.push_back(current_);
    }

    const Lattice& lattice_;
    const MapContext& context_;
    TrackProgram program_;
    Matrix6 pending_ = Matrix6::identity();
    TrackProgram::Segment current_;
};

}  // namespace

TrackOp linear_op(const Matrix6& m, int element) {
    // The entries a fusable map may have (docs/PIC.md, "Fusing maps"); every other one is 0 and
    // M55 = M66 = 1, which products of such maps keep.
    static constexpr int kUsed[13][2] = {{0, 0}, {0, 1}, {0, 5}, {1, 0}, {1, 1}, {1, 5}, {2, 2},
                                         {2, 3}, {3, 2}, {3, 3}, {4, 0}, {4, 1}, {4, 5}};
    TrackOp op{OpKind::linear, element, {}};
    bool used[6][6] = {};
    for (int k = 0; k < 13; ++k) {
        op.p[k] = m(kUsed[k][0], kUsed[k][1]);
        used[kUsed[k][0]][kUsed[k][1]] = true;
    }
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            if (!used[i][j] && m(i, j) != ((i == j && i >= 4) ? 1.0 : 0.0))
                throw Error("linear_op: the map couples planes the tracker keeps apart (entry " + std::to_string(i + 1) +
                            std::to_string(j + 1) + ")");
    return op;
}

TrackProgram compile_program(const Lattice& lattice, const MapContext& context, int kicks_per_turn) {
    if (kicks_per_turn < 0 || kicks_per_turn > kMaxKicksPerTurn)
        throw UsageError("space charge: the kicks per turn must be in 0.." + std::to_string(kMaxKicksPerTurn) + ", got " +
                         std::to_string(kicks_per_turn));
    Compiler compiler(lattice, context);
    const double C = lattice.circumference_m();
    int next = 0;  // next node index
    auto node_s = [&](int k) { return C * (double(k) + 0.5) / double(kicks_per_turn); };
    const double eps = 1e-12 * C;
    double s = 0.0;
    for (std::size_t i = 0; i < lattice.elements.size(); ++i) {
        const Element& e = lattice.elements[i];
        double done = 0.0;  // fraction of e emitted
        while (next < kicks_per_turn && node_s(next) < s + e.length_m - eps) {
            const double at = node_s(next);
            if (at > s + eps) {
                const double f = (at - s) / e.length_m;
                compiler.element(element_part(e, done, f), int(i));
                done = f;
            }
            compiler.node(at);
            ++next;
        }
        if (done == 0.0) compiler.element(e, int(i));
        else compiler.element(element_part(e, done, 1.0), int(i));
        s += e.length_m;
    }
    return compiler.finish();
}

}  // namespace partikel::pic
