#!/usr/bin/env bash
# Particle files in formats' CSV encoding (read with --kind particles, also from stdin):
# id matching in shuffled order, tolerances on vector and scalar columns, NaN, shapes.
. "$(dirname "$0")/lib.sh"

cat >a.csv <<'CSV'
# step: 10
# time: 0.5
id,position_x,position_y,position_z,density
1,0,0,0,1000
2,1,0,0,1001
3,2,0,0,1002
4,3,0,0,nan
CSV
cat >shuffled.csv <<'CSV'
# step: 10
# time: 0.5
id,position_x,position_y,position_z,density
3,2,0,0,1002
4,3,0,0,nan
1,0,0,0,1000
2,1,0,0,1001
CSV
# Particle 3 moved by (0.0003, 0.0004, 0): |d| = 5e-4.
sed 's/^3,2,0,0,1002$/3,2.0003,0.0004,0,1002/' shuffled.csv >moved.csv
# One particle fewer, and an extra column.
head -n 6 a.csv | sed 's/density$/density,pressure/; s/^\([0-9].*\)$/\1,0/' >fewer.csv

p() { compare-results --kind particles "$@"; }
check "NaN differs by default" 1 p a.csv shuffled.csv
expect_text "NaN differs by default" out "id 4"
check "same particles in another order" 0 p --nan-equal a.csv shuffled.csv
expect_text "matched by id" out "matched by id"
check "vector change below tolerance" 0 p --nan-equal --tol position=5.1e-4 a.csv moved.csv
check "vector change above tolerance" 1 p --nan-equal --tol position=4.9e-4 a.csv moved.csv
expect_text "worst particle" out "id 3"
check "relative tolerance" 0 p --nan-equal --rtol 2.6e-4 a.csv moved.csv
check "relative tolerance, tighter" 1 p --nan-equal --rtol 2.4e-4 a.csv moved.csv
check "stdin against a file" 0 compare-results --kind particles --nan-equal - shuffled.csv <a.csv
check "fewer particles and a column on one side" 1 p --nan-equal a.csv fewer.csv
expect_text "fewer: particles" out "1 particle only in A (e.g. id 4)"
expect_text "fewer: column" out "column 'pressure' only in B"
check "--subset and --ignore" 0 p --nan-equal --subset --ignore pressure a.csv fewer.csv
check "JSON report" 1 p --json a.csv moved.csv
expect_text "JSON verdict" out '"equal":false'
expect_text "JSON column" out '"name":"position"'
if command -v python3 >/dev/null; then
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["sections"][0]["step"] == 10' out ||
    { echo "FAIL JSON does not parse"; fail=1; }
fi
check "match by time" 0 p --nan-equal --match time a.csv shuffled.csv
finish
