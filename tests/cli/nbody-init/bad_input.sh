#!/usr/bin/env bash
# nbody-init refuses what cannot make a model, with one line and exit status 2: no or an
# unknown model, fewer than two bodies, a size beyond --max-particles or the machine's memory
# (with the numbers), a flag of another model, NaN or infinite values, values the model
# cannot use; nothing is written then.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"

refuse() {  # refuse DESCRIPTION PATTERN ARGS...: exit 2, one error line matching PATTERN
  local what=$1 pattern=$2
  shift 2
  check "$what" 2 nbody-init "$@" -o x.pks
  expect_error "$what" nbody-init "$pattern"
}
refuse "no model" "no model given" 
refuse "unknown model" 'unknown model "spiral"' spiral
refuse "zero bodies" "at least two bodies" plummer -n 0
refuse "one body" "at least two bodies" plummer -n 1
refuse "negative count" "at least two bodies" uniform -n -5
refuse "not a count" "bodies" plummer -n 1e6
refuse "above --max-particles" "needs about 1.36 TB of host memory (136 bytes per body), above --max-particles 100000000" \
  plummer -n 10000000000
refuse "above a lower limit" "above --max-particles 999" plummer -n 1000 --max-particles 999
refuse "more than the machine has" "GB of host memory (136 bytes each), more than the" galaxy-pair -n 9000000000000 --max-particles 9000000000000
refuse "kepler is two bodies" "kepler is two bodies" kepler -n 3
refuse "a flag of another model" "--eccentricity does not apply to plummer" plummer --eccentricity 0.3
refuse "galaxy-pair in henon units" "galaxy-pair is built in astro units" galaxy-pair --units nbody
refuse "mass unit without astro units" "--mass needs --units astro" plummer --mass 2
refuse "unknown unit system" "--units" plummer --units cgs
refuse "unknown shape" "--shape" uniform --shape torus
refuse "eccentricity 1" "eccentricity must be in \[0, 1)" kepler --eccentricity 1
refuse "NaN eccentricity" "--eccentricity must be a finite number (got nan)" kepler --eccentricity nan
refuse "infinite size" "--size must be a finite number (got inf)" uniform --size inf
refuse "NaN inclination" "--inclination must be a finite number (got nan)" galaxy-pair -n 600 --inclination nan
refuse "negative virial ratio" "virial-ratio" uniform --virial-ratio -1
refuse "mass cut 1" "mass cut must be in (0, 1)" plummer --mass-cut 1
refuse "pericentre beyond the separation" "separation > pericentre" galaxy-pair -n 600 --pericenter 600
refuse "an orbit that cannot be" "no two-body orbit" galaxy-pair -n 600 --time-to-pericenter 1e9
refuse "galaxy-pair too small" "at least 6" galaxy-pair -n 5
[ -e x.pks ] && { echo "FAIL an output was left behind"; fail=1; }
finish
