#include "render/io/frame_particles.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string>

#include "base/error.hpp"
#include "base/log.hpp"
#include "base/vec.hpp"
#include "dist/slabs.hpp"

namespace partikel::render::io {

namespace {

// "velocity.x" -> ("velocity", 0); "velocity" -> ("velocity", -1: the magnitude of a vector).
std::pair<std::string, int> parse_column(const std::string& spec) {
    const auto dot = spec.rfind('.');
    if (dot != std::string::npos && dot + 2 == spec.size()) {
        const char c = spec[dot + 1];
        if (c == 'x' || c == 'y' || c == 'z') return {spec.substr(0, dot), c - 'x'};
    }
    return {spec, -1};
}

std::string where(std::uint64_t index, const fmt::Group& group) {
    return "frame " + std::to_string(index) + ", group '" + group.name() + "'";
}

}  // namespace

void FrameParticles::append(Part& part, const fmt::Group& group, const ParticleSelection& selection,
                            std::uint64_t index, bool colour, bool radius) {
    const fmt::Column* position = group.find("position");
    if (!position) throw FormatError(where(index, group) + ": no position column");
    if (position->components() != 3 || !is_float(position->type()))
        throw FormatError(where(index, group) + ": position is not a float x 3 column");
    const fmt::Column* values = nullptr;
    int component = -1;
    if (colour) {
        const auto [name, c] = parse_column(selection.colour);
        component = c;
        values = group.find(name);
        if (values && component >= int(values->components()))
            throw FormatError(where(index, group) + ": column '" + name + "' has no component " +
                              selection.colour.substr(selection.colour.size() - 1));
    }
    const fmt::Column* radii = radius ? group.find(selection.radius) : nullptr;
    if (radius && !radii) throw FormatError(where(index, group) + ": no radius column '" + selection.radius + "'");
    if (radii && radii->components() != 1)
        throw FormatError(where(index, group) + ": radius column '" + selection.radius + "' is not a scalar");
    const std::uint64_t n = group.count();
    const bool f32 = position->type() == ScalarType::f32;
    const float* p32 = f32 ? position->values<float>().data() : nullptr;
    const auto check_range = [&](std::uint64_t i, const Vec3f& p) {
        if (std::fabs(p.x) > kMaxCoordinate || std::fabs(p.y) > kMaxCoordinate || std::fabs(p.z) > kMaxCoordinate)
            throw FormatError(where(index, group) + ": particle " + std::to_string(i) + " at (" + format_g(p.x) + ", " +
                              format_g(p.y) + ", " + format_g(p.z) +
                              ") m lies beyond +-1e18 m, where squared distances overflow float");
    };
    // A second group: the first one's column becomes a copy after all.
    if (part.groups == 1 && part.position.empty()) part.position.assign(part.borrowed.begin(), part.borrowed.end());
    // The part's first group, f32 and all finite: its column itself (no copy).
    ++part.groups;
    bool borrow = f32 && part.groups == 1;
    const Vec3f* xyz = reinterpret_cast<const Vec3f*>(p32);  // base/vec.hpp: three floats
    for (std::uint64_t i = 0; i < n && borrow; ++i) {
        const Vec3f p = xyz[i];
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) borrow = false;
        else check_range(i, p);
    }
    if (borrow) part.borrowed = {xyz, static_cast<std::size_t>(n)};
    if (borrow && !radii && !colour) return;
    for (std::uint64_t i = 0; i < n; ++i) {
        const Vec3f p = f32 ? xyz[i]
                            : Vec3f{float(position->as_double(i, 0)), float(position->as_double(i, 1)),
                                    float(position->as_double(i, 2))};
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
            ++skipped_;
            continue;
        }
        if (!borrow) {
            check_range(i, p);
            part.position.push_back(p);
        }
        if (radii) part.radius.push_back(float(radii->as_double(i)));
        if (colour) {
            float v = std::numeric_limits<float>::quiet_NaN();  // a group without the column: the low end
            if (values && component >= 0) {
                v = float(values->as_double(i, std::uint32_t(component)));
            } else if (values) {
                double sum = 0.0;
                for (std::uint32_t k = 0; k < values->components(); ++k) {
                    const double x = values->as_double(i, k);
                    sum += x * x;
                }
                v = float(values->components() == 1 ? values->as_double(i) : std::sqrt(sum));
            }
            part.value.push_back(v);
        }
    }
}

