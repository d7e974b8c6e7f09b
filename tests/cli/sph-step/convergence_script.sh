#!/usr/bin/env bash
# scripts/dam-break-convergence.sh as a test (label slow, about a minute on 2 cores): the coarse
# a/dx 4 and 6 on the CPU. The deviation falls from 4 to 6 (26.8% to 12.8% after T = 0.8), so
# "does not grow" passes in that order and fails in the reverse one (the same runs, which make
# does not repeat); the criteria that two coarse resolutions cannot judge say n/a.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
script="$PARTIKEL_SOURCE_DIR/scripts/dam-break-convergence.sh"
flags=(--gates 0 --device cpu --bin "$PARTIKEL_BUILD_DIR/bin/" --out conv)
check "coarse to fine" 0 "$script" --ratios 4,6 "${flags[@]}"
expect_text "coarse to fine" out "pass: the deviation does not grow with resolution"
expect_text "coarse to fine: the band needs a/dx >= 16" out "n/a : within +-8% of both experiments at a/dx >= 16"
expect_text "coarse to fine: shrinking needs three" out "n/a : the differences between successive resolutions shrink"
[ -s conv/summary.txt ] && [ -s conv/g0-r4/compare.tsv ] && [ -s conv/g0-r6/compare.tsv ] ||
  { echo "FAIL coarse to fine: no summary or compare.tsv"; fail=1; }
check "fine to coarse fails" 1 "$script" --ratios 6,4 "${flags[@]}"
expect_text "fine to coarse fails" out "FAIL: the deviation does not grow with resolution (6 -> 4:"
check "a usage error" 2 "$script" --ratios
finish
