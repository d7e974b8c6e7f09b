#!/usr/bin/env bash
# Real particle files made by particle-convert: stream (.pks) and HDF5 (.h5) files, a stream
# on stdin, frames of different steps, and a truncated stream. (Multi-frame files are covered
# by tests/unit/compare/test_cli.cpp, which writes them through formats/.)
. "$(dirname "$0")/lib.sh"
command -v particle-convert >/dev/null || { echo "FAIL particle-convert is not built"; exit 1; }

frame() {   # frame STEP DENSITY_OF_ID_3 ORDER: one CSV frame of four particles
  printf '# step: %s\nid,position_x,position_y,position_z,density\n' "$1"
  if [ "$3" = shuffled ]; then
    printf '3,2,0,0,%s\n1,0,0,0,1000\n4,3,0,0,1003\n2,1,0,0,1001\n' "$2"
  else
    printf '1,0,0,0,1000\n2,1,0,0,1001\n3,2,0,0,%s\n4,3,0,0,1003\n' "$2"
  fi
}
frame 0 1002 in-order >a0.csv
frame 10 1002 in-order >a10.csv
frame 0 1002 shuffled >b0.csv
frame 10 1002.5 shuffled >b10.csv
for f in a0 a10 b0 b10; do particle-convert -q $f.csv $f.pks || { echo "FAIL convert $f"; exit 1; }; done

check "stream against itself" 0 compare-results a0.pks a0.pks
check "shuffled stream, by id" 0 compare-results a0.pks b0.pks
check "stream on stdin" 0 sh -c 'particle-convert -q a0.csv - | compare-results - b0.pks'
check "perturbed frame" 1 compare-results a10.pks b10.pks
expect_text "perturbed frame names the particle" out "id 3"
check "within a density tolerance" 0 compare-results --tol density=0.6 a10.pks b10.pks
check "steps differ" 1 compare-results a0.pks b10.pks
expect_text "steps differ" out "step 0: frame only in A"
particle-convert -q a0.pks a0.h5 || { echo "FAIL convert to h5"; fail=1; }
check "HDF5 against stream" 0 compare-results a0.h5 b0.pks
check "progress on request" 0 compare-results --progress -o report.txt a0.pks b0.pks
expect_text "progress on request" err "compare ["
check "no progress with --quiet" 0 compare-results --progress --quiet a0.pks b0.pks
[ -s err ] && { echo "FAIL --quiet still drew progress"; fail=1; }
head -c 100 a0.pks >cut.pks
check "truncated stream" 2 compare-results a0.pks cut.pks
finish