void FrameParticles::load(const fmt::Frame& frame, const ParticleSelection& selection, std::uint64_t index) {
    particles_.clear();
    opaque_.clear();
    skipped_ = 0;
    const bool colour = !selection.colour.empty();
    const bool radius = !selection.radius.empty();
    if (colour) {
        const std::string name = parse_column(selection.colour).first;
        bool found = false;
        for (const fmt::Group& g : frame.groups()) found = found || g.find(name);
        if (!found && frame.particle_count() > 0)
            throw FormatError("--colour " + name + ": no group of frame " + std::to_string(index) + " has the column '" + name + "'");
    }
    bool positions = false;
    for (const fmt::Group& g : frame.groups()) positions = positions || g.find("position");
    if (!positions && frame.particle_count() > 0)
        throw FormatError("frame " + std::to_string(index) + ": no position column in any group");
    const auto require = [&](const std::string& name) -> const fmt::Group& {
        const fmt::Group* g = frame.find_group(name);
        if (!g) throw UsageError("--groups " + name + ": frame " + std::to_string(index) + " has no group '" + name + "'");
        return *g;
    };
    if (selection.style == Style::fluid) {
        // A frame without the fluid group (all of it removed, or not written yet) shows only
        // what else there is.
        if (const fmt::Group* fluid = frame.find_group(selection.fluid_group))
            append(particles_, *fluid, selection, index, false, false);
        if (selection.opaque_groups.empty()) {
            // Every other group with positions (a group of neighbour lists has none).
            for (const fmt::Group& g : frame.groups())
                if (g.name() != selection.fluid_group && g.find("position"))
                    append(opaque_, g, selection, index, false, false);
        } else {
            for (const std::string& name : selection.opaque_groups)
                if (const fmt::Group* g = frame.find_group(name)) append(opaque_, *g, selection, index, false, false);
        }
        return;
    }
    if (selection.groups.empty()) {
        for (const fmt::Group& g : frame.groups())
            if (g.find("position")) append(particles_, g, selection, index, colour, radius);
    } else {
        for (const std::string& name : selection.groups) append(particles_, require(name), selection, index, colour, radius);
    }
}

bool FrameParticles::reads(const ParticleSelection& selection, std::string_view, std::string_view column) {
    if (column == "position") return true;
    if (selection.style == Style::fluid) return false;
    return (!selection.radius.empty() && column == selection.radius) ||
           (!selection.colour.empty() && column == parse_column(selection.colour).first);
}

FrameInput FrameParticles::input() const {
    FrameInput in;
    in.particles = {particles_.positions(), particles_.radius, particles_.value};
    in.opaque = {opaque_.positions(), opaque_.radius, opaque_.value};
    return in;
}

bool FrameParticles::bounds(Vec3f& lo, Vec3f& hi) const {
    bool any = false;
    for (const Part* part : {&particles_, &opaque_})
        for (std::size_t i = 0; i < part->positions().size(); ++i) {
            const Vec3f p = part->positions()[i];
            const float r = part->radius.empty() ? 0.0f : part->radius[i];
            if (!any) {
                lo = hi = p;
                any = true;
            }
            for (int k = 0; k < 3; ++k) {
                lo[k] = std::min(lo[k], p[k] - r);
                hi[k] = std::max(hi[k], p[k] + r);
            }
        }
    return any;
}

