// A ring as a sequence of elements, from a text file of our own (docs/PIC.md, "Lattice
// files"), a MAD-X sequence (pic/madx.hpp) or the FODO generator below.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pic/reference.hpp"

namespace partikel::pic {

enum class ElementKind {
    drift,
    quadrupole,         // k1 > 0 focuses in x
    sbend,              // sector dipole
    constant_focusing,  // the same linear focusing k in x and y (a smooth-focusing channel)
    multipole,          // thin kick of normal multipoles knl[1..5]
    rf_cavity,          // thin; a thick MAD-X cavity becomes drift, kick, drift
    aperture,           // thin; only its aperture
    monitor,            // thin; an observation point for the optics
    marker,             // thin; does nothing
};

std::string_view element_kind_name(ElementKind kind);

struct Aperture {
    enum class Shape { none, circle, ellipse };
    Shape shape = Shape::none;
    double a_m = 0.0;  // circle: radius; ellipse: horizontal half axis
    double b_m = 0.0;  // ellipse: vertical half axis
    bool active() const { return shape != Shape::none; }
};

struct Element {
    ElementKind kind = ElementKind::marker;
    std::string name;
    double length_m = 0.0;
    double k1_per_m2 = 0.0;              // quadrupole: k1 = (dBy/dx)/(B rho); constant focusing: k > 0
    double angle_rad = 0.0;              // sbend: bending angle (rho = L / angle)
    std::array<double, 6> knl{};         // multipole: integrated normal strengths in m^-n (MAD-X KNL); knl[0] = 0
    double voltage_V = 0.0;              // rf cavity: peak voltage
    double harmonic = 0.0;               // rf cavity: harmonic number h
    double phase_rad = 0.0;              // rf cavity: synchronous phase (0 below, pi above transition)
    Aperture aperture;                   // checked where the particle leaves the element
    std::string source;                  // "file:line" where it was defined, for messages

    bool thick() const { return length_m > 0.0; }
};

Element make_element(ElementKind kind, std::string name, double length_m = 0.0);

// The most elements a lattice may have, however it is made (a file's repeat blocks, the ring
// generator's --cells): a turn tracks every element, so a lattice of a billion elements is a
// mistake to refuse with its numbers, not to allocate. (The LHC's sequence has some 10^4.)
inline constexpr std::size_t kMaxLatticeElements = 1'000'000;
// The largest lattice file, text or MAD-X, read whole.
inline constexpr std::uint64_t kMaxLatticeFileBytes = 64u << 20;

struct Lattice {
    std::vector<Element> elements;
    Aperture pipe;                       // a beam pipe checked where particles leave every thick element
    // Momentum compaction 1/gamma_t^2 spread evenly over the length, for lattices without bends
    // (smooth approximation); with bends their maps give the path lengths.
    std::optional<double> gamma_t;
    std::optional<ParticleSpecies> species;  // the file's beam, when it names one
    std::optional<double> intensity;         // the file's particle count (MAD-X NPART), when given
    std::string name;                        // file name or generator description

    double circumference_m() const;
};

// The text format of docs/PIC.md. FormatError naming `file_name` and the line for anything
// malformed or unknown.
Lattice parse_lattice_text(std::string_view text, const std::string& file_name);
// The lattice of a file: MAD-X when the name ends in .madx, .seq or .mad, else the text format.
Lattice read_lattice(const std::string& path);
// The text format of a lattice (reads back to the same lattice).
std::string format_lattice_text(const Lattice& lattice);

// A ring of identical cells with the phase advance `phase_advance_deg` per cell in both planes.
//   fodo:               QF, D, [B], QD, D, [B]: thick quadrupoles of `quad_length_m`, whose
//                       strengths are solved for (Newton, to 1e-13 rad); B are sector dipoles
//                       bending 2 pi / (2 cells) each when `bends` is set.
//   constant_focusing:  one constant-focusing element per cell (k = (mu / L)^2).
struct RingGenerator {
    enum class Cell { fodo, constant_focusing };
    Cell cell = Cell::fodo;
    int cells = 16;
    double phase_advance_deg = 129.3;
    double cell_length_m = 18.0;
    double quad_length_m = 0.0;  // fodo: 0 means cell length / 10
    bool bends = false;          // fodo: bend length is a third of the cell
    std::optional<double> gamma_t;
    Aperture pipe;
};
Lattice generate_ring(const RingGenerator& generator);

}  // namespace partikel::pic
