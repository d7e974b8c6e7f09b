// A subset of MAD-X (CERN, "MAD-X User's Guide") read into a Lattice: what a ring needs for
// linear tracking with space charge (docs/PIC.md, "MAD-X subset").
//
//   statements    name = expr;  name := expr;  label: class, attr=expr, ...;  beam, ...;
//                 label: sequence, l=expr [, refer=centre|entry|exit]; ... endsequence;
//                 use, sequence=name;  title, ...;  option, ...;  return;  stop;
//   classes       drift (l), quadrupole (l, k1), sbend (l, angle), multipole (knl={...}),
//                 rfcavity (l, volt [MV], harmon, lag [2 pi]), marker, monitor/hmonitor/vmonitor,
//                 and elements derived from defined ones (qf2: qf, k1=...);
//                 apertype=circle|ellipse with aperture={a[, b]} on any element
//   expressions   numbers, variables, + - * / ^, parentheses, pi twopi degrad raddeg clight
//                 pmass nmass emass e, sqrt exp log sin cos tan asin acos atan abs
//
// Every other statement, class or attribute (and any nonzero skew, tilt or edge angle) is a
// FormatError naming the file and line; so is every syntax error. Deferred expressions (:=) and
// element attributes are evaluated after the whole file is read, with the final values.
#pragma once

#include <string>
#include <string_view>

#include "pic/lattice.hpp"

namespace partikel::pic {

Lattice parse_madx(std::string_view text, const std::string& file_name);

}  // namespace partikel::pic
