#include "pic/beam.hpp"

#include <numeric>

#include "base/error.hpp"

namespace partikel::pic {

void ParticleSet::resize(std::size_t n) {
    for (auto* v : {&x, &xp, &y, &yp, &z, &delta}) v->assign(n, 0.0);
    id.resize(n);
    std::iota(id.begin(), id.end(), std::uint64_t{0});
    status.assign(n, kAlive);
    lost_turn.assign(n, -1);
    lost_element.assign(n, -1);
}

std::size_t ParticleSet::alive() const {
    std::size_t a = 0;
    for (std::int32_t s : status) a += s == kAlive;
    return a;
}

ParticleSet rank_block(const ParticleSet& all, int rank, int ranks) {
    const std::size_t n = all.size(), first = n * std::size_t(rank) / std::size_t(ranks),
                      last = n * std::size_t(rank + 1) / std::size_t(ranks);
    ParticleSet p;
    const auto cut = [&](const auto& from, auto& to) { to.assign(from.begin() + first, from.begin() + last); };
    cut(all.x, p.x);
    cut(all.xp, p.xp);
    cut(all.y, p.y);
    cut(all.yp, p.yp);
    cut(all.z, p.z);
    cut(all.delta, p.delta);
    cut(all.id, p.id);
    cut(all.status, p.status);
    cut(all.lost_turn, p.lost_turn);
    cut(all.lost_element, p.lost_element);
    return p;
}

Beam::Beam(const Backend& backend, const ParticleSet& particles)
    : fields_(backend, kBeamFields, (std::uint64_t{1} << beam_field_count) - 1, particles.size()), n_(particles.size()) {
    upload(particles);
}

BeamView Beam::view() {
    return {fields_.data<double>(f_x),           fields_.data<double>(f_xp),          fields_.data<double>(f_y),
            fields_.data<double>(f_yp),          fields_.data<double>(f_z),           fields_.data<double>(f_delta),
            fields_.data<std::uint64_t>(f_id),   fields_.data<std::int32_t>(f_status), fields_.data<std::int32_t>(f_lost_turn),
            fields_.data<std::int32_t>(f_lost_element), n_};
}

void Beam::upload(const ParticleSet& p) {
    const std::size_t n = p.size();
    if (n != n_) throw UsageError("Beam::upload: " + std::to_string(n) + " particles into a beam of " + std::to_string(n_));
    for (const auto* v : {&p.xp, &p.y, &p.yp, &p.z, &p.delta})
        if (v->size() != n) throw UsageError("ParticleSet: columns of unequal length");
    if (p.id.size() != n || p.status.size() != n || p.lost_turn.size() != n || p.lost_element.size() != n)
        throw UsageError("ParticleSet: columns of unequal length");
    fields_.upload(f_x, p.x.data(), n);
    fields_.upload(f_xp, p.xp.data(), n);
    fields_.upload(f_y, p.y.data(), n);
    fields_.upload(f_yp, p.yp.data(), n);
    fields_.upload(f_z, p.z.data(), n);
    fields_.upload(f_delta, p.delta.data(), n);
    fields_.upload(f_id, p.id.data(), n);
    fields_.upload(f_status, p.status.data(), n);
    fields_.upload(f_lost_turn, p.lost_turn.data(), n);
    fields_.upload(f_lost_element, p.lost_element.data(), n);
}

ParticleSet Beam::download() const {
    ParticleSet p;
    p.resize(n_);
    fields_.download(f_x, p.x.data(), n_);
    fields_.download(f_xp, p.xp.data(), n_);
    fields_.download(f_y, p.y.data(), n_);
    fields_.download(f_yp, p.yp.data(), n_);
    fields_.download(f_z, p.z.data(), n_);
    fields_.download(f_delta, p.delta.data(), n_);
    fields_.download(f_id, p.id.data(), n_);
    fields_.download(f_status, p.status.data(), n_);
    fields_.download(f_lost_turn, p.lost_turn.data(), n_);
    fields_.download(f_lost_element, p.lost_element.data(), n_);
    return p;
}

}  // namespace partikel::pic
