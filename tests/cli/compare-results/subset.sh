#!/usr/bin/env bash
# What compare-results compared and what it skipped (issue 12): the report counts frames,
# groups and particles compared and those on one side only; --subset turns one-sided frames
# and groups into notes, and inputs with nothing in common are trouble (2), never EQUAL.
. "$(dirname "$0")/lib.sh"

sph-init -q dam-break --dx 0.05 -o init.pks &&
  sph-step -q --device cpu -i init.pks --steps 3 --every-steps 1 -o run.pks &&
  particle-convert -q --frames 0,1 run.pks early.pks &&   # steps 0, 1
  particle-convert -q --frames 2,3 run.pks late.pks &&    # steps 2, 3
  particle-convert -q --frames 1,2 run.pks mid.pks &&     # steps 1, 2
  particle-convert -q --groups fluid mid.pks fluid.pks ||
  { echo "FAIL making the inputs"; exit 1; }

check "--subset with no frame in common" 2 compare-results --subset early.pks late.pks
expect_error "--subset with no frame in common" compare-results "A and B have nothing in common to compare"
expect_text "--subset with no frame in common" "$work/out" "NOTHING COMPARED"
expect_text "--subset with no frame in common" "$work/out" "note: step 0: frame only in A"
grep -q EQUAL "$work/out" && { echo "FAIL nothing compared reads EQUAL"; fail=1; }
check "by time too" 2 compare-results --subset --match time early.pks late.pks
check "as JSON" 2 compare-results --json --subset early.pks late.pks
expect_text "as JSON" "$work/out" '"nothing_compared":true'
expect_text "as JSON" "$work/out" '"only_a":{"frames":2,"groups":0,"rows":0}'
check "without --subset: different" 1 compare-results early.pks late.pks
expect_text "without --subset: different" "$work/out" "differs: step 0: frame only in A"

check "--subset with one frame in common" 0 compare-results --subset early.pks mid.pks
expect_text "the counts" "$work/out" "compared 1 frame, 2 groups, 590 particles; only in A (skipped: --subset): 1 frame; only in B (skipped: --subset): 1 frame"
expect_text "a note for A's frame" "$work/out" "note: step 0: frame only in A"
expect_text "a note for B's frame" "$work/out" "note: step 2: frame only in B"
check "a group on one side, --subset" 0 compare-results --subset mid.pks fluid.pks
expect_text "a group on one side, --subset" "$work/out" "note: step 1: group 'boundary' only in A"
expect_text "a group on one side, counted" "$work/out" "compared 2 frames, 2 groups, 40 particles; only in A (skipped: --subset): 2 groups"
check "a group on one side" 1 compare-results mid.pks fluid.pks
expect_text "a group on one side" "$work/out" "differs: step 1: group 'boundary' only in A"
check "all of it" 0 compare-results run.pks run.pks
expect_text "all of it" "$work/out" "compared 4 frames, 8 groups, 2360 particles"
# Tables: rows paired by key, none in common.
printf 'turn,e\n1,0.5\n2,0.6\n' >t1.csv
printf 'turn,e\n3,0.5\n4,0.6\n' >t2.csv
check "tables with no key in common, --subset" 2 compare-results --key turn --subset t1.csv t2.csv
expect_text "tables with no key in common, --subset" "$work/out" "compared 0 rows; only in A (skipped: --subset): 2 rows"
check "tables with a key in common, --subset" 0 compare-results --key turn --subset t1.csv t1.csv
expect_text "tables with a key in common, --subset" "$work/out" "compared 2 rows"
finish
