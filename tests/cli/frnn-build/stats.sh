#!/usr/bin/env bash
# --stats prints the figures of merit; --json prints one object per frame.
. "$PARTIKEL_SOURCE_DIR/tests/cli/frnn-build/lib.sh"

particles "$work/p.pks" 2000 11 2
check "stats" 0 frnn-build -i "$work/p.pks" -r 0.25 -m subcell -k 2 -s sphere --stats --check --device cpu
expect_text "cells" "$work/out" "(nominal 613)"
expect_text "candidates" "$work/out" "per neighbour found"
expect_text "phases" "$work/out" "time (ms):   sort"
expect_text "histogram" "$work/out" "histogram (neighbours: particles)"
expect_text "check" "$work/out" "particles equal to brute force"

check "json" 0 frnn-build -i "$work/p.pks" -r 0.25 --stats --json --device cpu
expect_lines "one object" "$work/out" 1
expect_text "json fields" "$work/out" '"searched_cells_nominal":27'
expect_text "json candidates" "$work/out" '"candidates_per_neighbor":'
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["particles"]==2000 and sum(d["histogram"])==2000' "$work/out" \
    || { echo "FAIL json does not parse or histogram does not sum to N"; fail=1; }
fi

# Sphere visits fewer cells and examines fewer candidates per neighbour than the cube.
frnn-build -i "$work/p.pks" -r 0.25 -m subcell -k 2 -s cube --stats --json --device cpu >"$work/cube.json"
frnn-build -i "$work/p.pks" -r 0.25 -m subcell -k 2 -s sphere --stats --json --device cpu >"$work/sphere.json"
if command -v python3 >/dev/null; then
  python3 - "$work/cube.json" "$work/sphere.json" <<'PY' || { echo "FAIL sphere does not beat cube"; fail=1; }
import json, sys
c = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
assert s["searched_cells_mean"] < c["searched_cells_mean"], (s, c)
assert s["candidates_per_neighbor"] < c["candidates_per_neighbor"]
assert s["neighbors_mean"] == c["neighbors_mean"]
PY
fi
# The ball (cell mode, k = 0) examines fewer candidates than the tight box, finds the same
# neighbours, and its lists equal brute force (--check).
check "ball" 0 frnn-build -i "$work/p.pks" -r 0.25 -s ball --stats --json --check --device cpu
cp "$work/out" "$work/ball.json"
frnn-build -i "$work/p.pks" -r 0.25 -s tight --stats --json --device cpu >"$work/tight.json"
if command -v python3 >/dev/null; then
  python3 - "$work/tight.json" "$work/ball.json" <<'PY' || { echo "FAIL ball does not beat tight"; fail=1; }
import json, sys
t = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert b["candidates_per_neighbor"] < t["candidates_per_neighbor"], (b, t)
assert b["neighbors_mean"] == t["neighbors_mean"]
PY
fi
finish
