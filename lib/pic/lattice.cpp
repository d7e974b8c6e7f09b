#include "pic/lattice.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "base/error.hpp"
#include "base/io.hpp"
#include "base/log.hpp"
#include "pic/madx.hpp"
#include "pic/maps.hpp"

namespace partikel::pic {

std::string_view element_kind_name(ElementKind kind) {
    switch (kind) {
        case ElementKind::drift: return "drift";
        case ElementKind::quadrupole: return "quadrupole";
        case ElementKind::sbend: return "sbend";
        case ElementKind::constant_focusing: return "focusing";
        case ElementKind::multipole: return "multipole";
        case ElementKind::rf_cavity: return "rfcavity";
        case ElementKind::aperture: return "aperture";
        case ElementKind::monitor: return "monitor";
        case ElementKind::marker: return "marker";
    }
    return "?";
}

Element make_element(ElementKind kind, std::string name, double length_m) {
    Element e;
    e.kind = kind;
    e.name = std::move(name);
    e.length_m = length_m;
    return e;
}

namespace {

std::vector<std::string_view> split_words(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        const std::size_t begin = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
        if (i > begin) words.push_back(line.substr(begin, i - begin));
    }
    return words;
}

// One statement's key=value pairs, each to be consumed once; leftovers are errors.
class Keys {
public:
    Keys(std::span<const std::string_view> words, std::string where) : where_(std::move(where)) {
        for (std::string_view w : words) {
            const auto eq = w.find('=');
            if (eq == std::string_view::npos || eq == 0 || eq + 1 == w.size())
                throw FormatError(where_ + ": expected key=value, got '" + std::string(w) + "'");
            if (!values_.emplace(std::string(w.substr(0, eq)), std::string(w.substr(eq + 1))).second)
                throw FormatError(where_ + ": '" + std::string(w.substr(0, eq)) + "' given twice");
        }
    }
    bool has(const std::string& key) const { return values_.count(key) != 0; }
    double number(const std::string& key) {
        auto it = values_.find(key);
        if (it == values_.end()) throw FormatError(where_ + ": missing " + key + "=");
        const double v = parse(key, it->second);
        values_.erase(it);
        return v;
    }
    double number(const std::string& key, double fallback) { return has(key) ? number(key) : fallback; }
    std::vector<double> list(const std::string& key) {
        auto it = values_.find(key);
        if (it == values_.end()) throw FormatError(where_ + ": missing " + key + "=");
        std::vector<double> out;
        std::string_view rest = it->second;
        while (true) {
            const auto comma = rest.find(',');
            out.push_back(parse(key, std::string(rest.substr(0, comma))));
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
        values_.erase(it);
        return out;
    }
    void finish() const {
        if (!values_.empty()) throw FormatError(where_ + ": unknown key '" + values_.begin()->first + "'");
    }
    const std::string& where() const { return where_; }

private:
    double parse(const std::string& key, const std::string& text) const {
        double v = 0.0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
            throw FormatError(where_ + ": " + key + "=" + text + " is not a number");
        return v;
    }
    std::string where_;
    std::map<std::string, std::string> values_;
};

double positive(Keys& keys, const std::string& key) {
    const double v = keys.number(key);
    if (!(v > 0.0)) throw FormatError(keys.where() + ": " + key + " must be positive");
    return v;
}

Aperture aperture_from(Keys& keys) {
    Aperture a;
    if (keys.has("radius")) {
        a.shape = Aperture::Shape::circle;
        a.a_m = a.b_m = positive(keys, "radius");
    } else {
        a.shape = Aperture::Shape::ellipse;
        a.a_m = positive(keys, "a");
        a.b_m = positive(keys, "b");
    }
    return a;
}

Element element_from(std::string_view kind, std::string name, Keys& keys) {
    Element e;
    e.name = std::move(name);
    e.source = keys.where();
    if (kind == "drift") {
        e.kind = ElementKind::drift;
        e.length_m = keys.number("L");
        if (e.length_m < 0.0) throw FormatError(keys.where() + ": negative drift length");
    } else if (kind == "quadrupole") {
        e.kind = ElementKind::quadrupole;
        e.length_m = positive(keys, "L");
        e.k1_per_m2 = keys.number("k1");
    } else if (kind == "sbend") {
        e.kind = ElementKind::sbend;
        e.length_m = positive(keys, "L");
        e.angle_rad = keys.number("angle");
    } else if (kind == "focusing") {
        e.kind = ElementKind::constant_focusing;
        e.length_m = positive(keys, "L");
        e.k1_per_m2 = positive(keys, "k");
    } else if (kind == "multipole") {
        e.kind = ElementKind::multipole;
        const std::vector<double> knl = keys.list("knl");
        if (knl.size() > e.knl.size()) throw FormatError(keys.where() + ": knl has more than 6 orders");
        if (knl[0] != 0.0) throw FormatError(keys.where() + ": dipole kicks (knl[0] != 0) are not supported");
        for (std::size_t n = 0; n < knl.size(); ++n) e.knl[n] = knl[n];
    } else if (kind == "sextupole") {
        e.kind = ElementKind::multipole;
        e.knl[2] = keys.number("k2l");
    } else if (kind == "octupole") {
        e.kind = ElementKind::multipole;
        e.knl[3] = keys.number("k3l");
    } else if (kind == "rfcavity") {
        e.kind = ElementKind::rf_cavity;
        e.voltage_V = keys.number("voltage");
        e.harmonic = positive(keys, "harmonic");
        e.phase_rad = keys.number("phase_deg", 0.0) * constants::pi / 180.0;
    } else if (kind == "aperture") {
        e.kind = ElementKind::aperture;
        e.aperture = aperture_from(keys);
    } else if (kind == "monitor") {
        e.kind = ElementKind::monitor;
    } else if (kind == "marker") {
        e.kind = ElementKind::marker;
    } else {
        throw FormatError(keys.where() + ": unknown element kind '" + std::string(kind) + "'");
    }
    keys.finish();
    return e;
}

std::string number_text(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

}  // namespace

Lattice parse_lattice_text(std::string_view text, const std::string& file_name) {
    Lattice lattice;
    lattice.name = file_name;
    // Open repeat blocks: where their body starts in `elements`, and their count.
    struct Repeat {
        std::size_t first;
        long count;
        std::string where;
    };
    std::vector<Repeat> repeats;
    std::size_t line_number = 0;
    while (!text.empty()) {
        const auto newline = text.find('\n');
        std::string_view line = text.substr(0, newline);
        text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
        ++line_number;
        if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        const auto words = split_words(line);
        if (words.empty()) continue;
        const std::string where = file_name + ":" + std::to_string(line_number);
        const std::string_view keyword = words[0];
        const std::span<const std::string_view> args(words);
        if (keyword == "repeat") {
            long count = 0;
            const auto [end, ec] = std::from_chars(words.size() == 2 ? words[1].data() : nullptr,
                                                   words.size() == 2 ? words[1].data() + words[1].size() : nullptr, count);
            if (words.size() != 2 || ec != std::errc() || end != words[1].data() + words[1].size() || count < 1)
                throw FormatError(where + ": expected 'repeat N' with N >= 1");
            repeats.push_back({lattice.elements.size(), count, where});
        } else if (keyword == "end") {
            if (words.size() != 1 || repeats.empty()) throw FormatError(where + ": 'end' without 'repeat'");
            const Repeat r = repeats.back();
            repeats.pop_back();
            const std::size_t body_size = lattice.elements.size() - r.first;
            if (body_size > 0 && double(r.first) + double(body_size) * double(r.count) > double(kMaxLatticeElements))
                throw FormatError(r.where + ": repeat " + std::to_string(r.count) + " of " + std::to_string(body_size) +
                                  " elements makes " + format_g(double(r.first) + double(body_size) * double(r.count)) +
                                  " elements; a lattice has at most " + std::to_string(kMaxLatticeElements));
            const std::vector<Element> body(lattice.elements.begin() + std::ptrdiff_t(r.first), lattice.elements.end());
            for (long i = 1; i < r.count; ++i) lattice.elements.insert(lattice.elements.end(), body.begin(), body.end());
        } else if (keyword == "beam") {
            Keys keys(args.subspan(1), where);
            ParticleSpecies s;
            s.Z = int(keys.number("Z"));
            s.A = int(keys.number("A"));
            s.mass_kg = keys.number("mass_kg", 0.0);
            s.kinetic_energy_per_nucleon_eV = keys.number("energy_per_nucleon_eV");
            if (keys.has("intensity")) lattice.intensity = keys.number("intensity");
            keys.finish();
            lattice.species = s;
        } else if (keyword == "pipe") {
            Keys keys(args.subspan(1), where);
            lattice.pipe = aperture_from(keys);
            keys.finish();
        } else if (keyword == "ring") {
            Keys keys(args.subspan(1), where);
            lattice.gamma_t = positive(keys, "gamma_t");
            keys.finish();
        } else {
            if (words.size() < 2 || words[1].find('=') != std::string_view::npos)
                throw FormatError(where + ": expected '" + std::string(keyword) + " NAME key=value ...'");
            Keys keys(args.subspan(2), where);
            if (lattice.elements.size() >= kMaxLatticeElements)
                throw FormatError(where + ": more than " + std::to_string(kMaxLatticeElements) + " elements");
            lattice.elements.push_back(element_from(keyword, std::string(words[1]), keys));
        }
    }
    if (!repeats.empty()) throw FormatError(repeats.back().where + ": 'repeat' without 'end'");
    if (lattice.elements.empty()) throw FormatError(file_name + ": no elements");
    if (!(lattice.circumference_m() > 0.0)) throw FormatError(file_name + ": the ring has no length");
    if (lattice.gamma_t)
        for (const Element& e : lattice.elements)
            if (e.kind == ElementKind::sbend && e.angle_rad != 0.0)
                throw FormatError(e.source + ": gamma_t is for lattices without bends (the bends give the path lengths)");
    return lattice;
}

Lattice read_lattice(const std::string& path) {
    const auto in = InputStream::open(path);
    const std::string text = read_text(*in, kMaxLatticeFileBytes, "a lattice file");
    for (const char* ext : {".madx", ".seq", ".mad"}) {
        const std::string_view e(ext);
        if (path.size() > e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0)
            return parse_madx(text, path);
    }
    return parse_lattice_text(text, path);
}

std::string format_lattice_text(const Lattice& lattice) {
    std::ostringstream out;
    out << "# Partikel lattice (docs/PIC.md): " << lattice.name << "\n";
    if (lattice.species) {
        const ParticleSpecies& s = *lattice.species;
        out << "beam Z=" << s.Z << " A=" << s.A;
        if (s.mass_kg > 0.0) out << " mass_kg=" << number_text(s.mass_kg);
        out << " energy_per_nucleon_eV=" << number_text(s.kinetic_energy_per_nucleon_eV);
        if (lattice.intensity) out << " intensity=" << number_text(*lattice.intensity);
        out << "\n";
    }
    auto aperture_keys = [](const Aperture& a) {
        return a.shape == Aperture::Shape::circle ? " radius=" + number_text(a.a_m)
                                                  : " a=" + number_text(a.a_m) + " b=" + number_text(a.b_m);
    };
    if (lattice.pipe.active()) out << "pipe" << aperture_keys(lattice.pipe) << "\n";
    if (lattice.gamma_t) out << "ring gamma_t=" << number_text(*lattice.gamma_t) << "\n";
    for (const Element& e : lattice.elements) {
        if (e.aperture.active() && e.kind != ElementKind::aperture)
            throw UsageError(e.name + ": the text format has apertures only as elements of their own");
        out << element_kind_name(e.kind) << " " << e.name;
        switch (e.kind) {
            case ElementKind::drift: out << " L=" << number_text(e.length_m); break;
            case ElementKind::quadrupole:
                out << " L=" << number_text(e.length_m) << " k1=" << number_text(e.k1_per_m2);
                break;
            case ElementKind::sbend:
                out << " L=" << number_text(e.length_m) << " angle=" << number_text(e.angle_rad);
                break;
            case ElementKind::constant_focusing:
                out << " L=" << number_text(e.length_m) << " k=" << number_text(e.k1_per_m2);
                break;
            case ElementKind::multipole: {
                out << " knl=";
                for (std::size_t n = 0; n < e.knl.size(); ++n) out << (n ? "," : "") << number_text(e.knl[n]);
                break;
            }
            case ElementKind::rf_cavity:
                out << " voltage=" << number_text(e.voltage_V) << " harmonic=" << number_text(e.harmonic)
                    << " phase_deg=" << number_text(e.phase_rad * 180.0 / constants::pi);
                break;
            case ElementKind::aperture: out << aperture_keys(e.aperture); break;
            case ElementKind::monitor:
            case ElementKind::marker: break;
        }
        out << "\n";
    }
    return out.str();
}

namespace {

// Phase advances per cell in x and y (rad, in [0, pi]); NaN where the cell is unstable.
std::array<double, 2> cell_phase_advances(const std::vector<Element>& cell) {
    const MapContext context{make_reference(proton(1e9)), 1.0, std::nullopt};  // transverse blocks only
    Matrix6 m = Matrix6::identity();
    for (const Element& e : cell) m = element_map(e, context) * m;
    const double cx = 0.5 * (m(0, 0) + m(1, 1)), cy = 0.5 * (m(2, 2) + m(3, 3));
    return {std::abs(cx) <= 1.0 ? std::acos(cx) : NAN, std::abs(cy) <= 1.0 ? std::acos(cy) : NAN};
}

}  // namespace

Lattice generate_ring(const RingGenerator& g) {
    if (g.cells < 1) throw UsageError("ring generator: at least one cell");
    // Up to 6 elements a cell (FODO with bends).
    if (std::size_t(g.cells) > kMaxLatticeElements / 6)
        throw UsageError("ring generator: " + std::to_string(g.cells) + " cells make up to " +
                         std::to_string(6 * std::uint64_t(g.cells)) + " elements; a lattice has at most " +
                         std::to_string(kMaxLatticeElements) + " (at most " + std::to_string(kMaxLatticeElements / 6) +
                         " cells)");
    if (!(g.phase_advance_deg > 0.0 && g.phase_advance_deg < 180.0))
        throw UsageError("ring generator: the phase advance per cell must lie in (0, 180) degrees");
    if (!(g.cell_length_m > 0.0)) throw UsageError("ring generator: the cell length must be positive");
    const double mu = g.phase_advance_deg * constants::pi / 180.0;
    const double Lc = g.cell_length_m;
    Lattice lattice;
    lattice.pipe = g.pipe;
    lattice.gamma_t = g.gamma_t;
    char name[160];
    std::vector<Element> cell;
    if (g.cell == RingGenerator::Cell::constant_focusing) {
        Element cf = make_element(ElementKind::constant_focusing, "CF", Lc);
        cf.k1_per_m2 = (mu / Lc) * (mu / Lc);
        cell.push_back(cf);
        std::snprintf(name, sizeof name, "constant focusing: %d cells of %g m, %g deg per cell", g.cells, Lc,
                      g.phase_advance_deg);
    } else {
        if (g.bends && g.gamma_t) throw UsageError("ring generator: gamma_t is for rings without bends");
        const double Lq = g.quad_length_m > 0.0 ? g.quad_length_m : Lc / 10.0;
        const double Lb = g.bends ? Lc / 4.0 : 0.0;
        const double Ld = 0.5 * (Lc - 2.0 * Lq - 2.0 * Lb);
        if (!(Ld > 0.0)) throw UsageError("ring generator: quadrupoles and bends longer than the cell");
        Element qf = make_element(ElementKind::quadrupole, "QF", Lq);
        Element qd = make_element(ElementKind::quadrupole, "QD", Lq);
        const Element d = make_element(ElementKind::drift, "D", Ld);
        Element b = make_element(ElementKind::sbend, "B", Lb);
        b.angle_rad = 2.0 * constants::pi / (2.0 * g.cells);
        auto make_cell = [&](double kf, double kd) {
            qf.k1_per_m2 = kf;
            qd.k1_per_m2 = kd;
            return g.bends ? std::vector<Element>{qf, d, b, qd, d, b} : std::vector<Element>{qf, d, qd, d};
        };
        // Thin-lens start (sin(mu/2) = Lc / (4 f)), then Newton on both strengths.
        double kf = 4.0 * std::sin(mu / 2.0) / (Lc * Lq), kd = -kf;
        for (int iteration = 0;; ++iteration) {
            const auto m0 = cell_phase_advances(make_cell(kf, kd));
            const double fx = m0[0] - mu, fy = m0[1] - mu;
            if (!std::isfinite(fx) || !std::isfinite(fy) || iteration == 60)
                throw UsageError("ring generator: no FODO cell of these lengths has " + std::to_string(g.phase_advance_deg) +
                                 " deg per cell");
            if (std::abs(fx) < 1e-14 && std::abs(fy) < 1e-14) break;
            const double h = 1e-7 * std::abs(kf);
            const auto mf = cell_phase_advances(make_cell(kf + h, kd));
            const auto md = cell_phase_advances(make_cell(kf, kd - h));
            const double a = (mf[0] - m0[0]) / h, b2 = -(md[0] - m0[0]) / h;
            const double c = (mf[1] - m0[1]) / h, d2 = -(md[1] - m0[1]) / h;
            const double det = a * d2 - b2 * c;
            if (det == 0.0 || !std::isfinite(det)) throw UsageError("ring generator: singular FODO Jacobian");
            kf -= (d2 * fx - b2 * fy) / det;
            kd -= (-c * fx + a * fy) / det;
            if (iteration > 40 && std::abs(fx) < 1e-12 && std::abs(fy) < 1e-12) break;  // round-off floor
        }
        cell = make_cell(kf, kd);
        std::snprintf(name, sizeof name, "FODO: %d cells of %g m%s, %g deg per cell", g.cells, Lc,
                      g.bends ? " with bends" : "", g.phase_advance_deg);
    }
    lattice.name = name;
    for (int i = 0; i < g.cells; ++i) lattice.elements.insert(lattice.elements.end(), cell.begin(), cell.end());
    return lattice;
}

}  // namespace partikel::pic
