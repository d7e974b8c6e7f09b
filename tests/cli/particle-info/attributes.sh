#!/usr/bin/env bash
# particle-info shows a frame's attributes once and then only those that change (a run's 40
# attributes would otherwise repeat for every frame); --all-attributes shows every frame's.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
sph-init -q dam-break --dx 0.05 -o init.pks &&
  sph-step -q --device cpu -i init.pks --steps 3 --every-steps 1 -o run.pks || { echo "FAIL making the input"; exit 1; }
check "default" 0 particle-info --no-stats run.pks
n=$(grep -c '^  sph.alpha = ' "$work/out")
[ "$n" -eq 1 ] || { echo "FAIL sph.alpha shown $n times, expected once"; fail=1; }
expect_text "the rest counted" "$work/out" "attributes as in the frame before; --all-attributes shows them)"
check "--all-attributes" 0 particle-info --no-stats --all-attributes run.pks
n=$(grep -c '^  sph.alpha = ' "$work/out")
[ "$n" -eq 4 ] || { echo "FAIL --all-attributes: sph.alpha shown $n times, expected 4"; fail=1; }
# A changed attribute is shown at the frame where it changes: two runs with different alpha.
sph-step -q --device cpu -i init.pks --steps 1 --alpha 0.3 -o b.pks || fail=1
cat run.pks b.pks >both.pks
check "a change" 0 particle-info --no-stats both.pks
n=$(grep -c '^  sph.alpha = ' "$work/out")
[ "$n" -eq 2 ] || { echo "FAIL a changed sph.alpha shown $n times, expected 2"; fail=1; }
expect_text "the new value" "$work/out" "sph.alpha = 0.30000001"
finish
