#!/usr/bin/env bash
# Lists are written in the common format and agree with brute force for every method.
. "$PARTIKEL_SOURCE_DIR/tests/cli/frnn-build/lib.sh"

particles "$work/p.pks" 1500 7 2
for args in "-m cell" "-m verlet --skin 0.05" "-m subcell -k 1 -s cube" "-m subcell -k 2 -s sphere" \
            "-m subcell -k 3 -s full" "-m subcell -k 2 -s sphere --order shared-first" \
            "-m cell --morton --sort radix" "-m subcell -k 2 --periodic xyz --domain 0,0,0,2,2,2"; do
  # shellcheck disable=SC2086
  check "check $args" 0 frnn-build -i "$work/p.pks" -r 0.2 $args --check 2000 --device cpu -o "$work/n.pks"
  check "describe $args" 0 particle-info "$work/n.pks"
  expect_text "$args: count column" "$work/out" "neighbor_count"
  expect_text "$args: offset column" "$work/out" "neighbor_offset"
  expect_text "$args: index group" "$work/out" "group neighbors"
done

# Stdin to stdout; the index list is as long as the counts say.
check "pipe" 0 sh -c "frnn-build -r 0.2 --device cpu <'$work/p.pks' >'$work/piped.pks'"
check "neighbors as csv" 0 particle-convert "$work/piped.pks" --groups neighbors -o "$work/index.csv"
check "counts as csv" 0 particle-convert "$work/piped.pks" --groups particles --columns neighbor_count -o "$work/counts.csv"
total=$(grep -v '^#' "$work/counts.csv" | tail -n +2 | awk '{ s += $1 } END { print s }')
entries=$(grep -v '^#' "$work/index.csv" | tail -n +2 | wc -l)
if [ "$total" != "$entries" ]; then echo "FAIL counts sum $total != index entries $entries"; fail=1; fi

# --radius-column: r = factor * max(column).
awk 'BEGIN { srand(3); print "position_x,position_y,position_z,smoothing_length";
  for (i = 0; i < 500; i++) printf "%.5f,%.5f,%.5f,0.05\n", rand(), rand(), rand() }' >"$work/h.csv"
particle-convert "$work/h.csv" -o "$work/h.pks"
check "radius column" 0 frnn-build -i "$work/h.pks" --radius-column smoothing_length --factor 2 --check --device cpu -o "$work/hn.pks"
check "radius column attrs" 0 particle-info "$work/hn.pks"
expect_text "radius 2h" "$work/out" "frnn.radius = 0.1"
# ... or from a frame attribute: SPH frames carry h as sph.h (frnn-build(1)'s example).
check "sph frame" 0 sh -c "sph-init dam-break --dx 0.01 >'$work/sph.pks'"
check "radius attribute" 0 frnn-build -i "$work/sph.pks" --group fluid --radius-column sph.h --factor 2 --check --device cpu -o "$work/sphn.pks"
check "radius attribute list" 0 particle-info "$work/sphn.pks"
expect_text "radius attribute: 2h" "$work/out" "frnn.radius"
finish
