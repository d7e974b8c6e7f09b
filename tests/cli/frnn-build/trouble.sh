#!/usr/bin/env bash
# Usage errors exit 2 with one line; bad input exits 1 with one line.
. "$PARTIKEL_SOURCE_DIR/tests/cli/frnn-build/lib.sh"

particles "$work/p.pks" 100 5
check "no radius" 2 frnn-build -i "$work/p.pks" --device cpu
expect_text "no radius message" "$work/err" "frnn-build: error: give --radius R (a positive length) or --radius-column NAME"
check "k out of range" 2 frnn-build -i "$work/p.pks" -r 0.1 -m subcell -k 5 --device cpu
check "k with cell" 2 frnn-build -i "$work/p.pks" -r 0.1 -m cell -k 2 --device cpu
check "bad method" 2 frnn-build -i "$work/p.pks" -r 0.1 -m octree --device cpu
check "negative radius" 2 frnn-build -i "$work/p.pks" -r -1 --device cpu
check "json without stats" 2 frnn-build -i "$work/p.pks" -r 0.1 --json --device cpu
check "shared-first needs a block shape" 2 frnn-build -i "$work/p.pks" -r 0.1 --order shared-first --device cpu
check "periodic needs a domain" 2 frnn-build -i "$work/p.pks" -r 0.1 --periodic x --device cpu -o "$work/x.pks"
check "bad periodic axes" 2 frnn-build -i "$work/p.pks" -r 0.1 --periodic w --domain 0,0,0,1,1,1 --device cpu
check "skin without verlet" 2 frnn-build -i "$work/p.pks" -r 0.1 --skin 0.1 --device cpu
check "missing radius column" 2 frnn-build -i "$work/p.pks" --radius-column h --device cpu -o "$work/x.pks"
expect_lines "one line" "$work/err" 1

head -c 300 "$work/p.pks" >"$work/cut.pks"
check "truncated input" 1 frnn-build -i "$work/cut.pks" -r 0.1 --device cpu -o "$work/x.pks"
expect_lines "truncated: one line" "$work/err" 1
expect_text "truncated: prefix" "$work/err" "frnn-build: error: "
if [ -e "$work/x.pks" ]; then echo "FAIL partial output left behind"; fail=1; fi
check "missing file" 1 frnn-build -i "$work/none.pks" -r 0.1 --device cpu -o "$work/x.pks"
finish
