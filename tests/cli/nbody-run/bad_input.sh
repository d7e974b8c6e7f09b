#!/usr/bin/env bash
# nbody-run on bad input: one line on stderr and the right exit status, never a crash or a
# hang. Frames that cannot start a run (no or one body, a NaN position, no mass column, SI
# columns in N-body units, a truncated or empty input, no such frame): 1 (a format error);
# options that cannot make a run (theta <= 0 or NaN, NaN or infinite numbers, unknown methods or
# flags, no stop condition, --force-error with run flags, --units against the frame's): 2.
# Coincident bodies are a documented result (docs/NBODY.md): zero force between them, the
# run goes on. A position that overflows stops the run (1) naming the body.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"

# Frames from CSV (particle-convert): dimensionless columns, as N-body units need.
frame() {  # frame NAME HEADER ROWS...: NAME.pks with one group "bodies"
  local name=$1 header=$2
  shift 2
  {
    echo "# group: bodies"
    for c in position velocity mass; do echo "# unit: $c 0 0 0 0 0 0 0 1"; done
    echo "$header"
    for row in "$@"; do echo "$row"; done
  } > "$name.csv"
  particle-convert "$name.csv" "$name.pks" || { echo "FAIL particle-convert $name.csv"; fail=1; }
}
xyzm="position_x,position_y,position_z,mass"
frame zero "$xyzm"
frame one "$xyzm" "0,0,0,1"
frame nan "$xyzm" "0,0,0,1" "nan,0,0,1"
frame nomass "position_x,position_y,position_z" "0,0,0" "1,0,0"
frame negative "$xyzm" "0,0,0,1" "1,0,0,-1"
frame coincident "$xyzm" "0,0,0,0.5" "0,0,0,0.5" "1,0,0,1e-3"
frame fast "$xyzm,velocity_x,velocity_y,velocity_z" "0,0,0,1,0,0,0" "1,0,0,1,1e38,0,0"
printf '# group: bodies\nposition_x,position_y,position_z,mass\n0,0,0,1\n1,0,0,1\n' > metres.csv
particle-convert metres.csv metres.pks

run_fails() {  # run_fails DESCRIPTION STATUS PATTERN ARGS...
  local what=$1 status=$2 pattern=$3
  shift 3
  check "$what" "$status" nbody-run "$@" -o x.pks --device cpu
  expect_error "$what" nbody-run "$pattern"
}
run_fails "zero bodies" 1 'group "bodies" has 0 bodies; an N-body run needs at least two' -i zero.pks --steps 1
run_fails "one body" 1 'has 1 body; an N-body run needs at least two' -i one.pks --steps 1
run_fails "NaN position" 1 'row 1: position is not finite' -i nan.pks --steps 1
run_fails "no mass column" 1 'has no mass column' -i nomass.pks --steps 1
run_fails "negative mass" 1 'row 1: mass is negative' -i negative.pks --steps 1
run_fails "SI columns in N-body units" 1 'column "position" is in m, but the run uses N-body units' \
  -i metres.pks --steps 1
nbody-init kepler -o kepler.pks 2>/dev/null
run_fails "units against the frame's" 2 'the input is in nbody units; --units astro' -i kepler.pks --units astro --steps 1
head -c 100 "$(ls coincident.pks)" > cut.pks
run_fails "truncated input" 1 'cut.pks' -i cut.pks --steps 1
: > empty.pks
run_fails "empty input" 1 'empty file, not particle data' -i empty.pks --steps 1
run_fails "no such frame" 2 'no frame 5' -i coincident.pks --start-frame 5 --steps 1

run_fails "theta 0" 2 '--theta must be > 0 and <= 2 (got 0)' -i coincident.pks --steps 1 --theta 0
run_fails "theta < 0" 2 '--theta must be > 0 and <= 2 (got -0.5)' -i coincident.pks --steps 1 --theta -0.5
run_fails "theta NaN" 2 '--theta must be a finite number (got nan)' -i coincident.pks --steps 1 --theta nan
run_fails "theta > 2" 2 '--theta must be > 0 and <= 2 (got 3)' -i coincident.pks --steps 1 --theta 3
run_fails "infinite dt" 2 '--dt must be a finite number (got inf)' -i coincident.pks --steps 1 --dt inf
run_fails "NaN softening" 2 '--softening must be a finite number (got nan)' -i coincident.pks --steps 1 \
  --softening nan
run_fails "NaN until" 2 '--until must be a finite number (got nan)' -i coincident.pks --until nan
run_fails "infinite every" 2 '--every must be a finite number (got inf)' -i coincident.pks --until 1 --every inf
run_fails "leaf size 0" 2 '--leaf-size must be in 1..1024 (got 0)' -i coincident.pks --steps 1 --leaf-size 0
run_fails "depth 24" 2 '--max-depth must be in 1..21 (got 24)' -i coincident.pks --steps 1 --max-depth 24
run_fails "unknown method" 2 '--method' -i coincident.pks --steps 1 --method fmm
run_fails "unknown flag" 2 'tree-code' -i coincident.pks --steps 1 --tree-code
run_fails "no stop condition" 2 'exactly one of --until and --steps' -i coincident.pks
run_fails "force error of no body" 2 '--force-error' -i coincident.pks --force-error 0
run_fails "force error with steps" 2 '--force-error measures the start frame and exits; it takes no --steps' \
  -i coincident.pks --force-error 3 --steps 1
[ -e x.pks ] && { echo "FAIL an output was left behind"; fail=1; }

# Coincident bodies: no force between them (r = 0), with and without softening.
for eps in 0 0.01; do
  check "coincident bodies, softening $eps" 0 nbody-run -q -i coincident.pks -o c.pks --steps 4 --softening $eps \
    --acceleration --device cpu
done
# A body thrown at 1e38 leaves the float range after a step of 10: the error names it.
run_fails "overflow" 1 'body id 0 has a non-finite position' -q -i fast.pks --steps 3 --dt 10
finish
