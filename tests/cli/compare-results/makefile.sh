#!/usr/bin/env bash
# The regression target from the man page's EXAMPLES works with make: a run within tolerance
# of the stored reference passes, a drifted one fails the target.
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null || { echo "FAIL make is not installed"; exit 1; }

printf 'turn,energy\n0,-0.25\n1,-0.2500001\n' >reference.csv
cat >Makefile <<'MAKE'
check: energy.csv
	compare-results --key turn --rtol 1e-6 energy.csv reference.csv
MAKE
printf 'turn,energy\n0,-0.25\n1,-0.25000015\n' >energy.csv
check "within tolerance" 0 make -s check
printf 'turn,energy\n0,-0.25\n1,-0.2501\n' >energy.csv
check "drifted" 2 make -s check   # make exits 2 when a recipe fails
expect_text "report on stdout" out "DIFFERENT"
finish