namespace {
// An f32 x 3 column as positions (base/vec.hpp: the same layout).
std::span<Vec3f> as_vec3(std::span<float> xyz) { return {reinterpret_cast<Vec3f*>(xyz.data()), xyz.size() / 3}; }

// Every rank's rows of `all`, in the frame's order, and whether each is a halo row (see
// split_by_slabs); only rank `only`'s when given.
struct SlabRows {
    std::vector<std::vector<std::uint32_t>> rows;
    std::vector<std::vector<std::uint8_t>> halo;
};
SlabRows slab_rows(const FrameInput& all, int ranks, float halo_m, std::optional<int> only) {
    const ParticleSpan& p = all.particles;
    const std::size_t n = p.position.size();
    // The longest axis of the particles' bounds.
    Vec3f lo{0.0f, 0.0f, 0.0f}, hi{0.0f, 0.0f, 0.0f};
    for (std::size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            lo[k] = i ? std::min(lo[k], p.position[i][k]) : p.position[i][k];
            hi[k] = i ? std::max(hi[k], p.position[i][k]) : p.position[i][k];
        }
    int axis = 0;
    for (int k = 1; k < 3; ++k)
        if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = p.position[i][axis];
    const dist::SlabDecomposition slabs = dist::slabs_by_count(axis, x, ranks);
    SlabRows out;
    out.rows.resize(static_cast<std::size_t>(ranks));
    out.halo.resize(static_cast<std::size_t>(ranks));
    const int first = only.value_or(0), last = only ? *only + 1 : ranks;
    for (std::size_t i = 0; i < n; ++i) {
        const int owner = slabs.rank_of(x[i]);
        for (int r = first; r < last; ++r) {
            const double below = slabs.borders[std::size_t(r)], above = slabs.borders[std::size_t(r) + 1];
            if (r != owner && !(halo_m > 0.0f && x[i] >= below - halo_m && x[i] <= above + halo_m)) continue;
            out.rows[std::size_t(r)].push_back(std::uint32_t(i));
            out.halo[std::size_t(r)].push_back(r == owner ? 0 : 1);
        }
    }
    return out;
}

// The share of the rows `mine` (halo flags `halo`, written when halo_m > 0), its columns in
// `memory` (none: the heap); each is filled whole.
fmt::Frame make_share(const FrameInput& all, const std::vector<std::uint32_t>& mine, const std::vector<std::uint8_t>& halo,
                      float halo_m, const std::shared_ptr<fmt::ColumnMemory>& memory) {
    const ParticleSpan& p = all.particles;
    fmt::Frame share;
    const auto add = [&](fmt::Group& group, const char* name, ScalarType type, std::uint32_t components) -> fmt::Column& {
        return group.add_column(fmt::Column::uninitialized(name, type, components, group.count(), {}, memory));
    };
    fmt::Group& g = share.add_group("particles", mine.size());
    const auto gather = [&](const char* name, std::span<const float> values) {
        if (values.empty()) return;
        const auto out = add(g, name, ScalarType::f32, 1).values<float>();
        for (std::size_t k = 0; k < mine.size(); ++k) out[k] = values[mine[k]];
    };
    const auto position = as_vec3(add(g, "position", ScalarType::f32, 3).values<float>());
    for (std::size_t k = 0; k < mine.size(); ++k) position[k] = p.position[mine[k]];
    gather("radius", p.radius_m);
    gather("value", p.value);
    if (halo_m > 0.0f) {
        const auto out = add(g, "halo", ScalarType::u8, 1).values<std::uint8_t>();
        std::copy(halo.begin(), halo.end(), out.begin());
    }
    fmt::Group& o = share.add_group("opaque", all.opaque.position.size());
    if (!all.opaque.position.empty()) {
        const auto out = as_vec3(add(o, "position", ScalarType::f32, 3).values<float>());
        std::copy(all.opaque.position.begin(), all.opaque.position.end(), out.begin());
    }
    if (!all.opaque.radius_m.empty()) {
        const auto out = add(o, "radius", ScalarType::f32, 1).values<float>();
        std::copy(all.opaque.radius_m.begin(), all.opaque.radius_m.end(), out.begin());
    }
    return share;
}
}  // namespace

std::vector<fmt::Frame> split_by_slabs(const FrameInput& all, int ranks, float halo_m) {
    const SlabRows r = slab_rows(all, ranks, halo_m, std::nullopt);
    std::vector<fmt::Frame> shares;
    shares.reserve(static_cast<std::size_t>(ranks));
    for (std::size_t k = 0; k < r.rows.size(); ++k) shares.push_back(make_share(all, r.rows[k], r.halo[k], halo_m, nullptr));
    return shares;
}

fmt::Frame slab_share(const FrameInput& all, int ranks, int rank, float halo_m,
                      const std::shared_ptr<fmt::ColumnMemory>& memory) {
    if (rank < 0 || rank >= ranks)
        throw UsageError("slab_share: rank " + std::to_string(rank) + " of " + std::to_string(ranks));
    const SlabRows r = slab_rows(all, ranks, halo_m, rank);
    return make_share(all, r.rows[std::size_t(rank)], r.halo[std::size_t(rank)], halo_m, memory);
}

FrameInput share_input(const fmt::Frame& share) {
    const auto part = [&](const char* group) {
        ParticleSpan s;
        const fmt::Group* g = share.find_group(group);
        if (!g) throw FormatError(std::string("a rank's share of a frame has no group '") + group + "'");
        if (const fmt::Column* c = g->find("position")) {
            const auto xyz = c->values<float>();
            s.position = {reinterpret_cast<const Vec3f*>(xyz.data()), xyz.size() / 3};
        }
        if (const fmt::Column* c = g->find("radius")) s.radius_m = c->values<float>();
        if (const fmt::Column* c = g->find("value")) s.value = c->values<float>();
        if (const fmt::Column* c = g->find("halo")) s.halo = c->values<std::uint8_t>();
        return s;
    };
    return {part("particles"), part("opaque")};
}

}  // namespace partikel::render::io
