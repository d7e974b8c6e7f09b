#!/usr/bin/env bash
# The examples' outputs depend on the programs that make them (`make run` after a rebuild must
# not reuse stale results): with every output made (make -t), each example is up to date until
# one of its programs is newer, then it is not. Dry runs only (make -q), with stand-in programs.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
command -v make >/dev/null || { echo "FAIL make not found"; exit 1; }
mkdir bin
for prog in sph-init sph-step nbody-init nbody-run pic-track splat-render; do
  printf '#!/bin/sh\nexit 0\n' >bin/$prog
  chmod +x bin/$prog
  touch -d '2020-01-01' bin/$prog
done
for example in dam-break galaxy-collision space-charge; do
  dir="$PARTIKEL_SOURCE_DIR/examples/$example"
  m=(make -C "$dir" --no-print-directory BIN="$work/bin/" OUT="$work/out/$example")
  mkdir -p "$work/out/$example/render"
  "${m[@]}" -t all >/dev/null 2>&1 || "${m[@]}" -t >/dev/null 2>&1
  "${m[@]}" -q all 2>/dev/null || "${m[@]}" -q 2>/dev/null ||
    { echo "FAIL $example: not up to date after make -t"; fail=1; continue; }
  # Every program the example's recipes call must be a prerequisite.
  for prog in $(grep -o '$(BIN)[a-z-]*' "$dir/Makefile" | sed 's/$(BIN)//' | sort -u); do
    touch -d '+1 hour' bin/$prog   # a rebuild (an hour ahead: mtimes only tick every few ms)
    if "${m[@]}" -q all 2>/dev/null; then echo "FAIL $example: up to date after $prog was rebuilt"; fail=1; fi
    "${m[@]}" -t all >/dev/null 2>&1
    touch -d '2020-01-01' bin/$prog
  done
done
finish
